package run

import (
	"maps"
	"testing"

	"shootout/internal/result"
)

// TestCertConflictsApartFromDeadlocks: on a cluster whose server answers a
// certification failure with the deadlock's 1213 and message, the clients'
// deadlocks beyond the lock cycles the nodes' engines counted are
// certification conflicts; a single server's are left as they are.
func TestCertConflictsApartFromDeadlocks(t *testing.T) {
	th := result.Throughput{ErrorsBy: map[string]int64{"deadlock": 10, "lock_wait_timeout": 1}}
	splitCertConflicts(&th, []result.Node{{Name: "n1", Deadlocks: 1}, {Name: "n2", Deadlocks: 2}, {Name: "n3"}})
	want := map[string]int64{"deadlock": 3, "cert_conflict": 7, "lock_wait_timeout": 1}
	if !maps.Equal(th.ErrorsBy, want) {
		t.Errorf("cluster: errors by class %v, want %v", th.ErrorsBy, want)
	}
	th = result.Throughput{ErrorsBy: map[string]int64{"deadlock": 4}}
	splitCertConflicts(&th, []result.Node{{Name: "n1"}, {Name: "n2"}})
	if want := map[string]int64{"cert_conflict": 4}; !maps.Equal(th.ErrorsBy, want) {
		t.Errorf("cluster without deadlocks: %v, want %v", th.ErrorsBy, want)
	}
	th = result.Throughput{ErrorsBy: map[string]int64{"deadlock": 4}}
	splitCertConflicts(&th, nil)
	if want := map[string]int64{"deadlock": 4}; !maps.Equal(th.ErrorsBy, want) {
		t.Errorf("single server: %v, want %v", th.ErrorsBy, want)
	}
}
