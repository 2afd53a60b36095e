package agent

import (
	"testing"
	"time"
)

func TestSaturatedPastEitherThreshold(t *testing.T) {
	for _, c := range []struct {
		cores float64
		cpus  int
		lag   time.Duration
		want  bool
	}{
		{0.5, 1, 0, false},
		{0.95, 1, 0, true},
		{1.7, 2, 0, false},
		{1.8, 2, 0, true},
		{0.1, 2, 99 * time.Millisecond, false},
		{0.1, 2, 100 * time.Millisecond, true},
	} {
		if got := saturated(c.cores, c.cpus, c.lag); got != c.want {
			t.Errorf("saturated(%v cores of %d, %v behind) = %v, want %v", c.cores, c.cpus, c.lag, got, c.want)
		}
	}
}
