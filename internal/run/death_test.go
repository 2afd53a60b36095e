package run

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// signalMidRun sends sig to mariadbd 2 s into a 20 s cell, then runs a
// SQLite cell, and returns both results and when the signal went.
func signalMidRun(t *testing.T, sig syscall.Signal) ([]*result.File, time.Time) {
	t.Helper()
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	p := &plan.Plan{Targets: []string{"mariadb-innodb", "sqlite"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000"},
		Clients: []int{4}, Duration: "20s", Interval: "0s"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sentAt time.Time
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open(), duringRun: func(ctx context.Context, db *sql.DB) {
		time.Sleep(2 * time.Second)
		var pidFile string
		if err := db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&pidFile); err != nil {
			return // the second cell is SQLite: nothing to signal
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Errorf("read %s: %v", pidFile, err)
			return
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		sentAt = time.Now()
		syscall.Kill(pid, sig)
	}}
	defer r.Ledger.Close()
	var files []*result.File
	r.OnCell = func(f *result.File) { files = append(files, f) }
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("the matrix must go on after the server: %d cells", len(files))
	}
	if !files[1].OK() {
		t.Fatalf("the next cell: %s", files[1].Status)
	}
	return files, sentAt
}

// TestServerKilledMidRunIsNamedAtOnce: SIGKILL mid-run; the clients stop
// at once, the cell fails naming the signal and the server's log, and the
// next cell of the matrix runs.
func TestServerKilledMidRunIsNamedAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	files, at := signalMidRun(t, syscall.SIGKILL)
	dead := files[0]
	if dead.OK() || !strings.Contains(dead.Status, "mariadb-innodb died: was killed by signal 9") {
		t.Fatalf("status %q must name the death and the signal", dead.Status)
	}
	if took := dead.Ended.Sub(at); at.IsZero() || took > 5*time.Second {
		t.Fatalf("the cell ended %v after the kill: the clients must stop at once", took)
	}
}

// TestServerStoppedMidRunIsKilledAndNamed: a SIGSTOPped server answers
// nobody; after 2 s shootout kills it (it started it) and says why,
// instead of waiting on it for the rest of the cell.
func TestServerStoppedMidRunIsKilledAndNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	files, at := signalMidRun(t, syscall.SIGSTOP)
	hung := files[0]
	if hung.OK() || !strings.Contains(hung.Status, "mariadb-innodb died: it stayed stopped (state T") {
		t.Fatalf("status %q must say the server was stopped and killed", hung.Status)
	}
	if took := hung.Ended.Sub(at); at.IsZero() || took > hungFor+5*time.Second {
		t.Fatalf("the cell ended %v after the SIGSTOP", took)
	}
}

// TestServerOOMKilledIsNamed: a buffer pool far above the memory cap gets
// mariadbd killed by the cgroup's OOM killer during the load; the cell
// says so from the cgroup's own counter, with the evidence recorded.
func TestServerOOMKilledIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	requireLimits(t)
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"400000"},
		Clients: []int{1}, Duration: "2s", Interval: "0s", Memory: "96M",
		Settings: map[string]map[string]string{"mariadb-innodb": {"innodb_buffer_pool_size": "512M"}}}
	f := cellOf(t, p)
	if f.OK() || !strings.Contains(f.Status, "mariadb-innodb died: the memory cgroup's OOM killer killed it") {
		t.Fatalf("status %q must name the OOM kill", f.Status)
	}
	if !f.Limits.Applied || f.Limits.Evidence["memory.failcnt"] == "" {
		t.Fatalf("the failed cell must keep the cgroup's evidence: %+v", f.Limits)
	}
}
