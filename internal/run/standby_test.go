package run

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// pidLog is the runner's log, kept to read the nodes' pids from.
type pidLog struct {
	mu   sync.Mutex
	text strings.Builder
}

func (l *pidLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if testing.Verbose() {
		os.Stderr.Write(b)
	}
	return l.text.Write(b)
}

// pid is the pid the log gave node's line ("postgres standby (pid N, ").
func (l *pidLog) pid(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.text.String(), "\n") {
		var pid int
		if i := strings.Index(line, prefix+" (pid "); i >= 0 {
			if _, err := fmt.Sscanf(line[i+len(prefix):], " (pid %d,", &pid); err == nil {
				return pid
			}
		}
	}
	return 0
}

// TestKilledSyncStandbyStallsTheCellNamingIt: SIGKILL to the synchronous
// standby 1 s into a cell under synchronous_commit=on: the primary runs
// on and every commit waits for a standby that is gone; the stall watch
// fails the cell past its limit, and the cell's status says the sessions
// were waiting for the synchronous standby and which node died; neither
// node nor any of the pair's hosts is left behind.
func TestKilledSyncStandbyStallsTheCellNamingIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	t.Parallel()
	testenv.RequireTarget(t, target.PgSync{})
	p := &plan.Plan{Targets: []string{"postgres-sync"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"},
		Clients: []int{4}, Duration: "30s", Interval: "0s", CPUs: "all"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	log := &pidLog{}
	var killedAt time.Time
	var primary int
	r := &Runner{OutDir: testenv.WorkDir(t), Log: log, Ledger: limits.Open(), stallLimit: 3 * time.Second,
		duringRun: func(ctx context.Context, _ *sql.DB) {
			time.Sleep(time.Second)
			primary = log.pid("postgres primary")
			standby := log.pid("postgres standby")
			if standby == 0 || primary == 0 {
				t.Errorf("no pids in the log: primary %d, standby %d", primary, standby)
				return
			}
			if err := syscall.Kill(standby, syscall.SIGKILL); err != nil {
				t.Error(err)
			}
			killedAt = time.Now()
		}}
	defer r.Ledger.Close()
	f := r.Cell(context.Background(), res, res.Cells[0])
	t.Log(f.Status)
	if killedAt.IsZero() {
		t.Fatal("the standby was never killed")
	}
	for _, want := range []string{"the server stopped answering: client", "waiting for the synchronous standby", "postgres standby was killed by signal 9"} {
		if f.OK() || !strings.Contains(f.Status, want) {
			t.Errorf("status %q does not say %q", f.Status, want)
		}
	}
	if took := f.Ended.Sub(killedAt); took > 20*time.Second {
		t.Errorf("the cell ended %v after the kill: the stall limit was 3 s", took)
	}
	if syscall.Kill(primary, 0) == nil {
		t.Errorf("the primary (pid %d) outlived its cell", primary)
	}
	if left := ownNetworks(); len(left) > 0 {
		t.Errorf("the cell left %v", left)
	}
}

// ownNetworks are the links and namespaces of any network this process
// made (netns.NewID: its pid in hex, a sequence). The test that asks
// runs beside others (t.Parallel), so this holds only while no other
// test of this package makes a network in this process: none does, and
// a cluster or --link test here should run apart (runPlanApart).
func ownNetworks() []string {
	var out []string
	ifs, _ := os.ReadDir("/sys/class/net")
	ns, _ := os.ReadDir("/run/netns")
	for _, e := range append(ifs, ns...) {
		for _, p := range []string{"sh", "shootout-"} {
			if strings.HasPrefix(e.Name(), fmt.Sprintf("%s%x-", p, os.Getpid())) {
				out = append(out, e.Name())
			}
		}
	}
	return out
}
