package run

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"syscall"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/testenv"
)

// TestServerCrashKeepsItsLog: SIGSEGV to mariadbd a second into a short
// cell makes it write a crash report and die. The cell fails quoting the
// report's "got signal" line, not its last lines (ulimits, kernel), and the
// error log, which goes with the server's directory, is kept beside the
// cell's result file.
func TestServerCrashKeepsItsLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	requireTargets(t, "mariadb-innodb")
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"},
		Clients: []int{2}, Duration: "10s", Interval: "0s"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := testenv.WorkDir(t)
	r := &Runner{OutDir: out, Log: logWriter(t), Ledger: limits.Open(), duringRun: func(ctx context.Context, db *sql.DB) {
		signalServer(ctx, t, db, syscall.SIGSEGV)
	}}
	defer r.Ledger.Close()
	f := r.Cell(context.Background(), res, res.Cells[0])
	t.Logf("status: %s", f.Status)
	if f.OK() || !strings.Contains(f.Status, "killed by signal 11") {
		t.Fatalf("status %q must name the signal", f.Status)
	}
	if !strings.Contains(f.Status, "got signal 11") {
		t.Errorf("status %q must quote the crash report's signal line", f.Status)
	}
	kept := keptLogPath(out, f.Cell.ID)
	if !strings.Contains(f.Status, "kept in cells/"+f.Cell.ID+".server.log") {
		t.Errorf("status %q must name the kept log", f.Status)
	}
	if b, err := os.ReadFile(kept); err != nil || !strings.Contains(string(b), "got signal 11") {
		t.Errorf("the kept log %s must hold the crash report (%v)", kept, err)
	}
}
