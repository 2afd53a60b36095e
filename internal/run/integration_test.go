package run

import (
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/plan"
	"shootout/internal/target"
	"shootout/internal/testenv"
	_ "shootout/internal/workload/all"
)

var oltpTests = []string{"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select",
	"oltp_insert", "oltp_update_index", "oltp_update_non_index", "oltp_delete"}

func writes(workload string) bool {
	return workload != "oltp_read_only" && workload != "oltp_point_select"
}

func logWriter(t *testing.T) io.Writer {
	if testing.Verbose() {
		return os.Stderr
	}
	return io.Discard
}

// TestEveryOLTPTestOnEveryServer runs each sysbench test for a moment on a
// real private server of each kind and asserts that transactions committed
// and the table is consistent afterwards (row count and SUM(k) exactly as
// the committed work predicts, the k index agreeing with the table).
func TestEveryOLTPTestOnEveryServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, name := range []string{"sqlite", "mariadb-innodb", "mariadb-rocksdb", "postgres"} {
		name := name
		t.Run(name, func(t *testing.T) {
			// the targets side by side, each in a process of its own (the
			// cells wait on their servers' starts, flushes and write-backs
			// more than they use the CPU); what is asserted of a cell is
			// its own server's and cgroup's, which a neighbour does not change
			t.Parallel()
			requireTargets(t, name)
			p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: oltpTests, Datasets: []string{"5000"},
				Clients: []int{4}, Duration: "1s", Interval: "0s"}
			files, out := runPlanApart(t, p, len(oltpTests))
			for _, f := range files {
				if !f.OK() {
					t.Errorf("%s: %s", f.Cell.Workload, f.Status)
				}
			}
			if t.Failed() {
				t.FailNow()
			}
			for _, f := range files {
				w := f.Cell.Workload
				if f.Throughput.Events == 0 {
					t.Errorf("%s: no transaction committed", w)
				}
				if !f.Invariants.OK || len(f.Invariants.Checked) == 0 {
					t.Errorf("%s: invariants %+v", w, f.Invariants)
				}
				if f.Target.Version == "" || len(f.Target.Settings) == 0 {
					t.Errorf("%s: server version/settings not recorded", w)
				}
				if f.Ops["event"].Count == 0 {
					t.Errorf("%s: no trimmed latency", w)
				}
				if f.Load.Rows != 5000 || f.Load.Seconds <= 0 {
					t.Errorf("%s: load %+v", w, f.Load)
				}
				wantReads := w == "oltp_read_write" || w == "oltp_read_only" || w == "oltp_point_select"
				if (f.Throughput.Reads > 0) != wantReads {
					t.Errorf("%s: %d reads", w, f.Throughput.Reads)
				}
				if name != "sqlite" && (!f.Server.Measured || f.Server.CPUSeconds == nil || *f.Server.CPUSeconds <= 0) {
					t.Errorf("%s: server CPU not measured: %+v", w, f.Server)
				}
				// a server thread waits for each statement of each client:
				// at least one switch per transaction, in whichever thread
				if name != "sqlite" && f.Server.ContextSwitchesPerOp < 1 {
					t.Errorf("%s: %.2f context switches per transaction", w, f.Server.ContextSwitchesPerOp)
				}
				if name != "sqlite" && runtime.NumCPU() >= 2 && limits.Check(limits.Request{CPUs: "0"}) == nil {
					if f.Limits.Settings["cpuset.cpus"] == "" {
						t.Errorf("%s: server not placed on its own CPUs: %+v", w, f.Limits)
					}
				}
				if f.Space.Bytes <= 0 {
					t.Errorf("%s: space not measured", w)
				}
				if _, err := metrics.DeviceOf(out); err == nil && (!strings.HasPrefix(f.Server.BytesSource, "device ") || f.Server.ProcessWriteBytes < 0) {
					t.Errorf("%s: bytes not from the data directory's device: %q", w, f.Server.BytesSource)
				}
				// the servers' own log counters: every committed row change is
				// logged (a delete's tombstone is the smallest record, more
				// than 8 bytes), reads log nearly nothing (MyRocks' background
				// work adds a byte or so per op)
				rowsChanged := float64(f.Counters["logical_bytes"] / 188)
				if ew := f.Server.EngineWrites; (ew != nil) != (name != "sqlite") ||
					ew != nil && (writes(w) && ew.LogBytesPerOp*float64(f.Throughput.Events) < 8*rowsChanged || !writes(w) && ew.LogBytesPerOp > 10) {
					t.Errorf("%s: engine writes %+v", w, ew)
				}
				// every committed row change counts one 188-byte sbtest row
				logical := f.Counters["logical_bytes"]
				if writes(w) != (logical > 0) || logical%188 != 0 {
					t.Errorf("%s: logical_bytes %d", w, logical)
				}
				if wa := f.Server.WriteAmplification; (wa != nil) != (writes(w) && f.Server.Measured) || wa != nil && *wa != float64(f.Server.WriteBytes)/float64(logical) {
					t.Errorf("%s: write amplification %v for %d bytes written, %d logical", w, wa, f.Server.WriteBytes, logical)
				}
			}
			// the servers' directories are gone after the run
			left, _ := os.ReadDir(out + "/work")
			if len(left) != 0 {
				t.Errorf("server directories left behind: %v", left)
			}
		})
	}
}

// TestBrokenInvariantFailsTheCell makes the table disagree with the
// committed work and asserts the cell is reported failed with the reason.
func TestBrokenInvariantFailsTheCell(t *testing.T) {
	tg, _ := target.Lookup("sqlite")
	testenv.RequireTarget(t, tg)
	out := testenv.WorkDir(t)
	p := &plan.Plan{Targets: []string{"sqlite"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"1000"},
		Clients: []int{1}, Duration: "300ms", Interval: "0s", Params: map[string]string{"tables": "1"}}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{OutDir: out, Log: logWriter(t)}
	f := r.Cell(context.Background(), res, res.Cells[0])
	if !f.OK() {
		t.Fatalf("clean run failed: %s", f.Status)
	}
	// A point-select run must leave the table unchanged; a run whose
	// "before" state is off by one row must be caught.
	inv := checkWithBefore(t, res, out)
	if inv.OK || !strings.Contains(strings.Join(inv.Failures, " "), "row count") {
		t.Fatalf("a row-count mismatch was not caught: %+v", inv)
	}
}

// TestFailedStartIsNamedOnOneLine: MariaDB refuses a setting it does not
// have; the cell's status names the setting, on one line. That the matrix
// goes on after a failed cell is TestFailuresAreRecordedWithWhyAndTheMatrixGoesOn's.
func TestFailedStartIsNamedOnOneLine(t *testing.T) {
	requireTargets(t, "mariadb-innodb")
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"1000"},
		Clients: []int{1}, Duration: "200ms", Interval: "0s",
		Settings: map[string]map[string]string{"mariadb-innodb": {"no_such_server_variable": "1"}}}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t)}
	f := r.Cell(context.Background(), res, res.Cells[0])
	if st := f.Status; f.OK() || !strings.Contains(st, "no-such-server-variable") || strings.Contains(st, "\n") {
		t.Fatalf("status should name the bad setting on one line: %q", st)
	}
}
