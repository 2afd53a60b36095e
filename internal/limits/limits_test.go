package limits

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/testenv"
)

func TestMain(m *testing.M) {
	MaybeExec()
	os.Exit(m.Run())
}

func requireCgroups(t *testing.T) {
	t.Helper()
	if err := Check(Request{MemoryBytes: 1 << 30, IOPS: 100, CPUs: "0"}); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true and cgroups cannot be used: %v", err)
		}
		t.Skip(err)
	}
}

func TestCreateWritesLimitsAndRemoveCleansUp(t *testing.T) {
	requireCgroups(t)
	dir := t.TempDir()
	g, err := Create("test-"+strconv.Itoa(os.Getpid()), Request{MemoryBytes: 256 << 20, IOPS: 100, BPS: 20 << 20, CPUs: "0"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	// every file the group says it wrote holds what it wrote, and the
	// limits asked are among them, under v1's or v2's names
	for file, v := range g.Applied {
		got := readValue(filepath.Join(g.at[strings.Split(file, ".")[0]], file))
		if file == "io.max" {
			// the kernel writes io.max's keys back in its own order
			got, v = sortedFields(got), sortedFields(v)
		}
		if got != v {
			t.Errorf("%s holds %q, applied %q", file, got, v)
		}
	}
	wantProcs := 3 // v1: one group per controller (memory, blkio, cpuset)
	if _, err := os.Stat(filepath.Join(Root, "cpuacct", "cgroup.procs")); err == nil {
		wantProcs++ // and one to count the server's CPU in
	}
	switch detect(Root).(type) {
	case v2:
		wantProcs = 1
		if g.Applied["memory.max"] != strconv.Itoa(256<<20) || !strings.Contains(g.Applied["io.max"], "riops=100") ||
			!strings.Contains(g.Applied["io.max"], "wbps="+strconv.Itoa(20<<20)) || g.Applied["cpuset.cpus"] != "0" {
			t.Errorf("applied %v", g.Applied)
		}
	default:
		mem := readValue(filepath.Join(Root, "memory", g.Name, "memory.limit_in_bytes"))
		riops := readValue(filepath.Join(Root, "blkio", g.Name, "blkio.throttle.read_iops_device"))
		wbps := readValue(filepath.Join(Root, "blkio", g.Name, "blkio.throttle.write_bps_device"))
		if mem != strconv.Itoa(256<<20) || !strings.HasSuffix(riops, " 100") || !strings.HasSuffix(wbps, " "+strconv.Itoa(20<<20)) {
			t.Errorf("memory limit %q, read iops %q, write bps %q", mem, riops, wbps)
		}
	}
	if !strings.HasPrefix(g.Name, Prefix) || len(g.ProcsFiles()) != wantProcs {
		t.Errorf("name %s, %d procs files", g.Name, len(g.ProcsFiles()))
	}
	ev := g.Evidence()
	if (ev["memory.limit_in_bytes"] == "" && ev["memory.max"] == "") || ev["cpuset.cpus"] != "0" {
		t.Errorf("evidence %v", ev)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	for _, d := range g.Dirs() {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s left behind", d)
		}
	}
}

func TestWrappedProcessStartsInsideItsGroupAsItsUser(t *testing.T) {
	requireCgroups(t)
	g, err := Create("wrap-"+strconv.Itoa(os.Getpid()), Request{MemoryBytes: 128 << 20}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	cmd := exec.Command("/bin/sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}, Pdeathsig: syscall.SIGKILL}
	if err := g.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		exe, _ := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
		if exe == "/usr/bin/sleep" || exe == "/bin/sleep" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cg, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cgroup")
	// v1 names the controller, v2 has one line "0::/PATH"
	if !strings.Contains(string(cg), "memory:/"+g.Name) && !strings.Contains(string(cg), "0::/"+g.Name+"/") {
		t.Fatalf("server not in its memory cgroup:\n%s", cg)
	}
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if !strings.Contains(string(status), "Uid:\t65534") {
		t.Fatalf("server does not run as its user:\n%s", status)
	}
}

func TestSweepRemovesWhatADeadShootoutLeft(t *testing.T) {
	requireCgroups(t)
	old := StateDir
	StateDir = t.TempDir()
	defer func() { StateDir = old }()
	g, err := Create("sweep-"+strconv.Itoa(os.Getpid()), Request{MemoryBytes: 128 << 20, CPUQuota: 0.5}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	server := exec.Command("/bin/sleep", "30")
	if err := g.Wrap(server); err != nil {
		t.Fatal(err)
	}
	server.Start()
	go server.Wait()
	serverDir := t.TempDir()
	// a "shootout" that has died: a process that already exited
	dead := exec.Command("true")
	dead.Run()
	s := state{Owner: Process{dead.Process.Pid, 1}, Cgroups: g.Dirs(), Servers: []Process{{server.Process.Pid, 0}}, Dirs: []string{serverDir}}
	time.Sleep(200 * time.Millisecond) // let the helper join and exec
	s.Servers[0].Start = startTime(server.Process.Pid)
	b, _ := json.Marshal(s)
	os.WriteFile(filepath.Join(StateDir, "1.json"), b, 0o644)
	// and a live one, whose things must stay
	live := state{Owner: Process{os.Getpid(), startTime(os.Getpid())}, Dirs: []string{t.TempDir()}}
	b, _ = json.Marshal(live)
	os.WriteFile(filepath.Join(StateDir, "2.json"), b, 0o644)

	done := Sweep()
	// the server, each of its cgroups (memory, cpu and, where it is a
	// hierarchy of its own, cpuacct) and its directory
	if want := 2 + len(g.Dirs()); len(done) != want || len(g.Dirs()) < 2 {
		t.Fatalf("sweep did %v, want the server killed, its %d cgroups (%v) and the directory removed", done, len(g.Dirs()), g.Dirs())
	}
	for _, d := range g.Dirs() {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("cgroup %s left", d)
		}
	}
	if _, err := os.Stat(serverDir); err == nil {
		t.Error("server directory left")
	}
	if _, err := os.Stat(live.Dirs[0]); err != nil {
		t.Error("the sweep touched a live shootout's directory")
	}
	if _, err := os.Stat(filepath.Join(StateDir, "2.json")); err != nil {
		t.Error("the sweep removed a live shootout's state")
	}
}

// TestSweepKeepsWhatItCouldNotRemove: a cgroup that will not go (here a
// plain directory that is not empty, as a cgroup with a child would be)
// stays in the ledger with its parent, and a later sweep finishes the job.
func TestSweepKeepsWhatItCouldNotRemove(t *testing.T) {
	old := StateDir
	StateDir = t.TempDir()
	defer func() { StateDir = old }()
	fake := t.TempDir()
	parent := filepath.Join(fake, Prefix+"cell")
	stuck := filepath.Join(parent, Prefix+"stuck")
	gone := filepath.Join(fake, Prefix+"gone")
	for _, d := range []string{stuck, gone} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(stuck, "busy"), nil, 0o644)
	dead := exec.Command("true")
	dead.Run()
	ledger := filepath.Join(StateDir, "1.json")
	b, _ := json.Marshal(state{Owner: Process{dead.Process.Pid, 1}, Cgroups: []string{stuck, parent, gone}})
	os.WriteFile(ledger, b, 0o644)

	done := strings.Join(Sweep(), "\n")
	if !strings.Contains(done, "removed cgroup "+gone) || !strings.Contains(done, "could not remove cgroup "+stuck) {
		t.Fatalf("sweep said:\n%s", done)
	}
	var left state
	b, err := os.ReadFile(ledger)
	if err != nil || json.Unmarshal(b, &left) != nil {
		t.Fatalf("ledger dropped although %s is still there: %v", stuck, err)
	}
	if strings.Join(left.Cgroups, " ") != stuck+" "+parent || left.Owner.PID != dead.Process.Pid {
		t.Fatalf("ledger after a partial sweep: %+v", left)
	}

	os.Remove(filepath.Join(stuck, "busy"))
	done = strings.Join(Sweep(), "\n")
	if !strings.Contains(done, "removed cgroup "+stuck) || !strings.Contains(done, "removed cgroup "+parent) {
		t.Fatalf("second sweep said:\n%s", done)
	}
	if _, err := os.Stat(ledger); err == nil {
		t.Fatal("ledger kept after everything was removed")
	}
}

func TestCheckSaysWhatIsMissing(t *testing.T) {
	if Check(Request{}) != nil {
		t.Fatal("no limits asked must always pass")
	}
	if os.Geteuid() != 0 {
		if err := Check(Request{MemoryBytes: 1 << 30}); err == nil || !strings.Contains(err.Error(), "root") {
			t.Fatalf("non-root: %v", err)
		}
	}
}

func TestCPUQuotaIsWrittenAndCounted(t *testing.T) {
	requireCgroups(t)
	g, err := Create("quota-"+strconv.Itoa(os.Getpid()), Request{CPUQuota: 0.25}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	ev := g.Evidence()
	if _, ok := detect(Root).(v2); ok {
		if q := readValue(filepath.Join(g.at["cpu"], "cpu.max")); q != "25000 100000" || g.Applied["cpu.max"] != q {
			t.Fatalf("cpu.max %q, applied %v", q, g.Applied)
		}
		if ev["cpu.stat.nr_throttled"] == "" || ev["cpu.stat.throttled_usec"] == "" {
			t.Fatalf("evidence %v", ev)
		}
		return
	}
	dir := filepath.Join(Root, "cpu", g.Name)
	if q := readValue(filepath.Join(dir, "cpu.cfs_quota_us")); q != "25000" || readValue(filepath.Join(dir, "cpu.cfs_period_us")) != "100000" {
		t.Fatalf("quota %q", q)
	}
	if g.Applied["cpu.cfs_quota_us"] != "25000" {
		t.Fatalf("applied %v", g.Applied)
	}
	if ev["cpu.stat.nr_throttled"] == "" || ev["cpu.stat.throttled_time"] == "" {
		t.Fatalf("evidence %v", ev)
	}
}

func TestCPUPlans(t *testing.T) {
	n := runtime.NumCPU()
	server, client, split := SplitCPUs()
	rest, _ := ClientCPUs("0")
	cases := []struct {
		in   string
		want CPUPlan
	}{
		{"", CPUPlan{Server: server, Client: client, Default: split}},
		{"all", CPUPlan{}},
		{"0", CPUPlan{Server: "0", Client: rest}},
		{"0.5", CPUPlan{Server: server, Client: client, Quota: 0.5}},
		{strconv.Itoa(n) + ".0", CPUPlan{Quota: float64(n)}},
	}
	if n < 2 {
		cases[3].want = CPUPlan{Quota: 0.5}
	}
	for _, c := range cases {
		got, err := PlanCPUs(c.in)
		if err != nil || got != c.want {
			t.Errorf("PlanCPUs(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"x", "1.5c", ".5", "1.", "0.001", strconv.Itoa(n+1) + ".0", "-0.5", "1,x"} {
		if _, err := PlanCPUs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("%q: error does not name the value: %v", bad, err)
		}
	}
	if s := (CPUPlan{Server: "1", Client: "0", Quota: 0.2}).String(); !strings.Contains(s, "0.2 cores") || !strings.Contains(s, "20000 us per 100000 us") {
		t.Errorf("plan text %q", s)
	}
}

func TestCPULists(t *testing.T) {
	if err := ValidateCPUs("0"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"x", "1-0", "-1", "999"} {
		if ValidateCPUs(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	rest, err := ClientCPUs("0")
	if err != nil || (runtime.NumCPU() > 1 && !strings.HasPrefix(rest, "1")) || strings.Contains(rest, "0,") {
		t.Fatalf("client CPUs beside server 0: %q %v", rest, err)
	}
	if s, c, ok := SplitCPUs(); runtime.NumCPU() >= 2 && (!ok || c != "0" || !strings.HasPrefix(s, "1")) {
		t.Fatalf("split %q/%q %v", s, c, ok)
	}
}

func TestPinSelfAndBack(t *testing.T) {
	requireCgroups(t)
	p, err := PinSelf("pin-"+strconv.Itoa(os.Getpid()), "0")
	if err != nil {
		t.Fatal(err)
	}
	cg, _ := os.ReadFile("/proc/self/cgroup")
	if !strings.Contains(string(cg), "cpuset:/"+Prefix+"pin-") && !strings.Contains(string(cg), "0::/"+Prefix+"pin-") {
		p.Unpin()
		t.Fatalf("not moved: %s", cg)
	}
	if err := p.Unpin(); err != nil {
		t.Fatal(err)
	}
	cg, _ = os.ReadFile("/proc/self/cgroup")
	if strings.Contains(string(cg), Prefix) {
		t.Fatalf("not moved back: %s", cg)
	}
}

// TestNeighbourStoppedAtOnceStillReports: StartNeighbour returns only once
// fio runs its jobs, so a stop right after it (a cell of a moment, or one
// whose run failed at once) gets fio's report rather than a fio ended by
// the SIGINT before it could write one.
func TestNeighbourStoppedAtOnceStillReports(t *testing.T) {
	if err := CheckNeighbour("x2", 0); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for i := 0; i < 3; i++ {
		nb, err := StartNeighbour(context.Background(), "x2", t.TempDir(), 16<<20, 0, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		// the jobs may not have done an IO yet: the report is what counts
		if r, err := nb.Stop(); err != nil {
			t.Fatalf("stop %d right after the start: %+v, %v", i, r, err)
		}
	}
}

func TestWindowCountersAreDifferences(t *testing.T) {
	cases := []struct{ before, after, want string }{
		{"5", "12", "7"},
		{"8:0 Read 10\n8:0 Write 4\nTotal 14", "8:0 Read 15\n8:0 Write 9\nTotal 24", "8:0 Read 5\n8:0 Write 5\nTotal 10"},
		{"8:0 rbytes=100 wbytes=50 rios=3 wios=2", "8:0 rbytes=400 wbytes=90 rios=7 wios=6", "8:0 rbytes=300 wbytes=40 rios=4 wios=4"},
	}
	for _, c := range cases {
		got, err := subtractCounters(c.before, c.after)
		if err != nil || got != c.want {
			t.Errorf("subtract(%q, %q) = %q, %v; want %q", c.before, c.after, got, err, c.want)
		}
	}
	if _, err := subtractCounters("8:0 Read 1", "8:0 Read 1\n8:16 Read 4"); err == nil {
		t.Error("a device that appeared during the window must not be subtracted blindly")
	}
	if !isGauge("memory.stat.rss") || !isGauge("cpuset.cpus") || isGauge("memory.failcnt") || isGauge("cpu.stat.nr_throttled") {
		t.Error("gauges and counters confused")
	}
}

func sortedFields(s string) string {
	f := strings.Fields(s)
	sort.Strings(f)
	return strings.Join(f, " ")
}

// The group's CPU counter counts what its process used, finer than /proc's
// 10-ms ticks: a busy loop of a few milliseconds reads more than 0.
func TestGroupCountsItsServersCPU(t *testing.T) {
	requireCgroups(t)
	g, err := Create("cpu-"+strconv.Itoa(os.Getpid()), Request{MemoryBytes: 128 << 20}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	c := g.CPUCounter()
	if c == nil {
		t.Skip("no CPU counter in this cgroup hierarchy (v1 without cpuacct)")
	}
	before, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done")
	if err := g.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	after, err := c.Read()
	if used := after - before; err != nil || used <= 0 || used%(10*time.Millisecond) == 0 {
		t.Fatalf("%s counted %v (%v) for a short busy loop", c.Source, used, err)
	}
}

// TestChildGroupsEachCapAProcess: a cluster's nodes each get the limits of
// one server in a group of their own nested in the cell's, and removing
// the cell's group removes theirs.
func TestChildGroupsEachCapAProcess(t *testing.T) {
	requireCgroups(t)
	if Version() != 1 {
		t.Skip("nested groups are made under cgroup v1 only")
	}
	node := Request{MemoryBytes: 128 << 20, CPUs: "0"}
	g, err := Create("nodes-"+strconv.Itoa(os.Getpid()), Request{MemoryBytes: 2 * node.MemoryBytes, CPUs: "0"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	var dirs []string
	for _, name := range []string{"n1", "n2"} {
		c, err := g.Child(name, node)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, c.Dirs()...)
		cmd := exec.Command("/bin/sleep", "30")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		want := "memory:/" + g.Name + "/" + Prefix + name + "\n"
		deadline := time.Now().Add(5 * time.Second)
		cg, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cgroup")
		for !strings.Contains(string(cg), want) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			cg, _ = os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cgroup")
		}
		if !strings.Contains(string(cg), want) {
			t.Fatalf("node %s not in its own memory group %s:\n%s", name, want, cg)
		}
		if got := c.Evidence()["memory.limit_in_bytes"]; got != strconv.Itoa(128<<20) {
			t.Errorf("node %s's memory limit %q, want 128M", name, got)
		}
	}
	if got := g.Evidence()["memory.limit_in_bytes"]; got != strconv.Itoa(256<<20) {
		t.Errorf("the cell's group's limit %q, want both nodes' 256M", got)
	}
}

// Cells run side by side in one process share its ledger: each keeps
// its records whatever the other writes, and the file stays until the
// last of them closes (a crash in between leaves it for the sweep).
func TestOneLedgerPerProcess(t *testing.T) {
	old := StateDir
	StateDir = t.TempDir()
	defer func() { StateDir = old }()
	a, b := Open(), Open()
	if a == nil || a != b {
		t.Fatalf("two opens in one process: %p and %p, want one ledger", a, b)
	}
	a.AddDisk("/a")
	b.AddDisk("/b")
	a.Close()
	raw, err := os.ReadFile(filepath.Join(StateDir, strconv.Itoa(os.Getpid())+".json"))
	if err != nil {
		t.Fatalf("after the first close, with the second still open: %v", err)
	}
	var s state
	if err := json.Unmarshal(raw, &s); err != nil || !slices.Equal(s.Disks, []string{"/a", "/b"}) {
		t.Fatalf("the ledger holds %v (%v), want both cells' disks", s.Disks, err)
	}
	b.Close()
	if _, err := os.Stat(filepath.Join(StateDir, strconv.Itoa(os.Getpid())+".json")); err == nil {
		t.Fatal("the last close left the ledger")
	}
	a.Close() // once more: nothing
	if c := Open(); c == a {
		t.Fatal("an open after the last close joined the closed ledger")
	} else {
		c.Close()
	}
}
