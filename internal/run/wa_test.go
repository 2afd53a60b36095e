package run

import (
	"testing"

	"shootout/internal/result"
)

func TestWriteAmplificationNeedsLogicalBytesAndAMeasuredServer(t *testing.T) {
	measured := result.Server{Measured: true, WriteBytes: 17000}
	for _, c := range []struct {
		name     string
		s        result.Server
		counters map[string]int64
		want     float64 // 0: absent
	}{
		{"counted", measured, map[string]int64{"logical_bytes": 752}, 17000.0 / 752},
		{"nothing written is 0, not absent", result.Server{Measured: true}, map[string]int64{"logical_bytes": 752}, -1},
		{"no counter", measured, map[string]int64{"rows_inserted": 3}, 0},
		{"nothing changed", measured, map[string]int64{"logical_bytes": 0}, 0},
		{"external server", result.Server{WriteBytes: 17000}, map[string]int64{"logical_bytes": 752}, 0},
	} {
		got := writeAmplification(c.s, c.counters)
		switch {
		case c.want == 0 && got != nil:
			t.Errorf("%s: got %v, want absent", c.name, *got)
		case c.want == -1 && (got == nil || *got != 0):
			t.Errorf("%s: got %v, want 0", c.name, got)
		case c.want > 0 && (got == nil || *got != c.want):
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
