package run

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/stats"
)

func tpsRepeats(tps ...float64) []*result.File {
	var fs []*result.File
	for i, v := range tps {
		fs = append(fs, &result.File{Cell: result.Cell{Repeat: i + 1}, Status: "ok", Throughput: result.Throughput{TPS: v, Events: 100}})
	}
	return fs
}

func TestRepeatStopRule(t *testing.T) {
	a := &plan.AutoRepeat{RSD: 0.03, Max: 10, Alpha: 0.05, Min: 4}
	for _, c := range []struct {
		tps   []float64
		round int
		stop  bool
		why   string
	}{
		{[]float64{100, 101}, 2, false, "2 of at least 4 repeats"},
		{[]float64{100, 101, 99}, 3, false, "3 of at least 4 repeats (the fewest that can reach p < 0.05)"},
		{[]float64{100, 101, 99, 100}, 4, true, "rsd 0.8% < 3.0% after 4 repeats"},
		{[]float64{100, 120, 80, 100}, 4, false, "rsd 16.3% ≥ 3.0% after 4 repeats"},
		{[]float64{100, 120, 80, 100, 120, 80, 100, 120, 80, 100}, 10, true, "maximum of 10 repeats reached, rsd still"},
	} {
		why, stop := repeatStop(tpsRepeats(c.tps...), a, c.round)
		if stop != c.stop || !strings.HasPrefix(why, c.why) {
			t.Errorf("%v: stop=%v %q, want %v %q", c.tps, stop, why, c.stop, c.why)
		}
	}
	failed := tpsRepeats(100, 101)
	failed[1].Status = "failed: x"
	if why, stop := repeatStop(failed, a, 2); !stop || !strings.Contains(why, "repeat 2 failed") {
		t.Errorf("a failed repeat must stop the cell: %v %q", stop, why)
	}
}

func TestResumeDecision(t *testing.T) {
	planned := result.Cell{ID: "t__w__d__c1__n0__h00000001__r1", Duration: "2s", Repeat: 1}
	same := &result.File{Cell: planned, Status: "ok"}
	failed := &result.File{Cell: planned, Status: "failed: boom"}
	other := &result.File{Cell: result.Cell{ID: "t__w__d__c1__n0__h00000002__r1", Duration: "1s", Repeat: 1}, Status: "ok"}
	for _, c := range []struct {
		earlier []*result.File
		skip    bool
		why     string
	}{
		{nil, false, ""},
		{[]*result.File{same}, true, ""},
		{[]*result.File{failed}, false, "it did not succeed before (failed: boom)"},
		{[]*result.File{other}, false, "its conditions changed: duration: 1s vs 2s"},
	} {
		m := map[string][]*result.File{}
		for _, f := range c.earlier {
			m[resumeKey(f.Cell)] = append(m[resumeKey(f.Cell)], f)
		}
		if skip, why := resumeDecision(m, planned); skip != c.skip || why != c.why {
			t.Errorf("earlier %d files: skip %v %q, want %v %q", len(c.earlier), skip, why, c.skip, c.why)
		}
	}
}

// A steady cell under --repeat auto runs as many repeats as can decide
// at the plan's alpha, not fewer, and the rounds interleave the targets.
func TestAutoRepeatRunsTheRepeatsThatCanDecide(t *testing.T) {
	for _, alpha := range []float64{0.05, 0.01} {
		p := &plan.Plan{Targets: []string{"sqlite", "mariadb-innodb"}, Workloads: []string{"oltp_read_write"},
			Datasets: []string{"1000"}, Duration: "1s", Repeat: "auto", Alpha: &alpha}
		res, err := p.Resolve(plan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		r := &Runner{OutDir: t.TempDir(), Log: &strings.Builder{}}
		r.fakeCell = func(_ context.Context, _ *plan.Resolved, c result.Cell) *result.File {
			order = append(order, fmt.Sprintf("%s#%d", c.Target, c.Repeat))
			return &result.File{Cell: c, Status: "ok", Throughput: result.Throughput{TPS: 100, Events: 1000}}
		}
		if _, err := r.Matrix(context.Background(), res); err != nil {
			t.Fatal(err)
		}
		n := stats.LeastRepeats(alpha)
		var want []string
		for rep := 1; rep <= n; rep++ {
			want = append(want, fmt.Sprintf("sqlite#%d", rep), fmt.Sprintf("mariadb-innodb#%d", rep))
		}
		if strings.Join(order, " ") != strings.Join(want, " ") {
			t.Errorf("alpha %v: ran %v, want %v", alpha, order, want)
		}
		a, b := tpsOf(t, r.OutDir, "sqlite"), tpsOf(t, r.OutDir, "mariadb-innodb")
		if len(a) != n || len(b) != n {
			t.Fatalf("alpha %v: %d and %d repeats written, want %d", alpha, len(a), len(b), n)
		}
		if c := stats.Compare(a, b, alpha); c.NeedN != 0 {
			t.Errorf("alpha %v: the repeats cannot decide: %s", alpha, c)
		}
	}
}

func tpsOf(t *testing.T, dir, target string) []float64 {
	files, err := result.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var xs []float64
	for _, f := range files {
		if f.Cell.Target == target {
			xs = append(xs, f.Throughput.TPS)
		}
	}
	return xs
}
