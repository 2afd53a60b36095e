// Package metrics samples what a server costs while a cell runs: CPU
// seconds, bytes read and written, peak RSS, the load average, and the
// space its data directory takes.
package metrics

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times; 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// Usage is a point-in-time reading of a process tree.
type Usage struct {
	CPUSeconds float64
	ReadBytes  int64
	WriteBytes int64
	// RSSBytes is the resident memory of the tree: one process's RSS, or
	// the sum of several processes' Pss, so pages they share count once.
	RSSBytes  int64
	Processes int
	// CtxSwitches counts voluntary and involuntary context switches.
	CtxSwitches int64
}

// ReadTree sums usage over the processes rooted at the given PIDs. CPU
// includes children already reaped (cutime/cstime); IO of processes that
// came and went between two readings is lost, which for the servers here
// means short-lived PostgreSQL autovacuum workers only.
func ReadTree(roots []int) Usage { return readUsage(roots, false) }

// embeddedIn is true when the "server" is the calling process itself (an
// embedded database): then its children are not the engine but helpers
// such as a fio neighbour, and are left out, as is the CPU of children
// already reaped.
func embeddedIn(roots []int) bool { return len(roots) == 1 && roots[0] == os.Getpid() }

func readUsage(roots []int, own bool) Usage {
	var u Usage
	pids := treePIDs(roots)
	if own {
		pids = roots
	}
	for _, pid := range pids {
		p := readProc(pid)
		if own {
			p.cpu = p.ownCPU
		}
		u.CPUSeconds += p.cpu
		u.ReadBytes += p.read
		u.WriteBytes += p.write
		u.Processes++
		u.RSSBytes += p.rss
		u.CtxSwitches += p.ctx
	}
	if len(pids) > 1 {
		u.RSSBytes = treeRSS(pids)
	}
	return u
}

// treeRSS is the resident memory of several processes (a server's
// backends): each one's private pages plus the shared mappings once — the largest process's file pages (the binary and its
// libraries) and shared memory (PostgreSQL's shared buffers, which every
// backend touching them counts in its RSS: summed, a 50-backend server
// read 9.5 GiB in a 1 GiB cap). /proc/PID/status is read, not
// smaps_rollup, whose page-table walk cost ~5-80 ms a process each second
// on the client's CPU.
func treeRSS(pids []int) int64 {
	var anon, file, shmem int64
	for _, pid := range pids {
		m := statusMemory(pid)
		anon += m["RssAnon"]
		file = max(file, m["RssFile"])
		shmem = max(shmem, m["RssShmem"])
	}
	return anon + file + shmem
}

// statusMemory reads /proc/PID/status's RssAnon, RssFile and RssShmem, in
// bytes.
func statusMemory(pid int) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(k, "Rss") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err == nil {
			out[k] = kb << 10
		}
	}
	return out
}

type procUsage struct {
	cpu         float64 // the process's and its reaped children's
	ownCPU      float64 // the process's alone
	read, write int64
	rss         int64
	ppid        int
	ctx         int64
}

func readProc(pid int) procUsage {
	var p procUsage
	f := statFields(strconv.Itoa(pid))
	if len(f) < 22 {
		return p
	}
	p.ppid, _ = strconv.Atoi(f[1])
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	p.cpu = float64(ticks) / clockTicks
	var own int64
	for _, i := range []int{11, 12} { // utime stime
		n, _ := strconv.ParseInt(f[i], 10, 64)
		own += n
	}
	p.ownCPU = float64(own) / clockTicks
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	p.rss = pages * int64(os.Getpagesize())
	p.ctx = ThreadCtxSwitches(pid)
	if io, err := os.Open("/proc/" + strconv.Itoa(pid) + "/io"); err == nil {
		sc := bufio.NewScanner(io)
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ": ")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "read_bytes":
				p.read = n
			case "write_bytes":
				p.write = n
			}
		}
		io.Close()
	}
	return p
}

// ThreadCtxSwitches sums the context switches of every thread of pid:
// /proc/PID/status counts the main thread's only, which for a threaded
// server such as mariadbd is nearly none of them. Threads that ended
// between two readings take theirs with them.
func ThreadCtxSwitches(pid int) int64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "status"))
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":\t"); ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				total += n
			}
		}
	}
	return total
}

// Descendants are the live processes under pid.
func Descendants(pid int) []int { return treePIDs([]int{pid})[1:] }

// treePIDs returns the roots and all their live descendants.
func treePIDs(roots []int) []int {
	if len(roots) == 0 {
		return nil
	}
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := statFields(e.Name())
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	seen := map[int]bool{}
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	return out
}

// statFields are the fields of /proc/PID/stat after the command name
// (which may hold spaces): [0] the state, [1] the parent, [6] the flags,
// [11] and [12] user and system time. None when the process is gone.
func statFields(pid string) []string {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	s := string(stat)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
}

// LoadAvg1 is the one-minute load average.
func LoadAvg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// SelfCPU is the CPU seconds the shootout process has used.
func SelfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return tv(ru.Utime) + tv(ru.Stime)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// DirBytes is the space the files under dir occupy on disk (allocated
// blocks, like du, so a sparse file counts what it holds), up to each
// file's end: space reserved past the end is left out. RocksDB reserves
// each new WAL's 70 MB that way (fallocate with KEEP_SIZE) at its first
// write after a memtable flush, so counting it made a 1-MB MyRocks table's
// directory 137 or 284 MB depending on whether a write had yet followed
// the flush.
func DirBytes(dir string) int64 {
	if dir == "" {
		return 0
	}
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // files vanish while a server runs
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				total += fileBytes(st)
			}
		}
		return nil
	})
	return total
}

func fileBytes(st *syscall.Stat_t) int64 {
	allocated := st.Blocks * 512
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Blksize <= 0 {
		return allocated
	}
	toEnd := (st.Size + int64(st.Blksize) - 1) / int64(st.Blksize) * int64(st.Blksize)
	return min(allocated, toEnd)
}

// CPUCounter is a server's CPU time as one counter finer than /proc's
// ticks: its cgroup's (cpuacct.usage in v1, cpu.stat's usage_usec in v2),
// which counts every process in the group, those that came and went too.
type CPUCounter struct {
	Source     string        // the file read, for the result
	Resolution time.Duration // its unit
	Read       func() (time.Duration, error)
}

// procTick is what /proc/PID/stat counts CPU time in.
const procTick = time.Second / clockTicks

// procSource names /proc's counter in a result.
const procSource = "/proc/PID/stat"

// procResolution is what a CPU time summed over n processes' /proc ticks
// is good to: each process's reading is truncated to its tick apart.
func procResolution(n int) time.Duration { return time.Duration(max(n, 1)) * procTick }

// cpuResolved says whether a CPU time read at resolution means anything
// over a window that long: where the unit is as long as the window, a
// reading of 0 or of one unit says nothing of what was used.
func cpuResolved(resolution, window time.Duration) bool { return resolution < window }

// Counters are the finer counters a Sampler takes where there are some.
type Counters struct {
	// Server is the server's CPU, in place of /proc's ticks.
	Server *CPUCounter
	// NotClient is CPU spent in shootout's own process that is not the
	// client's (the disk model serving the server's disk): it is taken
	// out of the client's CPU and reported apart.
	NotClient func() time.Duration
}

// Sampler watches a server for the length of a run.
type Sampler struct {
	notClient      func() time.Duration
	notClientStart time.Duration
	pids           []int
	own            bool // an embedded server: the process itself, not its children
	cpu            *CPUCounter
	cpuStart       time.Duration
	began          time.Time
	start, end     Usage
	startSelf      float64
	endSelf        float64
	peakRSS        int64
	maxLoad        float64
	host           HostSample
	stop           context.CancelFunc
	wg             sync.WaitGroup
	mu             sync.Mutex
}

// Start takes the first reading and samples RSS and load every interval.
func Start(pids []int, every time.Duration) *Sampler { return StartWith(pids, every, Counters{}) }

// StartWith is Start with the finer counters of c: the server's CPU taken
// from c.Server, when it is not nil and can be read, rather than from
// /proc's ticks, and c.NotClient's CPU taken out of the client's.
func StartWith(pids []int, every time.Duration, c Counters) *Sampler {
	s := &Sampler{pids: pids, own: embeddedIn(pids), startSelf: SelfCPU(), maxLoad: LoadAvg1(), began: time.Now()}
	if c.NotClient != nil {
		s.notClient, s.notClientStart = c.NotClient, c.NotClient()
	}
	if cpu := c.Server; cpu != nil {
		var err error
		if s.cpuStart, err = cpu.Read(); err == nil {
			s.cpu = cpu
		}
	}
	s.start = readUsage(pids, s.own)
	s.host = SampleHost()
	s.peakRSS = s.start.RSSBytes
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				u := readUsage(pids, s.own)
				l := LoadAvg1()
				s.mu.Lock()
				if u.RSSBytes > s.peakRSS {
					s.peakRSS = u.RSSBytes
				}
				if l > s.maxLoad {
					s.maxLoad = l
				}
				s.mu.Unlock()
			}
		}
	}()
	return s
}

// Report is a finished sampling.
type Report struct {
	ServerCPUSeconds float64
	ServerReadBytes  int64
	ServerWriteBytes int64
	PeakRSSBytes     int64
	MaxLoadAvg       float64
	ClientCPUSeconds float64
	// NotClientCPUSeconds is the CPU of Counters.NotClient over the run,
	// already taken out of ClientCPUSeconds.
	NotClientCPUSeconds float64
	CtxSwitches         int64
	Measured            bool // false when the server's processes are unknown
	// ServerCPUSource is the counter ServerCPUSeconds comes from, and
	// ServerCPUResolution what it is good to; ServerCPUResolved is false
	// when that is as long as the window, so ServerCPUSeconds says nothing.
	ServerCPUSource     string
	ServerCPUResolution time.Duration
	ServerCPUResolved   bool
	Window              time.Duration
	// Host is what the hypervisor and processes outside shootout's tree
	// took of the CPUs during the run; for an external server, whose
	// processes are not in the tree, Others includes the server's own CPU
	Host HostLoad
}

// Stop takes the last reading.
func (s *Sampler) Stop() Report {
	s.end = readUsage(s.pids, s.own)
	s.endSelf = SelfCPU()
	host := SampleHost().Since(s.host)
	s.stop()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end.RSSBytes > s.peakRSS {
		s.peakRSS = s.end.RSSBytes
	}
	if l := LoadAvg1(); l > s.maxLoad {
		s.maxLoad = l
	}
	window := time.Since(s.began)
	cpu := s.end.CPUSeconds - s.start.CPUSeconds
	source, resolution := procSource, procResolution(max(s.start.Processes, s.end.Processes))
	if s.cpu != nil {
		if end, err := s.cpu.Read(); err == nil {
			cpu, source, resolution = (end - s.cpuStart).Seconds(), s.cpu.Source, s.cpu.Resolution
		}
	}
	var notClient float64
	if s.notClient != nil {
		notClient = (s.notClient() - s.notClientStart).Seconds()
	}
	return Report{
		NotClientCPUSeconds: notClient,
		ServerCPUSeconds:    cpu,
		ServerCPUSource:     source,
		ServerCPUResolution: resolution,
		ServerCPUResolved:   cpuResolved(resolution, window),
		Window:              window,
		ServerReadBytes:     s.end.ReadBytes - s.start.ReadBytes,
		ServerWriteBytes:    s.end.WriteBytes - s.start.WriteBytes,
		PeakRSSBytes:        s.peakRSS,
		MaxLoadAvg:          s.maxLoad,
		ClientCPUSeconds:    s.endSelf - s.startSelf - notClient,
		CtxSwitches:         s.end.CtxSwitches - s.start.CtxSwitches,
		Measured:            len(s.pids) > 0 && s.end.Processes > 0,
		Host:                host,
	}
}

// MemAvailable is the kernel's estimate of memory available to new work.
func MemAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// MemTotal is the machine's memory.
func MemTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// ProcState is the state letter of /proc/PID/stat: R running, S sleeping,
// D in uninterruptible IO, T stopped by a signal, Z a zombie; "" when the
// process is gone.
func ProcState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	return statState(string(b))
}

// statState is the state letter of a /proc stat line, "" if it has none;
// it follows the command name, which may hold spaces and parentheses.
func statState(s string) string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}
