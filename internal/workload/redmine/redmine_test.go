package redmine

import (
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// The generated sets must have the seed's shape: users, projects per level,
// ten members per project, issues with ten comments each.
func TestDatasetsHaveTheSeedsShape(t *testing.T) {
	for name, s := range shapes {
		w := newWorld(s, 1, 0.15)
		if len(w.members) != s.l1+s.l2+s.l3 || len(w.issues) != s.issues {
			t.Fatalf("%s: %d projects, %d issues", name, len(w.members), len(w.issues))
		}
		for p, ms := range w.members {
			seen := map[int]bool{}
			for _, u := range ms {
				if seen[u] || u < firstUserID || u >= firstUserID+s.users {
					t.Fatalf("%s: project %d has member %d twice or out of range", name, p+1, u)
				}
				seen[u] = true
			}
		}
		var rows, all int
		for _, b := range w.batches() {
			bt := b()
			all += len(bt.Rows)
			if bt.Table == "journals" {
				rows += len(bt.Rows)
			}
		}
		if int64(all) != s.loadRows() {
			t.Errorf("%s: the load writes %d rows, the progress bar expects %d", name, all, s.loadRows())
		}
		if rows != s.issues*commentsPerIssue {
			t.Errorf("%s: %d journals, want %d", name, rows, s.issues*commentsPerIssue)
		}
	}
}

// Project and issue trees must be valid nested sets: every child inside its
// parent's lft..rgt, widths that fit the children exactly.
func TestNestedSetsAreConsistent(t *testing.T) {
	w := newWorld(shapes["large"], 7, 0.3)
	for p, par := range w.parent {
		if w.rgt[p] <= w.lft[p] {
			t.Fatalf("project %d: lft %d rgt %d", p+1, w.lft[p], w.rgt[p])
		}
		if par >= 0 && !(w.lft[par] < w.lft[p] && w.rgt[p] < w.rgt[par]) {
			t.Fatalf("project %d is not inside its parent %d", p+1, par+1)
		}
	}
	children := map[int]int{}
	subtasks := 0
	for i, is := range w.issues {
		if is.parent != 0 {
			subtasks++
			children[is.parent]++
			par := w.issues[is.parent-1]
			if is.root != is.parent || !(par.lft < is.lft && is.rgt < par.rgt) || is.project != par.project {
				t.Fatalf("issue %d is not inside its parent %d: %+v in %+v", i+1, is.parent, is, par)
			}
			if isClosed(par.status) && !isClosed(is.status) {
				t.Fatalf("issue %d is open under its closed parent %d, which Redmine does not allow", i+1, is.parent)
			}
		}
	}
	for id, n := range children {
		if is := w.issues[id-1]; is.rgt-is.lft+1 != 2*n+2 {
			t.Fatalf("issue %d spans %d..%d for %d children", id, is.lft, is.rgt, n)
		}
	}
	if subtasks < len(w.issues)/5 {
		t.Errorf("%d subtasks of %d issues at a 0.3 share", subtasks, len(w.issues))
	}
}

func TestSameSeedSameData(t *testing.T) {
	a, b := newWorld(shapes["small"], 3, 0.15), newWorld(shapes["small"], 3, 0.15)
	ba, bb := a.batches(), b.batches()
	for i := range ba {
		x, y := ba[i](), bb[i]()
		if len(x.Rows) != len(y.Rows) || (len(x.Rows) > 0 && x.Rows[len(x.Rows)-1][len(x.Cols)-1] != y.Rows[len(y.Rows)-1][len(y.Cols)-1]) {
			t.Fatalf("batch %d (%s) differs between two generations", i, x.Table)
		}
	}
	if newWorld(shapes["small"], 4, 0.15).apiKey(5) == a.apiKey(5) {
		t.Error("another seed should give other API keys")
	}
}

// redmine3.3 is Redmine 5's schema without the index 3.4 added.
func TestSchemaVariants(t *testing.T) {
	w5, _ := parse(nil)
	w33, _ := parse(map[string]string{"schema": "redmine3.3"})
	ddl := func(d dialect.Dialect, o Options) string {
		w, ds := &Workload{opt: o}, workload.Dataset{Name: "small"}
		return strings.Join(append(w.Schema(d, ds), w.PostLoad(d, ds)...), "\n")
	}
	for _, d := range []dialect.Dialect{{Flavor: dialect.MySQL, Engine: "rocksdb"}, {Flavor: dialect.MySQL, Engine: "innodb"},
		{Flavor: dialect.Postgres}, {Flavor: dialect.SQLite}} {
		if !strings.Contains(ddl(d, w5), parentIndex) || strings.Contains(ddl(d, w33), parentIndex) {
			t.Fatalf("%v: %s must be in redmine5 only", d, parentIndex)
		}
	}
	if _, err := parse(map[string]string{"schema": "redmine4"}); err == nil || !strings.Contains(err.Error(), "redmine5 or redmine3.3") {
		t.Errorf("bad schema: %v", err)
	}
	if _, err := parse(map[string]string{"subtask": "1"}); err == nil || !strings.Contains(err.Error(), "valid: load_parallel, protocol, schema, subtasks") {
		t.Errorf("unknown parameter: %v", err)
	}
}

// parse is the options the workload makes of params, through the
// declaration's checks.
func parse(params map[string]string) (Options, error) {
	w, err := workload.New("redmine", params)
	if err != nil {
		return Options{}, err
	}
	return w.(*Workload).opt, nil
}
