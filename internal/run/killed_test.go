package run

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"shootout/internal/plan"
)

// killClientSessions ends every session of the server but the caller's,
// as an operator's KILL or pg_terminate_backend would: the cell's clients
// and any idle connection of its pool alike. It returns how many it ended.
func killClientSessions(ctx context.Context, db *sql.DB, postgres bool) int {
	if postgres {
		var n int
		db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') AS ended`).Scan(&n)
		return n
	}
	rows, err := db.QueryContext(ctx, "SELECT id FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND command NOT IN ('Daemon', 'Killed') AND user <> 'system user'")
	if err != nil {
		return 0
	}
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	n := 0
	for _, id := range ids {
		if _, err := db.ExecContext(ctx, "KILL CONNECTION "+id); err == nil {
			n++
		}
	}
	return n
}

// TestWritesLostToKilledSessionsKeepTheChecks ends every client session of
// a writing cell again and again on a real server. Each kill loses the
// statement in flight; one that lands between a COMMIT and its answer
// leaves a write that may have taken effect. The driver reconnects, and
// the cell must pass its checks: the table equals what the clients counted
// plus some of the writes in doubt (oltp), the orders and stock what the
// checkouts did (the shop). The settling itself is tested exactly through
// a driver that loses chosen answers (internal/workload); this is the
// whole chain, on the servers' own errors for a killed session.
func TestWritesLostToKilledSessionsKeepTheChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, c := range []struct {
		target, workload, dataset string
		params                    map[string]string
	}{
		{"mariadb-innodb", "oltp_read_write", "5000", nil},
		{"postgres", "oltp_read_write", "5000", nil},
		{"mariadb-innodb", "shop", "1000", nil},
		// the clients' loops in C, outside the driver's Do
		{"mariadb-innodb", "oltp_point_select", "5000", map[string]string{"client": "libmariadb"}},
	} {
		t.Run(c.target+"/"+c.workload+"/"+c.params["client"], func(t *testing.T) {
			// side by side: the cells are the kills' rounds and a run of
			// fixed length, spent waiting; the server and shootout share
			// the cores (--cpus all), since a cell placed on its own CPUs
			// moves the whole test process (limits.PinSelf), which two cells
			// of one process cannot share; what is asserted (kills,
			// reconnects, the checks) is not a CPU or disk figure
			t.Parallel()
			requireTargets(t, c.target)
			const rounds = 8
			var killed, done atomic.Int64
			r := &Runner{duringRun: func(ctx context.Context, db *sql.DB) {
				defer done.Store(1)
				for i := 0; i < rounds; i++ {
					select {
					case <-ctx.Done():
						return
					case <-time.After(350 * time.Millisecond):
					}
					killed.Add(int64(killClientSessions(ctx, db, c.target == "postgres")))
				}
			}}
			p := &plan.Plan{Name: "it", Targets: []string{c.target}, Workloads: []string{c.workload}, Datasets: []string{c.dataset},
				Clients: []int{4}, Duration: "5s", Interval: "0s", Params: c.params, CPUs: "all"}
			f := runPlan(t, p, r, 1)[0]
			if !f.OK() {
				t.Fatalf("sessions ended under the clients must not fail the cell or its checks: %s; checks: %s", f.Status, strings.Join(f.Invariants.Checked, "; "))
			}
			if done.Load() == 0 {
				t.Fatalf("the run ended before its %d rounds of kills", rounds)
			}
			if killed.Load() < rounds*2 {
				t.Fatalf("ended %d sessions in %d rounds: the kills did not reach the clients", killed.Load(), rounds)
			}
			if f.Throughput.Reconnects < rounds {
				t.Errorf("%d reconnects after %d sessions ended in %d rounds", f.Throughput.Reconnects, killed.Load(), rounds)
			}
			if f.Throughput.Events == 0 {
				t.Error("no operation finished between the kills")
			}
			t.Logf("%d sessions ended, %d reconnects, %d events; checks: %s", killed.Load(), f.Throughput.Reconnects, f.Throughput.Events, strings.Join(f.Invariants.Checked, "; "))
		})
	}
}
