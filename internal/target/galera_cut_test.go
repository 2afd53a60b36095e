package target

import (
	"strings"
	"testing"
	"time"
)

// A cut the cell asked for that never happened fails its checks, saying
// why: its figures would otherwise read as taken under the cut.
func TestACutThatNeverHappenedIsAFailure(t *testing.T) {
	in := &galeraInstance{}
	in.conf.cut = &linkCut{node: 2, at: time.Hour, dur: time.Second}
	if err := in.endCut(); err == nil || !strings.Contains(err.Error(), "cut_link n3@1h0m0s+1s: never started") {
		t.Errorf("a cut never started: %v", err)
	}
	in.cut = &cutRun{cut: in.conf.cut, stop: make(chan struct{}), done: make(chan struct{})}
	go in.runCut(in.cut)
	if err := in.endCut(); err == nil || !strings.Contains(err.Error(), "the run ended before the cut was due") {
		t.Errorf("a cut due after the run's end: %v", err)
	}
}
