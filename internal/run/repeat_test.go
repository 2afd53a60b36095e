package run

import (
	"strings"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/result"
)

func tpsRepeats(tps ...float64) []*result.File {
	var fs []*result.File
	for i, v := range tps {
		fs = append(fs, &result.File{Cell: result.Cell{Repeat: i + 1}, Status: "ok", Throughput: result.Throughput{TPS: v, Events: 100}})
	}
	return fs
}

func TestRepeatStopRule(t *testing.T) {
	a := &plan.AutoRepeat{RSD: 0.03, Max: 10}
	for _, c := range []struct {
		tps   []float64
		round int
		stop  bool
		why   string
	}{
		{[]float64{100, 101}, 2, false, "2 of at least 3 repeats"},
		{[]float64{100, 101, 99}, 3, true, "rsd 1.0% < 3.0% after 3 repeats"},
		{[]float64{100, 120, 80}, 3, false, "rsd 20.0% ≥ 3.0% after 3 repeats"},
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
