package run

import (
	"strings"
	"testing"

	"shootout/internal/plan"
)

// TestKVReadsOnEveryServerAndPath runs the key-value reads on real
// servers by every access path each speaks: every client reads its slice
// of the ids every round, and every row read is checked against the value
// loaded (a wrong or missing one fails the cell).
func TestKVReadsOnEveryServerAndPath(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	paths := map[string][]string{
		"mariadb-innodb": {"prepared", "text", "handler", "batch"},
		"mariadb-memory": {"prepared", "handler"},
		"mariadb-myisam": {"handler"},
		"postgres":       {"prepared", "text", "batch"},
		"sqlite":         {"prepared", "batch"},
	}
	for name, ps := range paths {
		for _, path := range ps {
			t.Run(name+"/"+path, func(t *testing.T) {
				requireTargets(t, name)
				p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"kv"}, Datasets: []string{"20000"},
					Params:  map[string]string{"path": path, "id_count": "3000", "rounds": "2", "batch": "50"},
					Clients: []int{4}, Duration: "60s", Interval: "0s"}
				f := runPlan(t, p, &Runner{}, 1)[0]
				if !f.OK() {
					t.Fatalf("%s", f.Status)
				}
				if got := f.Counters["rows_read"]; got < 6000 || (path != "batch" && got != 6000) {
					t.Errorf("rows read %d, want 3000 ids x 2 rounds", got)
				}
				if f.Throughput.Seconds > 50 {
					t.Errorf("the run lasted %.0f s: it did not end when the clients had read their slices", f.Throughput.Seconds)
				}
			})
		}
	}
	// a path a server does not speak fails its cell with one line
	t.Run("handler on postgres", func(t *testing.T) {
		requireTargets(t, "postgres")
		p := &plan.Plan{Name: "it", Targets: []string{"postgres"}, Workloads: []string{"kv"}, Datasets: []string{"1000"},
			Params: map[string]string{"path": "handler", "id_count": "100", "rounds": "1"}, Clients: []int{1}, Duration: "10s", Interval: "0s"}
		f := runPlan(t, p, &Runner{}, 1)[0]
		if f.OK() || !strings.Contains(f.Status, "path handler is MariaDB's") {
			t.Fatalf("status %q", f.Status)
		}
	})
}
