package run

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
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

// TestServerKilledMidRunIsNamedAtOnce: SIGKILL to mariadbd 2 s into a
// 20 s cell; the clients stop at once and the cell fails naming the
// signal, as the target reads it from the real process. The runner's
// side (the next cell runs, a stopped server is killed) is
// TestServerDeathMidRunIsNamedAtOnce's, on the fake.
func TestServerKilledMidRunIsNamedAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	requireTargets(t, "mariadb-innodb")
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"2000"},
		Clients: []int{4}, Duration: "20s", Interval: "0s"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sentAt time.Time
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open(), duringRun: func(ctx context.Context, db *sql.DB) {
		time.Sleep(2 * time.Second)
		sentAt = signalServer(ctx, t, db, syscall.SIGKILL)
	}}
	defer r.Ledger.Close()
	dead := r.Cell(context.Background(), res, res.Cells[0])
	if dead.OK() || !strings.Contains(dead.Status, "mariadb-innodb died: was killed by signal 9") {
		t.Fatalf("status %q must name the death and the signal", dead.Status)
	}
	if took := dead.Ended.Sub(sentAt); sentAt.IsZero() || took > 5*time.Second {
		t.Fatalf("the cell ended %v after the kill: the clients must stop at once", took)
	}
}

// TestServerOOMKilledIsNamed: a buffer pool far above the memory cap, on a
// dataset larger than the cap, gets mariadbd killed by the cgroup's OOM
// killer during the load; the cell says so from the cgroup's own counter,
// with the evidence recorded.
func TestServerOOMKilledIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	t.Parallel()
	requireLimits(t)
	// shootout's own sizing fits the cap (SizeMemory): a user's setting
	// that does not is what gets a server killed
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"1500000"},
		Clients: []int{1}, Duration: "2s", Interval: "0s", Memory: "192M", CPUs: "all",
		Settings: map[string]map[string]string{"mariadb-innodb": {"innodb_buffer_pool_size": "1G"}}}
	f := cellOf(t, p)
	if f.OK() || !strings.Contains(f.Status, "mariadb-innodb died: the memory cgroup's OOM killer killed it") {
		t.Fatalf("status %q must name the OOM kill", f.Status)
	}
	if !f.Limits.Applied || f.Limits.Evidence["memory.failcnt"] == "" {
		t.Fatalf("the failed cell must keep the cgroup's evidence: %+v", f.Limits)
	}
}

// TestServerOOMKilledMidRunIsNamed: a query that builds a 2 GB in-memory
// table mid-run under a 256M cap gets the server killed by the OOM killer
// while the clients run; the clients stop at once and the cell names the
// kill, not the lost connections.
func TestServerOOMKilledMidRunIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	t.Parallel()
	requireLimits(t)
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_only"}, Datasets: []string{"10000"},
		Clients: []int{2}, Duration: "30s", Interval: "0s", Memory: "256M", CPUs: "all"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sentAt time.Time
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open(), duringRun: func(ctx context.Context, db *sql.DB) {
		time.Sleep(2 * time.Second)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Errorf("hog connection: %v", err)
			return
		}
		defer conn.Close()
		sentAt = time.Now()
		for _, q := range []string{
			"SET SESSION max_heap_table_size = 4294967296",
			"CREATE TEMPORARY TABLE hog (id INT, pad CHAR(255)) ENGINE=MEMORY",
			"INSERT INTO hog SELECT seq, REPEAT('x', 255) FROM seq_1_to_8000000",
		} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return // the server died under it, as intended
			}
		}
		t.Errorf("the hog finished: 2 GB fitted in a 256M cap?")
	}}
	defer r.Ledger.Close()
	f := r.Cell(context.Background(), res, res.Cells[0])
	if f.OK() || !strings.Contains(f.Status, "mariadb-innodb died: the memory cgroup's OOM killer killed it") {
		t.Fatalf("status %q must name the OOM kill", f.Status)
	}
	if took := f.Ended.Sub(sentAt); sentAt.IsZero() || took > 20*time.Second {
		t.Fatalf("the cell ended %v after the hog began: the clients must stop when the server dies", took)
	}
}

// TestDataDiskFullMidRunIsNamed: the data directory's filesystem (a small
// loop-mounted ext4) fills up mid-run; InnoDB would fail its writes and
// MyISAM would wait for space forever, so within seconds shootout kills
// the server it started and the cell says the disk was full; the next
// cell runs, and nothing is left on the filesystem or holding it.
func TestDataDiskFullMidRunIsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	t.Parallel()
	requireLimits(t)
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v (apt-get install -y e2fsprogs mount)", tool, err)
		}
	}
	base := testenv.WorkDir(t)
	img, mnt := filepath.Join(base, "small.img"), filepath.Join(base, "small")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"truncate", "-s", "400M", img}, {"mkfs.ext4", "-q", "-F", img}, {"mount", "-o", "loop", img, mnt}} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", cmd, err, out)
		}
	}
	mounted := true
	defer func() {
		if mounted {
			exec.Command("umount", "-l", mnt).Run()
		}
	}()
	// beside other tests, the servers on every core (--cpus all: a cell
	// placed on its own CPUs moves the whole test process)
	p := &plan.Plan{Targets: []string{"mariadb-innodb", "mariadb-myisam", "mariadb-aria"}, Workloads: []string{"oltp_insert"},
		Datasets: []string{"10000"}, Clients: []int{2}, Duration: "8s", Interval: "0s", CPUs: "all"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(mnt, "filler")
	var filledAt []time.Time
	r := &Runner{OutDir: filepath.Join(base, "out"), WorkDir: mnt, Log: logWriter(t), Ledger: limits.Open(), duringRun: func(ctx context.Context, db *sql.DB) {
		if len(filledAt) == 2 {
			return // the cell after: let it run
		}
		time.Sleep(2 * time.Second)
		var st syscall.Statfs_t
		if err := syscall.Statfs(mnt, &st); err != nil {
			t.Error(err)
			return
		}
		fh, err := os.Create(filler)
		if err != nil {
			t.Error(err)
			return
		}
		// what root may use, reserved blocks included, minus a little
		// (ext4 keeps some back for metadata; shootout calls a disk with
		// less than 2% free full)
		for _, spare := range []int64{256 << 10, 1 << 20, 4 << 20, 8 << 20} {
			if err = syscall.Fallocate(int(fh.Fd()), 0, 0, int64(st.Bfree)*st.Bsize-spare); err == nil {
				break
			}
		}
		fh.Close()
		if err != nil {
			t.Errorf("fill %s: %v", mnt, err)
		}
		filledAt = append(filledAt, time.Now())
	}}
	defer r.Ledger.Close()
	var files []*result.File
	r.OnCell = func(f *result.File) {
		files = append(files, f)
		os.Remove(filler) // room for the next cell
	}
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || len(filledAt) != 2 {
		t.Fatalf("%d cells, %d fills: the matrix must go on after a full disk", len(files), len(filledAt))
	}
	for i, name := range []string{"mariadb-innodb", "mariadb-myisam"} {
		f := files[i]
		if f.OK() || !strings.Contains(f.Status, name+" died: the filesystem of its data directory") || !strings.Contains(f.Status, "is full") {
			t.Errorf("status %q must say the data directory's disk was full", f.Status)
		}
		if took := f.Ended.Sub(filledAt[i]); took > 10*time.Second {
			t.Errorf("%s: the cell ended %v after the disk filled", name, took)
		}
	}
	if !files[2].OK() {
		t.Errorf("the next cell: %s", files[2].Status)
	}
	left, _ := os.ReadDir(mnt)
	for _, e := range left {
		if e.Name() != "lost+found" {
			t.Errorf("left on the filesystem: %s", e.Name())
		}
	}
	// a server or file still open there would make this fail with EBUSY
	if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
		t.Fatalf("umount %s: %v: %s", mnt, err, out)
	}
	mounted = false
	kept, err := result.ReadDir(r.OutDir)
	if err != nil || len(kept) != 3 {
		t.Fatalf("results written before must stay: %d (%v)", len(kept), err)
	}
}

// TestServerThatStopsAnsweringFailsTheCell: a server that runs but answers
// no client (here the clients wait on a lock held elsewhere, as they can
// wait on a stalled engine) fails the cell once an operation has gone
// unanswered past the stall limit, instead of holding it forever; the cell
// says what the server's threads and sessions were doing and keeps what it
// measured before.
func TestServerThatStopsAnsweringFailsTheCell(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	// one ledger for both (each is this process's file), closed once
	// the parallel subtests have ended
	ledger := limits.Open()
	t.Cleanup(ledger.Close)
	for _, tc := range []struct {
		target          string
		lock            []string
		sessions, other string
	}{
		// MariaDB's writes wait a day (lock_wait_timeout) for this, taken
		// outside a transaction (inside, it waits for the clients' own)
		{"mariadb-innodb", []string{"FLUSH TABLES WITH READ LOCK"}, "Waiting for backup lock", ""},
		// and PostgreSQL's statements for ever (lock_timeout 0); the
		// lock's holder is idle in its transaction
		{"postgres", []string{"BEGIN", "LOCK TABLE sbtest1 IN ACCESS EXCLUSIVE MODE"}, "Lock: relation", "idle in transaction"},
	} {
		// both servers side by side, each on every core (--cpus all: a
		// cell placed on its own CPUs moves the whole test process, which
		// two cells cannot share); the 20-s bound below is seven times
		// the stall limit
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			tg, _ := target.Lookup(tc.target)
			testenv.RequireTarget(t, tg)
			p := &plan.Plan{Targets: []string{tc.target}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"10000"},
				Clients: []int{4}, Duration: "60s", Interval: "0s", CPUs: "all"}
			res, err := p.Resolve(plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var lockedAt time.Time
			r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: ledger, stallLimit: 3 * time.Second,
				duringRun: func(ctx context.Context, db *sql.DB) {
					time.Sleep(time.Second)
					holdLock(ctx, t, db, tc.lock, &lockedAt, nil)
				}}
			f := r.Cell(context.Background(), res, res.Cells[0])
			if f.OK() || !strings.Contains(f.Status, "the server stopped answering: client") {
				t.Fatalf("status %q must say the server stopped answering", f.Status)
			}
			t.Log(f.Status)
			// why, as the kernel and the server see it
			for _, want := range []string{"the server's ", " threads: ", "its sessions: ", tc.sessions, tc.other} {
				if !strings.Contains(f.Status, want) {
					t.Errorf("status %q does not say %q", f.Status, want)
				}
			}
			// a lock wait is no IO: InnoDB's pending writes were asked
			// for, and are not named
			if strings.Contains(f.Status, "could not be read") || strings.Contains(f.Status, "pending") {
				t.Errorf("status %q: the engine's pending IO, asked for, was unreadable or misread", f.Status)
			}
			if lockedAt.IsZero() {
				t.Fatal("the lock was never asked for")
			}
			if took := f.Ended.Sub(lockedAt); took > 20*time.Second {
				t.Fatalf("the cell ended %v after the lock was asked for: the stall limit was 3 s", took)
			}
			if f.Throughput.Events == 0 {
				t.Fatalf("the transactions before the lock are lost: %+v", f.Throughput)
			}
		})
	}
}

// TestServerThatStopsAnsweringDuringTheLoadFailsTheCell: the load has a
// stall watch too; a server whose inserts wait on a lock held elsewhere
// fails the cell soon after the limit, saying what it was doing.
func TestServerThatStopsAnsweringDuringTheLoadFailsTheCell(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	p := &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000000"},
		Clients: []int{1}, Duration: "1s", Interval: "0s"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var lockedAt time.Time
	r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open(), loadStallLimit: 3 * time.Second,
		duringLoad: func(ctx context.Context, db *sql.DB) {
			// the loader waits between two batches while the lock is
			// taken, so it is granted at once; the 3-s limit counts
			// from here, not from a batch slowed by a busy machine
			locked := make(chan struct{})
			go func() {
				defer close(locked)
				holdLock(ctx, t, db, []string{"FLUSH TABLES WITH READ LOCK"}, &lockedAt, locked)
			}()
			<-locked
		}}
	defer r.Ledger.Close()
	f := r.Cell(context.Background(), res, res.Cells[0])
	t.Log(f.Status)
	for _, want := range []string{"load dataset 1000000: the server stopped answering during the load: no rows landed for",
		"the server's ", "its sessions: ", "Waiting for backup lock"} {
		if !strings.Contains(f.Status, want) {
			t.Errorf("status %q does not say %q", f.Status, want)
		}
	}
	if lockedAt.IsZero() {
		t.Fatal("the lock was never taken")
	}
	if took := f.Ended.Sub(lockedAt); took > 20*time.Second {
		t.Fatalf("the cell ended %v after the lock: the load's stall limit was 3 s", took)
	}
}

// TestServerThatStopsAnsweringAfterTheLoadFailsTheCell: the steps that
// follow the load report no progress, so each is bounded as a whole; a
// server that never answers one fails the cell, saying what it was
// doing. The index build waits behind MariaDB's FLUSH TABLES WITH READ
// LOCK. The bound of the settling is
// TestServerThatStopsAnsweringInTheLoadOrTheSettlingFailsTheCell's, on the
// fake; PostgreSQL's sessions, the lock's holder idle in its transaction
// among them, are TestServerThatStopsAnsweringFailsTheCell's.
func TestServerThatStopsAnsweringAfterTheLoadFailsTheCell(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, tc := range []struct {
		target, step string
		lock         []string
		want         []string
	}{
		{"mariadb-innodb", "postload", []string{"FLUSH TABLES WITH READ LOCK"},
			[]string{"build indexes after load: the server stopped answering after the load: ", `"CREATE INDEX k_1`, "Waiting for backup lock"}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			tg, _ := target.Lookup(tc.target)
			testenv.RequireTarget(t, tg)
			p := &plan.Plan{Targets: []string{tc.target}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"20000"},
				Clients: []int{1}, Duration: "1s", Interval: "0s"}
			res, err := p.Resolve(plan.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var lockedAt time.Time
			r := &Runner{OutDir: testenv.WorkDir(t), Log: logWriter(t), Ledger: limits.Open(), stepLimitLeast: 3 * time.Second,
				beforeStep: func(ctx context.Context, step string, db *sql.DB) {
					if step != tc.step {
						return
					}
					// held until the server stops: the step waits behind it
					conn, err := db.Conn(ctx)
					if err != nil {
						t.Errorf("a connection to lock with: %v", err)
						return
					}
					t.Cleanup(func() { conn.Close() })
					for _, stmt := range tc.lock {
						if _, err := conn.ExecContext(ctx, stmt); err != nil {
							t.Errorf("%s: %v", stmt, err)
							return
						}
					}
					lockedAt = time.Now()
				}}
			defer r.Ledger.Close()
			f := r.Cell(context.Background(), res, res.Cells[0])
			t.Log(f.Status)
			if lockedAt.IsZero() {
				t.Fatal("the lock was never taken")
			}
			for _, want := range append(tc.want, "the server's ", "its sessions: ") {
				if !strings.Contains(f.Status, want) {
					t.Errorf("status %q does not say %q", f.Status, want)
				}
			}
			if took := f.Ended.Sub(lockedAt); took > 20*time.Second {
				t.Fatalf("the cell ended %v after the lock: the step's bound was 3 s", took)
			}
		})
	}
}

// holdLock runs stmts on a connection of its own, notes when the last
// (the lock) was asked for, says on locked when it was taken, and holds
// what they took until ctx ends. The clients wait from the request on:
// FLUSH TABLES WITH READ LOCK blocks writes while it waits for the
// statements running to end, which under load alone outlasted the 3-s
// stall limit (a CI run: the cell given up, rightly, before the lock
// returned), so the lock's time is its request's.
func holdLock(ctx context.Context, t *testing.T, db *sql.DB, stmts []string, lockedAt *time.Time, locked chan<- struct{}) {
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Errorf("a connection to lock with: %v", err)
		return
	}
	defer conn.Close()
	for i, stmt := range stmts {
		last := i == len(stmts)-1
		if last {
			*lockedAt = time.Now()
		}
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			if last && ctx.Err() != nil {
				return // the run was given up while the lock waited: the stall it made
			}
			t.Errorf("%s: %v", stmt, err)
			return
		}
	}
	if locked != nil {
		locked <- struct{}{}
	}
	<-ctx.Done()
}

// signalServer sends sig to the mariadbd behind db, found by its own pid
// file, and says when; the zero time when it could not.
func signalServer(ctx context.Context, t *testing.T, db *sql.DB, sig syscall.Signal) time.Time {
	var pidFile string
	if err := db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&pidFile); err != nil {
		t.Errorf("pid file: %v", err)
		return time.Time{}
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("read %s: %v", pidFile, err)
		return time.Time{}
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	at := time.Now()
	syscall.Kill(pid, sig)
	return at
}
