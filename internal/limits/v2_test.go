package limits

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeV2 is a cgroup2 root in a temp directory whose root offers and
// delegates the given controllers, and whose new groups show the interface
// files a kernel would, empty.
func fakeV2(t *testing.T, offered, delegated string) v2 {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, "cgroup.controllers"), offered+"\n")
	write(t, filepath.Join(root, "cgroup.subtree_control"), delegated+"\n")
	return v2{root: root, populate: func(dir string) {
		for _, f := range []string{"cgroup.procs", "cgroup.subtree_control", "memory.max", "memory.swap.max", "memory.peak",
			"memory.events", "memory.stat", "io.max", "io.stat", "cpu.max", "cpu.stat", "cpuset.cpus", "cpuset.cpus.effective"} {
			write(t, filepath.Join(dir, f), "")
		}
	}}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestV2WritesEachLimitWhereItBelongs(t *testing.T) {
	h := fakeV2(t, "cpuset cpu io memory hugetlb pids", "cpuset cpu io memory pids")
	r := Request{MemoryBytes: 256 << 20, IOPS: 100, BPS: 20 << 20, CPUs: "1", CPUQuota: 0.5}
	if err := h.check(r); err != nil {
		t.Fatal(err)
	}
	g, err := create(h, "cell", r, "8:0")
	if err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(h.root, "shootout-cell")
	main := filepath.Join(top, "shootout-main")
	nb := filepath.Join(top, "shootout-neighbour")
	want := map[string]string{
		// the parent hands the controllers to its leaves and holds the
		// disk cap the server and a neighbour share
		filepath.Join(top, "cgroup.subtree_control"):  "+memory +io +cpuset +cpu",
		filepath.Join(top, "io.max"):                  "8:0 riops=100 wiops=100 rbps=20971520 wbps=20971520",
		filepath.Join(top, "memory.max"):              "",
		filepath.Join(top, "cpu.max"):                 "",
		filepath.Join(main, "memory.max"):             "268435456",
		filepath.Join(main, "memory.swap.max"):        "0",
		filepath.Join(main, "cpuset.cpus"):            "1",
		filepath.Join(main, "cpu.max"):                "50000 100000",
		filepath.Join(main, "io.max"):                 "",
		filepath.Join(main, "cgroup.subtree_control"): "",
		filepath.Join(nb, "memory.max"):               "",
		filepath.Join(nb, "cpu.max"):                  "",
	}
	for path, v := range want {
		if got := readValue(path); got != v {
			t.Errorf("%s = %q, want %q", strings.TrimPrefix(path, h.root), got, v)
		}
	}
	if !reflect.DeepEqual(g.ProcsFiles(), []string{filepath.Join(main, "cgroup.procs")}) {
		t.Errorf("the server joins %v", g.ProcsFiles())
	}
	if !reflect.DeepEqual(g.shared, []string{filepath.Join(nb, "cgroup.procs")}) {
		t.Errorf("a neighbour joins %v", g.shared)
	}
	if !reflect.DeepEqual(g.Dirs(), []string{nb, main, top}) {
		t.Errorf("removal order %v", g.Dirs())
	}
	applied := map[string]string{"io.max": "8:0 riops=100 wiops=100 rbps=20971520 wbps=20971520", "memory.max": "268435456",
		"memory.swap.max": "0", "cpuset.cpus": "1", "cpu.max": "50000 100000"}
	if !reflect.DeepEqual(g.Applied, applied) {
		t.Errorf("applied %v", g.Applied)
	}

	// what the kernel would have counted by the end of a cell
	write(t, filepath.Join(main, "memory.max"), "268435456\n")
	write(t, filepath.Join(main, "memory.peak"), "201326592\n")
	write(t, filepath.Join(main, "memory.events"), "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\noom_group_kill 0\n")
	write(t, filepath.Join(main, "memory.stat"), "anon 1000\nfile 2000\nkernel 30\nfile_dirty 4\n")
	write(t, filepath.Join(top, "io.stat"), "8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n8:16 rbytes=0 wbytes=0 rios=30 wios=40 dbytes=0 dios=0\n")
	write(t, filepath.Join(main, "cpu.stat"), "usage_usec 900\nuser_usec 600\nsystem_usec 300\nnr_periods 10\nnr_throttled 4\nthrottled_usec 2500\n")
	write(t, filepath.Join(main, "cpuset.cpus.effective"), "1\n")
	ev := g.Evidence()
	wantEv := map[string]string{
		"memory.max": "268435456", "memory.peak": "201326592",
		"memory.events.max": "7", "memory.events.oom": "1", "memory.events.oom_kill": "1",
		"memory.stat.anon": "1000", "memory.stat.file": "2000",
		"io.stat":     "8:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n8:16 rbytes=0 wbytes=0 rios=30 wios=40 dbytes=0 dios=0",
		"cpuset.cpus": "1", "cpuset.cpus.effective": "1",
		"cpu.max": "50000 100000", "cpu.stat.usage_usec": "900", "cpu.stat.nr_periods": "10", "cpu.stat.nr_throttled": "4", "cpu.stat.throttled_usec": "2500",
	}
	if !reflect.DeepEqual(ev, wantEv) {
		t.Errorf("evidence\n got %v\nwant %v", ev, wantEv)
	}
	if n := g.IOServiced(); n != 73 {
		t.Errorf("IOs serviced %d, want 1+2+30+40", n)
	}
}

// TestV2EnablesOnlyWhatIsAsked: a quota alone needs the cpu controller
// only, and no neighbour leaf; a swapless kernel has no memory.swap.max.
func TestV2EnablesOnlyWhatIsAsked(t *testing.T) {
	h := fakeV2(t, "cpu memory", "cpu memory")
	g, err := create(h, "q", Request{CPUQuota: 0.2}, "")
	if err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(h.root, "shootout-q")
	if got := readValue(filepath.Join(top, "cgroup.subtree_control")); got != "+cpu" {
		t.Errorf("subtree_control %q", got)
	}
	if got := readValue(filepath.Join(top, "shootout-main", "cpu.max")); got != "20000 100000" {
		t.Errorf("cpu.max %q", got)
	}
	if len(g.Dirs()) != 2 || g.shared != nil || g.IOServiced() != 0 {
		t.Errorf("dirs %v, shared %v", g.Dirs(), g.shared)
	}
	for k := range g.Evidence() {
		if !strings.HasPrefix(k, "cpu.") {
			t.Errorf("evidence %s for a controller not asked for", k)
		}
	}

	h.populate = func(dir string) { write(t, filepath.Join(dir, "cgroup.procs"), "") }
	g, err = create(h, "m", Request{MemoryBytes: 128 << 20}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Applied["memory.swap.max"]; ok || g.Applied["memory.max"] != "134217728" {
		t.Errorf("applied without swap accounting: %v", g.Applied)
	}
}

func TestV2RefusesWhatTheRootDoesNotGive(t *testing.T) {
	root := fakeV2(t, "cpuset cpu io memory pids", "cpu pids").root
	cases := []struct {
		offered, delegated string
		r                  Request
		want               string
	}{
		{"cpuset cpu io memory pids", "cpu pids", Request{MemoryBytes: 1 << 30, IOPS: 100, CPUQuota: 0.5},
			"does not delegate memory, io to the groups under it (its cgroup.subtree_control has \"cpu pids\"); enable with: echo '+memory +io' > " + root + "/cgroup.subtree_control, or use --allow-unlimited"},
		{"cpu io pids", "cpu io", Request{MemoryBytes: 1 << 30, CPUs: "0"},
			"does not offer memory, cpuset (its cgroup.controllers lists \"cpu io pids\"): the kernel lacks it or a cgroup v1 hierarchy holds it"},
		{"hugetlb", "", Request{BPS: 1 << 20}, "does not offer io"},
	}
	for _, c := range cases {
		write(t, filepath.Join(root, "cgroup.controllers"), c.offered+"\n")
		write(t, filepath.Join(root, "cgroup.subtree_control"), c.delegated+"\n")
		err := v2{root: root}.check(c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("offered %q, delegated %q: %v\nwant one line containing %q", c.offered, c.delegated, err, c.want)
		}
	}
	write(t, filepath.Join(root, "cgroup.controllers"), "cpu io\n")
	write(t, filepath.Join(root, "cgroup.subtree_control"), "cpu\n")
	if err := (v2{root: root}).check(Request{CPUQuota: 0.5}); err != nil {
		t.Errorf("cpu is offered and delegated: %v", err)
	}
}

func TestDetectAndHome(t *testing.T) {
	root := t.TempDir()
	if detect(root) != nil {
		t.Fatal("an empty directory is no cgroupfs")
	}
	os.Mkdir(filepath.Join(root, "cpuset"), 0o755)
	write(t, filepath.Join(root, "cpuset", "cgroup.procs"), "")
	if h := detect(root); h == nil || h.version() != 1 {
		t.Fatalf("v1 tree seen as %v", h)
	}
	write(t, filepath.Join(root, "cgroup.controllers"), "memory\n")
	if h := detect(root); h == nil || h.version() != 2 {
		t.Fatalf("v2 root seen as %v", h)
	}
	self := "9:name=systemd:/\n4:memory:/a\n3:cpuset,cpu:/b/c\n0::/user.slice/x.scope\n"
	if got := (v1{"/r"}).cpusetHome(self); got != "/r/cpuset/b/c/cgroup.procs" {
		t.Errorf("v1 home %s", got)
	}
	if got := (v2{root: "/r"}).cpusetHome(self); got != "/r/user.slice/x.scope/cgroup.procs" {
		t.Errorf("v2 home %s", got)
	}
}

// cgroup2Mount is where this kernel's unified hierarchy is mounted, "" if
// nowhere.
func cgroup2Mount() string {
	b, _ := os.ReadFile("/proc/self/mounts")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == "cgroup2" {
			return f[1]
		}
	}
	return ""
}

// TestV2OnThisKernel uses the real cgroup2 mount, whatever it offers: on
// a hybrid machine, where v1 holds every controller shootout uses, that is
// the refusal, and a group the server joins and leaves with Remove; where
// v2 delegates controllers, their limits are read back from the kernel.
func TestV2OnThisKernel(t *testing.T) {
	mnt := cgroup2Mount()
	if mnt == "" || os.Geteuid() != 0 {
		t.Skip("needs root and a cgroup2 mount")
	}
	h := v2{root: mnt}
	offered := readValue(filepath.Join(mnt, "cgroup.controllers"))
	var r Request
	for _, c := range []struct {
		name string
		r    Request
	}{{"memory", Request{MemoryBytes: 256 << 20}}, {"cpu", Request{CPUQuota: 0.5}}, {"cpuset", Request{CPUs: "0"}}} {
		err := h.check(c.r)
		switch {
		case !hasWord(offered, c.name):
			if err == nil || !strings.Contains(err.Error(), "does not offer "+c.name) {
				t.Errorf("%s is not offered at %s, yet check says %v", c.name, mnt, err)
			}
		case err == nil:
			r.MemoryBytes += c.r.MemoryBytes
			r.CPUQuota += c.r.CPUQuota
			r.CPUs += c.r.CPUs
		}
	}
	g, err := create(h, "v2test-"+strconv.Itoa(os.Getpid()), r, "")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	for file, v := range g.Applied {
		if got := readValue(filepath.Join(g.at[strings.Split(file, ".")[0]], file)); got != v {
			t.Errorf("kernel shows %s = %q, shootout wrote %q", file, got, v)
		}
	}
	t.Logf("cgroup2 at %s offers %q; limits applied through it here: %v", mnt, offered, g.Applied)
	server := exec.Command("/bin/sleep", "30")
	if err := g.Wrap(server); err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	go server.Wait()
	in := "0::/" + g.Name + "/" + Prefix + "main"
	deadline := time.Now().Add(5 * time.Second)
	var cg []byte
	for time.Now().Before(deadline) {
		cg, _ = os.ReadFile("/proc/" + strconv.Itoa(server.Process.Pid) + "/cgroup")
		if strings.Contains(string(cg), in+"\n") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(string(cg), in+"\n") {
		t.Fatalf("server not in %s:\n%s", in, cg)
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

// A cell loads its data before the disk cap and lifts it after the run:
// io.max is empty at first, holds the caps during the run, "max" after.
func TestV2DiskCapsAppliedAfterTheLoadAndLifted(t *testing.T) {
	h := fakeV2(t, "io memory", "io memory")
	g, err := create(h, "io", Request{IOPS: 100, BPS: 1 << 20, DeferIO: true}, "8:0")
	if err != nil {
		t.Fatal(err)
	}
	ioMax := filepath.Join(h.root, "shootout-io", "io.max")
	read := func() string { b, _ := os.ReadFile(ioMax); return string(b) }
	if read() != "" {
		t.Fatalf("io.max written before ApplyIO: %q", read())
	}
	if err := g.ApplyIO(); err != nil || read() != "8:0 riops=100 wiops=100 rbps=1048576 wbps=1048576" {
		t.Fatalf("ApplyIO: %v, io.max %q", err, read())
	}
	if err := g.LiftIO(); err != nil || read() != "8:0 riops=max wiops=max rbps=max wbps=max" {
		t.Fatalf("LiftIO: %v, io.max %q", err, read())
	}
	if g.Applied["io.max"] != "8:0 riops=100 wiops=100 rbps=1048576 wbps=1048576" {
		t.Errorf("Applied should keep what the run had: %v", g.Applied)
	}
}

// The server's CPU comes from its group's own counter where there is one:
// v2's cpu.stat usage_usec (present with or without the cpu controller),
// v1's cpuacct.usage in a cpuacct group made beside the others, or shared
// with the cpu group where the two are mounted together.
func TestGroupsCountTheirCPU(t *testing.T) {
	h := fakeV2(t, "memory", "memory")
	g, err := create(h, "c", Request{MemoryBytes: 128 << 20}, "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(h.root, "shootout-c", "shootout-main", "cpu.stat"), "usage_usec 1234\nuser_usec 1000\n")
	if got, err := g.CPUCounter().Read(); err != nil || got != 1234*time.Microsecond {
		t.Errorf("v2: %v, %v", got, err)
	}

	root := t.TempDir()
	for _, c := range []string{"memory", "cpuacct"} {
		write(t, filepath.Join(mkdirAll(t, filepath.Join(root, c)), "cgroup.procs"), "")
	}
	g, err = create(v1{root}, "c", Request{MemoryBytes: 128 << 20}, "")
	if err != nil {
		t.Fatal(err)
	}
	acct := filepath.Join(root, "cpuacct", "shootout-c")
	if !slices.Contains(g.ProcsFiles(), filepath.Join(acct, "cgroup.procs")) || !slices.Contains(g.Dirs(), acct) {
		t.Fatalf("v1: the server does not join a cpuacct group: %v", g.ProcsFiles())
	}
	// shootout's own cpuset group stays out of cpuacct: Unpin moves it
	// back in the cpuset hierarchy only, and Remove would then kill it
	write(t, filepath.Join(mkdirAll(t, filepath.Join(root, "cpuset")), "cgroup.procs"), "")
	if p, err := create(v1{root}, "self", Request{CPUs: "0", pinSelf: true}, ""); err != nil || len(p.ProcsFiles()) != 1 {
		t.Errorf("a group shootout pins itself in joins %v (%v)", p.ProcsFiles(), err)
	}
	write(t, filepath.Join(acct, "cpuacct.usage"), "7000123\n")
	if got, err := g.CPUCounter().Read(); err != nil || got != 7000123 {
		t.Errorf("v1: %v, %v", got, err)
	}

	// cpu,cpuacct mounted together, reached by both names
	root = t.TempDir()
	write(t, filepath.Join(mkdirAll(t, filepath.Join(root, "cpu,cpuacct")), "cgroup.procs"), "")
	for _, c := range []string{"cpu", "cpuacct"} {
		if err := os.Symlink("cpu,cpuacct", filepath.Join(root, c)); err != nil {
			t.Fatal(err)
		}
	}
	g, err = create(v1{root}, "q", Request{CPUQuota: 0.5}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.ProcsFiles()) != 1 || g.at["cpuacct"] != g.at["cpu"] {
		t.Errorf("v1 with cpu,cpuacct: procs %v, cpuacct at %q", g.ProcsFiles(), g.at["cpuacct"])
	}
	if (&Group{h: v1{root}, at: map[string]string{}}).CPUCounter() != nil {
		t.Error("a v1 group without cpuacct has a counter")
	}
}

func mkdirAll(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
