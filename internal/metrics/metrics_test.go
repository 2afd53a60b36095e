package metrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestReadTreeCountsChildren(t *testing.T) {
	// a child that burns CPU: its time must show in the tree of this process
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	time.Sleep(1500 * time.Millisecond)
	self := ReadTree([]int{os.Getpid()})
	child := ReadTree([]int{cmd.Process.Pid})
	if child.Processes < 1 || self.Processes < child.Processes+1 {
		t.Fatalf("tree of self has %d processes, child %d", self.Processes, child.Processes)
	}
	if child.CPUSeconds <= 0 || self.CPUSeconds < child.CPUSeconds {
		t.Fatalf("cpu self %.2f child %.2f", self.CPUSeconds, child.CPUSeconds)
	}
	if child.RSSBytes <= 0 {
		t.Fatal("no RSS")
	}
	if self.CtxSwitches <= 0 {
		t.Fatal("no context switches counted")
	}
}

// TestContextSwitchesOfEveryThread: a thread other than the main one
// sleeps 200 times, so the process's count must grow by at least 200
// (the main thread's /proc/PID/status alone would not see them).
func TestContextSwitchesOfEveryThread(t *testing.T) {
	before := ReadTree([]int{os.Getpid()}).CtxSwitches
	sleep200 := func() int {
		for i := 0; i < 200; i++ {
			time.Sleep(time.Millisecond)
		}
		return syscall.Gettid()
	}
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if syscall.Gettid() != os.Getpid() {
			done <- sleep200()
			return
		}
		// on the main thread, held here: the next goroutine runs elsewhere
		inner := make(chan int)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			inner <- sleep200()
		}()
		done <- <-inner
	}()
	tid := <-done
	if got := ReadTree([]int{os.Getpid()}).CtxSwitches - before; got < 200 {
		t.Fatalf("%d context switches counted while thread %d slept 200 times", got, tid)
	}
}

func TestDirBytesIsAllocatedSpace(t *testing.T) {
	dir := t.TempDir()
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(i)
	}
	os.WriteFile(filepath.Join(dir, "a"), b, 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b"), b, 0o644)
	if got := DirBytes(dir); got < 2<<20 || got > 3<<20 {
		t.Fatalf("DirBytes = %d, want about 2 MiB", got)
	}
	if DirBytes("") != 0 {
		t.Fatal("empty dir name")
	}

	// a sparse file counts what it holds; space reserved past a file's
	// end (RocksDB's WAL) does not count
	other := t.TempDir()
	sparse, err := os.Create(filepath.Join(other, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	sparse.WriteAt(b[:4096], 64<<20)
	sparse.Close()
	reserved, err := os.Create(filepath.Join(other, "wal"))
	if err != nil {
		t.Fatal(err)
	}
	reserved.Write(b[:100])
	if err := syscall.Fallocate(int(reserved.Fd()), 1 /* FALLOC_FL_KEEP_SIZE */, 0, 8<<20); err != nil {
		reserved.Close()
		t.Skipf("this file system cannot reserve space: %v", err)
	}
	reserved.Close()
	var st syscall.Stat_t
	syscall.Stat(filepath.Join(other, "wal"), &st)
	if st.Blocks*512 < 8<<20 {
		t.Fatalf("fallocate reserved %d bytes, want 8 MiB: the test proves nothing", st.Blocks*512)
	}
	if got := DirBytes(other); got < 8<<10 || got > 64<<10 {
		t.Fatalf("DirBytes = %d, want a few KiB: the sparse file's one block and the WAL's 100 bytes, not its 8-MiB reservation", got)
	}
}

func TestSamplerReportsDeltas(t *testing.T) {
	s := Start([]int{os.Getpid()}, 50*time.Millisecond)
	end := time.Now().Add(300 * time.Millisecond)
	x := 0
	for time.Now().Before(end) {
		x++
	}
	r := s.Stop()
	if !r.Measured || r.ServerCPUSeconds <= 0 || r.ClientCPUSeconds <= 0 || r.PeakRSSBytes <= 0 {
		t.Fatalf("%+v (x=%d)", r, x)
	}
	if MemAvailable() <= 0 || MemTotal() < MemAvailable() {
		t.Fatal("meminfo")
	}
}

// TestEmbeddedServerCPULeavesChildrenOut: for embedded SQLite the server
// is shootout itself, and a fio neighbour is its child; the child's CPU is
// not the engine's.
func TestEmbeddedServerCPULeavesChildrenOut(t *testing.T) {
	s := Start([]int{os.Getpid()}, 100*time.Millisecond)
	child := exec.Command("sh", "-c", "end=$(($(date +%s)+2)); while [ $(date +%s) -lt $end ]; do :; done")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	tree := ReadTree([]int{os.Getpid()})
	r := s.Stop()
	child.Wait()
	if r.ServerCPUSeconds > 0.5 {
		t.Fatalf("embedded server CPU %.2f s includes a busy child's", r.ServerCPUSeconds)
	}
	if tree.Processes < 2 {
		t.Fatalf("the process tree should hold the child: %d processes", tree.Processes)
	}
}

// A window shorter than /proc's tick reads 0 CPU there: the cgroup's
// counter is taken where there is one, and a reading whose unit is as long
// as the window is marked unresolved rather than given as a figure.
func TestServerCPUComesFromTheFinestCounter(t *testing.T) {
	var reads []time.Duration
	fake := &CPUCounter{Source: "cpuacct.usage", Resolution: time.Nanosecond, Read: func() (time.Duration, error) {
		reads = append(reads, time.Duration(len(reads)+1)*3*time.Millisecond)
		return reads[len(reads)-1], nil
	}}
	r := StartWith([]int{os.Getpid()}, time.Hour, Counters{Server: fake}).Stop()
	if r.ServerCPUSeconds != 0.003 || r.ServerCPUSource != "cpuacct.usage" || !r.ServerCPUResolved {
		t.Errorf("with a cgroup counter: %v s from %q, resolved %v", r.ServerCPUSeconds, r.ServerCPUSource, r.ServerCPUResolved)
	}
	broken := &CPUCounter{Source: "cpu.stat", Resolution: time.Microsecond, Read: func() (time.Duration, error) {
		return 0, os.ErrNotExist
	}}
	r = StartWith([]int{os.Getpid()}, time.Hour, Counters{Server: broken}).Stop()
	if r.ServerCPUSource != procSource || r.ServerCPUResolution != procTick || r.ServerCPUResolved != (r.Window > procTick) {
		t.Errorf("an unreadable counter, a window of %v: %q at %v, resolved %v", r.Window, r.ServerCPUSource, r.ServerCPUResolution, r.ServerCPUResolved)
	}
	s := Start([]int{os.Getpid()}, time.Hour)
	time.Sleep(3 * procTick)
	if r = s.Stop(); !r.ServerCPUResolved {
		t.Errorf("/proc's ticks over a window of %v (3 ticks): unresolved", r.Window)
	}
	if procResolution(4) != 4*procTick || cpuResolved(procTick, procTick) || !cpuResolved(time.Microsecond, time.Millisecond) {
		t.Error("the rule: a sum over n processes is good to n ticks; resolved only when finer than the window")
	}
}

// CPU spent in shootout's process that is not the client's (the disk
// model's) is taken out of the client's figure and reported apart.
func TestNotTheClientsCPUIsTakenOut(t *testing.T) {
	var calls int
	model := func() time.Duration {
		calls++
		return time.Duration(calls) * 2 * time.Millisecond
	}
	s := StartWith([]int{os.Getpid()}, time.Hour, Counters{NotClient: model})
	for x, end := 0, time.Now().Add(30*time.Millisecond); time.Now().Before(end); x++ {
		_ = x * x // the client's own work
	}
	r := s.Stop()
	self := s.endSelf - s.startSelf // the process's CPU over the run
	if r.NotClientCPUSeconds != 0.002 || r.ClientCPUSeconds < self-0.002-1e-9 || r.ClientCPUSeconds > self-0.002+1e-9 {
		t.Errorf("model %v s, client %v s of %v s in the process", r.NotClientCPUSeconds, r.ClientCPUSeconds, self)
	}
}

// A server of several processes maps one shared segment in each (PostgreSQL's
// shared buffers): the tree's memory must count the segment once, not once
// per process as a sum of RSS does.
func TestSharedMemoryOfATreeCountsOnce(t *testing.T) {
	const segment = 64 << 20
	f, err := os.CreateTemp("/dev/shm", "shootout-metrics-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	defer os.Remove(f.Name())
	if err := f.Truncate(segment); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// three processes of the test binary, each mapping every page
	var pids []int
	for i := 0; i < 3; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMapsASegment$")
		cmd.Env = append(os.Environ(), "SHOOTOUT_MAP_SEGMENT="+f.Name())
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil || string(buf[:5]) != "ready" {
			t.Fatalf("helper did not map the segment: %q %v", buf, err)
		}
		pids = append(pids, cmd.Process.Pid)
	}
	u := ReadTree(pids)
	if u.Processes != 3 {
		t.Fatalf("%d processes read, want 3", u.Processes)
	}
	if u.RSSBytes >= 2*segment {
		t.Errorf("3 processes sharing a %d MiB segment hold %d MiB: the shared pages are counted per process", segment>>20, u.RSSBytes>>20)
	}
	if u.RSSBytes < segment {
		t.Errorf("3 processes sharing a %d MiB segment hold only %d MiB", segment>>20, u.RSSBytes>>20)
	}
}

// TestHelperMapsASegment is the child of the test above, not a test.
func TestHelperMapsASegment(t *testing.T) {
	name := os.Getenv("SHOOTOUT_MAP_SEGMENT")
	if name == "" {
		t.Skip("a helper process of TestSharedMemoryOfATreeCountsOnce")
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(mem); i += os.Getpagesize() {
		mem[i] = 1
	}
	os.Stdout.WriteString("ready\n")
	time.Sleep(30 * time.Second)
}
