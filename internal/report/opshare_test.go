package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"shootout/internal/hist"
	"shootout/internal/result"
	"shootout/internal/sections"
)

// stmtWorkload is a workload of the tests whose operations are
// statements: it registered the per-statement comparison.
const stmtWorkload = "statements-of-a-test"

func init() { sections.Register(stmtWorkload, sections.Section{Kind: sections.Statements}) }

// stmtFiles are repeats of one replay on two targets: per statement its
// count and mean on each, the means jittered by repeat so the repeats
// have a noise of their own.
func stmtFiles(repeats int, ops map[string][3]float64) []*result.File {
	var files []*result.File
	for i, t := range []string{"base-engine", "other-engine"} {
		for r := 1; r <= repeats; r++ {
			f := &result.File{
				Cell:       result.Cell{ID: fmt.Sprintf("%s-%d", t, r), Target: t, Workload: stmtWorkload, Dataset: "app.capture", Clients: 2, Conditions: result.Conditions{Neighbour: "0"}, Repeat: r},
				Target:     result.Target{Name: t, Flavor: "mysql"},
				Status:     "ok",
				Throughput: result.Throughput{Events: 10, Seconds: 1, TPS: 10},
				Ops:        map[string]result.Op{},
			}
			for op, v := range ops {
				n, mean := int64(v[0]), v[1+i]*(1+0.01*float64(r))
				s := hist.Snapshot{Count: n, MeanMs: mean, P50Ms: mean * 0.9, P99Ms: mean * 3, SumMs: mean * float64(n)}
				f.Ops[op] = result.Op{Snapshot: s, Untrimmed: s}
			}
			files = append(files, f)
		}
	}
	return files
}

// The per-statement table says how much longer the whole run took on
// each target and which statements make most of it, orders them by
// their share of the difference, marks each ratio from the repeats, and
// fits the terminal's 100 columns.
func TestTheStatementsThatMakeTheDifferenceComeFirst(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	ops := map[string][3]float64{
		"select v from log where n = ?":     {1000, 0.1, 0.11}, // a small difference, many times
		"select * from big where k in (?+)": {100, 1, 3},       // most of the difference
		"update c set x = ? where id = ?":   {10, 2, 2},        // none
	}
	var b bytes.Buffer
	Terminal(&b, stmtFiles(4, ops), "base-engine")
	out := b.String()
	// base 100+100+20 = 220 ms, other 300+110+20 = 430: 1.95×; the big
	// select is 200 of the 210 ms difference
	want := "on other-engine the run took 1.95× base-engine's time; 95% of that is this statement (#1)"
	if !strings.Contains(out, want) {
		t.Errorf("no headline %q:\n%s", want, out)
	}
	big, small, upd := strings.Index(out, "#1  select * from big"), strings.Index(out, "#2  select v from log"), strings.Index(out, "#3  update c")
	if big < 0 || small < big || upd < small {
		t.Errorf("statements not in the order of their share of the difference (big, log, update):\n%s", out)
	}
	if !regexp.MustCompile(`#1  select \* from big.* 3\.00 +95%`).MatchString(out) || !regexp.MustCompile(`#3  update c.* 1\.00~ +0%`).MatchString(out) {
		t.Errorf("the big select should be 3.00× with 95%% of the difference and the update within the noise (1.00~):\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 100 {
			t.Errorf("a line wider than 100 columns: %q", l)
		}
	}
	if strings.Contains(out, `operation "select`) {
		t.Errorf("a statements workload gets one table for all its statements, not a table each:\n%s", out)
	}
	b.Reset()
	Terminal(&b, stmtFiles(1, ops), "base-engine")
	if !strings.Contains(b.String(), "1.95×? base-engine's time") {
		t.Errorf("one repeat each cannot tell a difference from the noise (?):\n%s", b.String())
	}
}

// The CSV has each statement's share of its target's difference on
// every repeat's row of that target, and none on the baseline's.
func TestTheCSVHasEachStatementsShare(t *testing.T) {
	ops := map[string][3]float64{"select a": {100, 1, 3}, "select b": {1000, 0.1, 0.11}}
	var b bytes.Buffer
	if err := CSV(&b, stmtFiles(2, ops), "base-engine"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[col["target"]]+" "+r[col["op"]]] = r[col["share_of_difference"]]
	}
	// other-engine spends 200 ms more on select a, 10 ms on select b
	want := map[string]string{"other-engine select a": "0.9524", "other-engine select b": "0.0476", "base-engine select a": "", "base-engine select b": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: share_of_difference %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

// The HTML report has the same comparison: every statement in one
// table, the headline in its caption, and no chart per statement.
func TestTheHTMLComparesPerStatement(t *testing.T) {
	ops := map[string][3]float64{"select a from t where k = ?": {100, 1, 3}, "select b": {1000, 0.1, 0.11}}
	page := string(render(t, &Page{Files: stmtFiles(4, ops), Baseline: "base-engine"}))
	for _, want := range []string{"Per statement, most of the difference first",
		"on other-engine the run took 2.05× base-engine&#39;s time; 95% of that is this statement (#1)", // 410 ms against 200

		`<th colspan="4" class="tgroup">other-engine</th>`, "select a from t where k = ?"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "Operation select") {
		t.Errorf("a statements workload gets one table, not a chart per statement")
	}
}

// A statement clipped to fit the terminal is written whole under the
// table, with its number.
func TestAClippedStatementIsShownWhole(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	long := "select a_rather_long_column_name, another_long_column_name from some_table where id = ?"
	var b bytes.Buffer
	Terminal(&b, stmtFiles(1, map[string][3]float64{long: {10, 1, 2}, "begin": {10, 1, 1}}), "base-engine")
	if !strings.Contains(b.String(), "  #1 "+long+"\n") || strings.Contains(b.String(), "  #2 begin\n") {
		t.Errorf("the clipped statement #1, and only it, should be written whole under the table:\n%s", b.String())
	}
}

// A statement a target never completed is left out of both sides of
// its comparison, and the headline names it: a target twice as slow on
// everything it ran reads 2.00×, not the baseline's whole against a
// part of the run, and no share divides by a difference near zero.
func TestAStatementATargetNeverRanIsLeftOutOfBothSides(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	files := stmtFiles(4, map[string][3]float64{
		"select v from log where n = ?":     {1000, 0.1, 0.2},
		"select * from big where k in (?+)": {100, 1, 1},
	})
	for _, f := range files {
		if f.Cell.Target == "other-engine" {
			o := f.Ops["select * from big where k in (?+)"]
			o.Snapshot.Count, o.Untrimmed.Count = 0, 0
			f.Ops["select * from big where k in (?+)"] = o
		}
	}
	var b bytes.Buffer
	Terminal(&b, files, "base-engine")
	out := b.String()
	want := "on other-engine the run took 2.00× base-engine's time over the statements both ran (#2 never completed on other-engine, left out of both); 100% of that is this statement (#1)"
	if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("no headline %q:\n%s", want, out)
	}
	for _, m := range regexp.MustCompile(`(-?\d+)%`).FindAllStringSubmatch(out, -1) {
		if n, _ := strconv.Atoi(m[1]); n < -100 || n > 100 {
			t.Errorf("a share of %s%%:\n%s", m[1], out)
		}
	}
}

// Two targets as fast as each other get no shares: a difference near
// zero would make any share meaningless.
func TestNoShareOfNoDifference(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	var b bytes.Buffer
	Terminal(&b, stmtFiles(4, map[string][3]float64{"select a": {100, 1, 1.001}, "select b": {100, 1, 0.999}}), "base-engine")
	out := b.String()
	if !strings.Contains(out, "1.00×~ base-engine's time; ~ no difference") || regexp.MustCompile(`#\d  select .*\d%`).MatchString(out) {
		t.Errorf("the same whole should read '~ no difference' with no shares:\n%s", out)
	}
}

// Shares beyond ±100%, where statements faster on a target offset
// slower ones, are explained under the table.
func TestSharesBeyondAHundredPercentAreExplained(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	var b bytes.Buffer
	// select a 100 ms slower, select b 90 ms faster: 10 ms net, 1000% and -900%
	Terminal(&b, stmtFiles(4, map[string][3]float64{"select a": {100, 1, 2}, "select b": {100, 1, 0.1}}), "base-engine")
	out := strings.Join(strings.Fields(b.String()), " ")
	if !regexp.MustCompile(`#1 select a .* 1000% .*#2 select b .* -900%`).MatchString(out) ||
		!strings.Contains(out, "on other-engine shares beyond ±100%: statements faster there offset those slower; the net difference is 10.") {
		t.Errorf("shares of 1000%% and -900%% should be explained under the table:\n%s", b.String())
	}
}

// Each statement's plan on each target is shown beside its times: the
// statement whose plans differ (another key) is flagged with both, the
// numbers of a plan (its estimates) are no difference, and the HTML
// has the plans in the statement's title.
func TestThePlansOfTheStatementsAreShownAndTheirDifferencesFlagged(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	ops := map[string][3]float64{"select * from big where k = ?": {100, 1, 3}, "select v from log where n = ?": {1000, 0.1, 0.11}}
	files := stmtFiles(2, ops)
	for _, f := range files {
		big, log := "big ref key=k rows=10", "log ref key=n rows=1"
		if f.Cell.Target == "other-engine" {
			big, log = "big ALL key=none rows=100000 Using where", "log ref key=n rows=3"
		}
		f.Invariants.Plans = map[string]string{"select * from big where k = ?": big, "select v from log where n = ?": log}
	}
	var b bytes.Buffer
	Terminal(&b, files, "base-engine")
	out := b.String()
	for _, want := range []string{"#1 PLANS DIFFER: base-engine: big ref key=k rows=10; other-engine: big ALL key=none",
		"#2 plan, every target: log ref key=n rows=1"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	page := string(render(t, &Page{Files: files, Baseline: "base-engine"}))
	if !strings.Contains(page, "EXPLAIN on other-engine:\nbig ALL key=none") {
		t.Errorf("the HTML has no plan in the statement's title")
	}
}

// The CSV has each statement's plan on each row of the target that took
// it, and plans_differ on every row of the statement: true where two
// targets' plans have another shape, false where only their numbers
// differ, empty where fewer than two targets took one.
func TestTheCSVHasThePlansAndWhetherTheyDiffer(t *testing.T) {
	ops := map[string][3]float64{"select big": {100, 1, 3}, "select log": {1000, 0.1, 0.11}, "select none": {10, 1, 1}}
	files := stmtFiles(2, ops)
	for _, f := range files {
		big, log := "big ref key=k rows=10\nidx ref key=a rows=1", "log ref key=n rows=1"
		if f.Cell.Target == "other-engine" {
			big, log = "big ALL key=none rows=100000", "log ref key=n rows=3"
		}
		f.Invariants.Plans = map[string]string{"select big": big, "select log": log}
	}
	var b bytes.Buffer
	if err := CSV(&b, files, "base-engine"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[col["target"]]+" "+r[col["repeat"]]+" "+r[col["op"]]] = r[col["plan"]] + " / " + r[col["plans_differ"]]
	}
	want := map[string]string{
		"base-engine 1 select big":   "big ref key=k rows=10 | idx ref key=a rows=1 / true",
		"other-engine 2 select big":  "big ALL key=none rows=100000 / true",
		"base-engine 2 select log":   "log ref key=n rows=1 / false",
		"other-engine 1 select log":  "log ref key=n rows=3 / false",
		"other-engine 1 select none": " / ",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: plan / plans_differ %q, want %q", k, got[k], v)
		}
	}
}
