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
