package run

import (
	"testing"
	"time"
)

// A short run's nodes are read often enough for the panel to have
// points; a long one's at every interval, beside the interval lines.
func TestNodeSamplePeriodGivesAShortRunItsPoints(t *testing.T) {
	for _, c := range []struct{ interval, duration, want time.Duration }{
		{10 * time.Second, 10 * time.Second, time.Second},
		{10 * time.Second, 20 * time.Second, 2 * time.Second},
		{10 * time.Second, 3 * time.Second, time.Second},
		{10 * time.Second, 60 * time.Second, 10 * time.Second},
		{time.Second, 4 * time.Second, time.Second},
		{10 * time.Second, 0, 10 * time.Second}, // stopped by --ops: no length known
	} {
		if got := nodeSamplePeriod(c.interval, c.duration); got != c.want {
			t.Errorf("interval %v, duration %v: read every %v, want %v", c.interval, c.duration, got, c.want)
		}
	}
}
