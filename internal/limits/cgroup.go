// Package limits puts a server under the limits of a small machine: a
// memory cap that includes the page cache, a CPU set, an IOPS cap on the
// disk that holds its data, and guarantees that no cgroup or server
// outlives shootout.
package limits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shootout/internal/metrics"
)

// Request is what a cell asks for; zero values mean "no limit".
type Request struct {
	MemoryBytes int64
	IOPS        int     // read and write IOPS each, on the data directory's disk
	BPS         int64   // read and write bytes per second each, likewise
	CPUs        string  // cpuset list such as "1" or "0-1"
	CPUQuota    float64 // CPU time per period, in cores (0.5: half of one core)
	// DeferIO makes the disk's group but leaves the caps for ApplyIO.
	DeferIO bool
	// pinSelf is a group shootout itself joins (PinSelf): it gets no v1
	// cpuacct group, since Unpin moves shootout back in the cpuset
	// hierarchy only, and Remove kills what is left in a group.
	pinSelf bool
}

// Empty is true when nothing is asked.
func (r Request) Empty() bool {
	return r.MemoryBytes == 0 && r.IOPS == 0 && r.BPS == 0 && r.CPUs == "" && r.CPUQuota == 0
}

func (r Request) io() bool { return r.IOPS > 0 || r.BPS > 0 }

// controllers are the ones r needs, in the order groups are made; the IO
// controller is named blkio in v1 and io in v2.
func (r Request) controllers(ioName string) []string {
	var cs []string
	if r.MemoryBytes > 0 {
		cs = append(cs, "memory")
	}
	if r.io() {
		cs = append(cs, ioName)
	}
	if r.CPUs != "" {
		cs = append(cs, "cpuset")
	}
	if r.CPUQuota > 0 {
		cs = append(cs, "cpu")
	}
	return cs
}

// Root is where cgroupfs is mounted.
const Root = "/sys/fs/cgroup"

// cfsPeriod is the CFS period a CPU quota is spread over, in microseconds:
// the kernel's default, short enough that a throttled server stalls for
// tens of milliseconds at a time rather than seconds.
const cfsPeriod = 100000

// quotaMicros is a quota in cores as CPU time per cfsPeriod.
func quotaMicros(cores float64) int64 { return int64(cores*cfsPeriod + 0.5) }

// hierarchy is the file protocol of one cgroup version under a root
// directory: the real /sys/fs/cgroup, or a fake tree in tests.
type hierarchy interface {
	version() int
	// check says what is missing to apply r, and how to fix it.
	check(r Request) error
	// create makes g's directories, recording each in g.dirs as soon as
	// it exists so that a failure can be undone, and writes r's limits;
	// dev is the data disk as "major:minor" when r caps IO.
	create(g *Group, r Request, dev string) error
	// evidence reads what the kernel counted for g.
	evidence(g *Group) map[string]string
	// writeIO writes r's disk caps on dev, or removes them when !on.
	writeIO(g *Group, r Request, dev string, on bool) error
	// ioServiced totals the read and write IOs under g's disk cap (the
	// reads alone when readsOnly); -1 when g has no disk controller.
	ioServiced(g *Group, readsOnly bool) int64
	// cpusetHome is the cgroup.procs file that puts a process back in the
	// cpuset group it is in now, per /proc/PID/cgroup's text.
	cpusetHome(procCgroup string) string
	// cpuCounter is g's CPU time counter, nil when g has none.
	cpuCounter(g *Group) *metrics.CPUCounter
}

// detect says which cgroup version is mounted at root, nil for none.
func detect(root string) hierarchy {
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
		return v2{root: root}
	}
	for _, c := range []string{"memory", "blkio", "cpuset", "cpu"} {
		if _, err := os.Stat(filepath.Join(root, c, "cgroup.procs")); err == nil {
			return v1{root}
		}
	}
	return nil
}

// Version is 1 or 2, as mounted here, or 0 when there is no cgroupfs.
func Version() int {
	if h := detect(Root); h != nil {
		return h.version()
	}
	return 0
}

// Check says whether limits can be applied here, and if not what is missing
// and how to fix it.
func Check(r Request) error {
	if r.Empty() {
		return nil
	}
	h := detect(Root)
	if h == nil {
		return errors.New("no cgroup filesystem under /sys/fs/cgroup; mount cgroups or run without --memory/--iops/--bps/--cpus (or with --allow-unlimited)")
	}
	if os.Geteuid() != 0 {
		return errors.New("creating cgroups needs root; run shootout as root (or with --allow-unlimited)")
	}
	return h.check(r)
}

// Group is the cgroups of one server (one per controller in v1, a small
// tree in v2), named shootout-<name>.
type Group struct {
	Name    string
	Applied map[string]string // setting -> value written
	h       hierarchy
	dirs    []string          // every directory made, parents first
	at      map[string]string // controller -> the directory of its files
	procs   []string          // cgroup.procs files the group's own processes join
	shared  []string          // cgroup.procs files a neighbour joins: the disk cap only
	io      Request           // the disk caps asked, for ApplyIO and LiftIO
	dev     string            // the data disk as major:minor
	// children are groups nested in this one (Child): a cluster's nodes,
	// each under its own limits, all under the group's
	children []*Group
}

// Child makes a group nested in g with r's limits, for one of several
// processes that each get the limits one server gets (a cluster's node
// as on a machine of its own), while g's counters cover them all. Only
// cgroup v1 here: v2's tree already nests the server's group, and
// nesting under it is not done.
func (g *Group) Child(name string, r Request) (*Group, error) {
	if g.h.version() != 1 {
		return nil, fmt.Errorf("a group per process is made under cgroup v1 only (this is v%d)", g.h.version())
	}
	c, err := create(g.h, strings.TrimPrefix(g.Name, Prefix)+"/"+Prefix+name, r, g.dev)
	if err != nil {
		return nil, err
	}
	g.children = append(g.children, c)
	return c, nil
}

// Prefix starts the name of every cgroup shootout creates, so a person can
// see them and the sweep can find them.
const Prefix = "shootout-"

// Create makes the cgroups for r and writes the limits. dataDir picks the
// disk the IOPS cap applies to. On error nothing is left behind.
func Create(name string, r Request, dataDir string) (*Group, error) {
	if err := Check(r); err != nil {
		return nil, err
	}
	var dev string
	if r.io() {
		var err error
		if dev, err = diskOf(dataDir); err != nil {
			return nil, err
		}
	}
	return create(detect(Root), name, r, dev)
}

func create(h hierarchy, name string, r Request, dev string) (*Group, error) {
	g := &Group{Name: Prefix + name, Applied: map[string]string{}, h: h, at: map[string]string{}, io: r, dev: dev}
	if err := h.create(g, r, dev); err != nil {
		g.Remove()
		return nil, err
	}
	return g, nil
}

// ApplyIO writes the disk caps a Request with DeferIO left out. Unlike
// memory, a disk throttle takes hold at once for the processes already in
// the group, so a cell can load its data at full speed and cap the disk
// for the measured part only.
func (g *Group) ApplyIO() error {
	if !g.io.io() {
		return nil
	}
	for _, c := range g.children {
		if err := c.ApplyIO(); err != nil {
			return err
		}
	}
	return g.h.writeIO(g, g.io, g.dev, true)
}

// LiftIO removes the disk caps, so what follows the measured run (checks,
// settling, shutdown) is not throttled. Applied keeps what the run had.
func (g *Group) LiftIO() error {
	if !g.io.io() {
		return nil
	}
	for _, c := range g.children {
		if err := c.LiftIO(); err != nil {
			return err
		}
	}
	return g.h.writeIO(g, g.io, g.dev, false)
}

func (g *Group) mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create cgroup %s: %w", dir, err)
	}
	g.dirs = append(g.dirs, dir)
	return nil
}

// set writes a limit to a controller's file and records it as applied.
// readInto puts a file of the group's controller directory into ev under
// the file's name, when the group has that controller and the file a value.
func (g *Group) readInto(ev map[string]string, controller, file string) {
	if d, ok := g.at[controller]; ok {
		if v := readValue(filepath.Join(d, file)); v != "" {
			ev[file] = v
		}
	}
}

func (g *Group) set(controller, file, value string) error {
	if err := writeFile(filepath.Join(g.at[controller], file), value); err != nil {
		return err
	}
	g.Applied[file] = value
	return nil
}

func writeFile(path, value string) error {
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	return nil
}

// ProcsFiles are the files a process writes its PID to, to join the group.
func (g *Group) ProcsFiles() []string { return g.procs }

// Dirs are the group's directories, children before their parents: the
// order they can be removed in, for Remove and the sweep.
func (g *Group) Dirs() []string {
	out := make([]string, 0, len(g.dirs))
	for i := len(g.dirs) - 1; i >= 0; i-- {
		out = append(out, g.dirs[i])
	}
	return out
}

// Evidence reads what the kernel counted: peak memory, page cache, limit
// hits, IOs serviced, CPU throttling.
func (g *Group) Evidence() map[string]string { return g.h.evidence(g) }

// CPUCounter is the CPU time of the processes in the group (the server's,
// not a neighbour's), in nanoseconds or microseconds; nil when the group
// has no such counter (cgroup v1 without cpuacct).
func (g *Group) CPUCounter() *metrics.CPUCounter {
	if g == nil {
		return nil
	}
	return g.h.cpuCounter(g)
}

// IOServiced is the total of read and write IOs the kernel counted under
// the group's disk cap on all devices, 0 without one.
func (g *Group) IOServiced() int64 {
	n := max(g.h.ioServiced(g, false), 0)
	for _, c := range g.children { // v1's throttle counts a group's own IOs only
		n += c.IOServiced()
	}
	return n
}

// IOReads is the read IOs the group's disk controller counted, -1 when
// it has none (no disk cap asked).
func (g *Group) IOReads() int64 {
	n := g.h.ioServiced(g, true)
	for _, c := range g.children {
		if r := c.IOReads(); r > 0 {
			n = max(n, 0) + r
		}
	}
	return n
}

// Remove deletes the group's cgroups. Processes still inside (a server
// that would not stop) are killed first: they were started by shootout
// into this group, so nothing else is touched.
func (g *Group) Remove() error {
	var errs []error
	for _, c := range g.children {
		errs = append(errs, c.Remove())
	}
	for _, d := range g.Dirs() {
		if err := removeCgroup(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// readValue is a cgroup file's content on one line, "" when unreadable.
func readValue(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// keyed copies "key value" lines of a flat-keyed cgroup file (memory.stat,
// cpu.stat, memory.events) into ev as prefix.key, for the keys wanted.
func keyed(ev map[string]string, path, prefix string, keys ...string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		for _, want := range keys {
			if k == want {
				ev[prefix+k] = strings.TrimSpace(v)
			}
		}
	}
}

func removeCgroup(dir string) error {
	for try := 0; try < 50; try++ {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		for _, pid := range pidsIn(dir) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		sleep(try)
	}
	return fmt.Errorf("remove cgroup %s: still busy", dir)
}

func pidsIn(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// diskOf returns "major:minor" of the whole disk that holds path: blkio
// throttles whole devices, not partitions.
func diskOf(path string) (string, error) {
	d, err := metrics.DeviceOf(path)
	if err != nil {
		return "", fmt.Errorf("%v; an IOPS cap needs a --out on a real disk", err)
	}
	return d.Disk, nil
}

func sleep(try int) { time.Sleep(time.Duration(10*(try+1)) * time.Millisecond) }
