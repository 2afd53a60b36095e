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
)

// Request is what a cell asks for; zero values mean "no limit".
type Request struct {
	MemoryBytes int64
	IOPS        int    // read and write IOPS each, on the data directory's disk
	BPS         int64  // read and write bytes per second each, likewise
	CPUs        string // cpuset list such as "1" or "0-1"
	// DeferIO creates the blkio group but leaves the caps for ApplyIO.
	DeferIO bool
}

// Empty is true when nothing is asked.
func (r Request) Empty() bool { return r.MemoryBytes == 0 && r.IOPS == 0 && r.BPS == 0 && r.CPUs == "" }

// Root is where cgroupfs is mounted.
const Root = "/sys/fs/cgroup"

// Version is 1 or 2, as mounted here, or 0 when there is no cgroupfs.
func Version() int {
	if _, err := os.Stat(filepath.Join(Root, "cgroup.controllers")); err == nil {
		return 2
	}
	if _, err := os.Stat(filepath.Join(Root, "memory", "memory.limit_in_bytes")); err == nil {
		return 1
	}
	return 0
}

// Check says whether limits can be applied here, and if not what is missing
// and how to fix it.
func Check(r Request) error {
	if r.Empty() {
		return nil
	}
	switch Version() {
	case 0:
		return errors.New("no cgroup filesystem under /sys/fs/cgroup; mount cgroups or run without --memory/--iops/--cpus (or with --allow-unlimited)")
	case 2:
		return errors.New("cgroup v2 is mounted; this build applies limits through cgroup v1 only (run with --allow-unlimited, or boot with cgroup v1)")
	}
	if os.Geteuid() != 0 {
		return errors.New("creating cgroups needs root; run shootout as root (or with --allow-unlimited)")
	}
	for _, c := range controllers(r) {
		dir := filepath.Join(Root, c)
		if err := syscall.Access(dir, 2); err != nil { // W_OK
			return fmt.Errorf("cgroup controller %s is not writable (%v); remount it read-write or use --allow-unlimited", dir, err)
		}
	}
	return nil
}

func controllers(r Request) []string {
	var cs []string
	if r.MemoryBytes > 0 {
		cs = append(cs, "memory")
	}
	if r.IOPS > 0 || r.BPS > 0 {
		cs = append(cs, "blkio")
	}
	if r.CPUs != "" {
		cs = append(cs, "cpuset")
	}
	return cs
}

// Group is one set of cgroups (one per controller) named shootout-<name>.
type Group struct {
	Name    string
	dirs    map[string]string // controller -> directory
	Applied map[string]string // setting -> value written
}

// Prefix starts the name of every cgroup shootout creates, so a person can
// see them and the sweep can find them.
const Prefix = "shootout-"

// Create makes the cgroups for r and writes the limits. dataDir picks the
// disk the IOPS cap applies to. On error nothing is left behind.
func Create(name string, r Request, dataDir string) (_ *Group, err error) {
	if err := Check(r); err != nil {
		return nil, err
	}
	g := &Group{Name: Prefix + name, dirs: map[string]string{}, Applied: map[string]string{}}
	defer func() {
		if err != nil {
			g.Remove()
		}
	}()
	for _, c := range controllers(r) {
		dir := filepath.Join(Root, c, g.Name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
		}
		g.dirs[c] = dir
	}
	if r.MemoryBytes > 0 {
		// In v1 memory.limit_in_bytes counts the page cache the group's
		// processes fill, so a "1 GB VM" cannot cache more than 1 GB.
		if err := g.write("memory", "memory.limit_in_bytes", strconv.FormatInt(r.MemoryBytes, 10)); err != nil {
			return nil, err
		}
		// no swap on top of the cap, where the kernel accounts it
		if _, err := os.Stat(filepath.Join(g.dirs["memory"], "memory.memsw.limit_in_bytes")); err == nil {
			if err := g.write("memory", "memory.memsw.limit_in_bytes", strconv.FormatInt(r.MemoryBytes, 10)); err != nil {
				return nil, err
			}
		}
	}
	if !r.DeferIO {
		if err := g.ApplyIO(r, dataDir); err != nil {
			return nil, err
		}
	}
	if r.CPUs != "" {
		mems, _ := os.ReadFile(filepath.Join(Root, "cpuset", "cpuset.mems"))
		if err := g.write("cpuset", "cpuset.mems", strings.TrimSpace(string(mems))); err != nil {
			return nil, err
		}
		if err := g.write("cpuset", "cpuset.cpus", r.CPUs); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// ApplyIO writes r's IOPS and bandwidth caps for the disk holding
// dataDir. Unlike memory, a blkio throttle takes hold at once for the
// processes already in the group, so a run can load its data at full
// speed and cap the disk for the measured part only (Request.DeferIO).
func (g *Group) ApplyIO(r Request, dataDir string) error {
	if r.IOPS <= 0 && r.BPS <= 0 {
		return nil
	}
	dev, err := diskOf(dataDir)
	if err != nil {
		return err
	}
	for _, lim := range []struct {
		n     int64
		files []string
	}{
		{int64(r.IOPS), []string{"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"}},
		{r.BPS, []string{"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"}},
	} {
		if lim.n <= 0 {
			continue
		}
		for _, f := range lim.files {
			if err := g.write("blkio", f, fmt.Sprintf("%s %d", dev, lim.n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// LiftIO removes the disk caps ApplyIO wrote (a v1 throttle rule goes
// away when its limit is written as 0), keeping them in Applied as what
// the measured run had.
func (g *Group) LiftIO() error {
	for _, f := range []string{"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device",
		"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"} {
		v, ok := g.Applied[f]
		if !ok {
			continue
		}
		dev, _, _ := strings.Cut(v, " ")
		path := filepath.Join(g.dirs["blkio"], f)
		if err := os.WriteFile(path, []byte(dev+" 0"), 0o644); err != nil {
			return fmt.Errorf("lift %s: %w", path, err)
		}
	}
	return nil
}

func (g *Group) write(controller, file, value string) error {
	path := filepath.Join(g.dirs[controller], file)
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, path, err)
	}
	g.Applied[file] = value
	return nil
}

// ProcsFiles are the files a process writes its PID to, to join the group.
func (g *Group) ProcsFiles() []string {
	var out []string
	for _, d := range g.dirs {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// Dirs are the group's directories, for the state file.
func (g *Group) Dirs() []string {
	var out []string
	for _, d := range g.dirs {
		out = append(out, d)
	}
	return out
}

// Evidence reads what the kernel counted: peak memory, page cache, limit
// hits, and IOs serviced.
func (g *Group) Evidence() map[string]string {
	ev := map[string]string{}
	read := func(c, f string) {
		if d, ok := g.dirs[c]; ok {
			if b, err := os.ReadFile(filepath.Join(d, f)); err == nil {
				ev[f] = strings.TrimSpace(string(b))
			}
		}
	}
	read("memory", "memory.limit_in_bytes")
	read("memory", "memory.max_usage_in_bytes")
	read("memory", "memory.failcnt")
	if d, ok := g.dirs["memory"]; ok {
		if b, err := os.ReadFile(filepath.Join(d, "memory.stat")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(line, " "); ok && (k == "cache" || k == "rss" || k == "total_cache") {
					ev["memory.stat."+k] = v
				}
			}
		}
		if b, err := os.ReadFile(filepath.Join(d, "memory.oom_control")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(line, " "); ok && k == "oom_kill" {
					ev["memory.oom_kill"] = v
				}
			}
		}
	}
	read("blkio", "blkio.throttle.io_serviced")
	read("cpuset", "cpuset.cpus")
	return ev
}

// IOServiced is the total of read and write IOs the kernel counted for the
// group on all devices (blkio.throttle.io_serviced), 0 without blkio.
func (g *Group) IOServiced() int64 {
	d, ok := g.dirs["blkio"]
	if !ok {
		return 0
	}
	b, _ := os.ReadFile(filepath.Join(d, "blkio.throttle.io_serviced"))
	var n int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[1] == "Read" || f[1] == "Write") {
			v, _ := strconv.ParseInt(f[2], 10, 64)
			n += v
		}
	}
	return n
}

// Remove deletes the group's cgroups. Processes still inside (a server
// that would not stop) are killed first: they were started by shootout
// into this group, so nothing else is touched.
func (g *Group) Remove() error {
	var errs []error
	for _, d := range g.dirs {
		if err := removeCgroup(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return "", fmt.Errorf("find the disk of %s: %w", path, err)
	}
	major, minor := (st.Dev>>8)&0xfff, (st.Dev&0xff)|((st.Dev>>12)&0xfff00)
	dev := fmt.Sprintf("%d:%d", major, minor)
	// a partition's sysfs entry has a "partition" file; its parent is the disk
	sys := "/sys/dev/block/" + dev
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		if b, err := os.ReadFile(filepath.Join(sys, "..", "dev")); err == nil {
			return strings.TrimSpace(string(b)), nil
		}
	}
	if _, err := os.Stat(sys); err != nil {
		return "", fmt.Errorf("%s is on device %s, which is not a block device (tmpfs or overlay?); an IOPS cap needs a --out on a real disk", path, dev)
	}
	return dev, nil
}

func sleep(try int) { time.Sleep(time.Duration(10*(try+1)) * time.Millisecond) }
