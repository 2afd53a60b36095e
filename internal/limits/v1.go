package limits

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shootout/internal/metrics"
)

// v1 is cgroup v1: one hierarchy per controller, each mounted under root
// (root/memory, root/blkio, ...), and a group is one directory in each.
type v1 struct{ root string }

func (v1) version() int { return 1 }

func (v1) controllers(r Request) []string { return r.controllers("blkio") }

func (h v1) check(r Request) error {
	for _, c := range h.controllers(r) {
		dir := filepath.Join(h.root, c)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
			return fmt.Errorf("cgroup v1 controller %s is not mounted at %s; mount it or use --allow-unlimited", c, dir)
		}
		if err := syscall.Access(dir, 2); err != nil { // W_OK
			return fmt.Errorf("cgroup controller %s is not writable (%v); remount it read-write or use --allow-unlimited", dir, err)
		}
	}
	return nil
}

func (h v1) create(g *Group, r Request, dev string) error {
	for _, c := range h.controllers(r) {
		dir := filepath.Join(h.root, c, g.Name)
		if err := g.mkdir(dir); err != nil {
			return err
		}
		g.at[c] = dir
		g.procs = append(g.procs, filepath.Join(dir, "cgroup.procs"))
	}
	if !r.pinSelf {
		h.account(g)
	}
	if r.MemoryBytes > 0 {
		// In v1 memory.limit_in_bytes counts the page cache the group's
		// processes fill, so a "1 GB VM" cannot cache more than 1 GB.
		if err := g.set("memory", "memory.limit_in_bytes", strconv.FormatInt(r.MemoryBytes, 10)); err != nil {
			return err
		}
		// no swap on top of the cap, where the kernel accounts it
		if _, err := os.Stat(filepath.Join(g.at["memory"], "memory.memsw.limit_in_bytes")); err == nil {
			if err := g.set("memory", "memory.memsw.limit_in_bytes", strconv.FormatInt(r.MemoryBytes, 10)); err != nil {
				return err
			}
		}
	}
	if r.io() {
		// a neighbour shares the server's blkio group, hence its cap, but
		// not its memory group
		g.shared = []string{filepath.Join(g.at["blkio"], "cgroup.procs")}
		if !r.DeferIO {
			if err := h.writeIO(g, r, dev, true); err != nil {
				return err
			}
		}
	}
	if r.CPUs != "" {
		// a v1 cpuset group starts with no memory nodes and refuses
		// processes until given some
		mems := readValue(filepath.Join(h.root, "cpuset", "cpuset.mems"))
		if err := g.set("cpuset", "cpuset.mems", mems); err != nil {
			return err
		}
		if err := g.set("cpuset", "cpuset.cpus", r.CPUs); err != nil {
			return err
		}
	}
	if r.CPUQuota > 0 {
		if err := g.set("cpu", "cpu.cfs_period_us", strconv.Itoa(cfsPeriod)); err != nil {
			return err
		}
		if err := g.set("cpu", "cpu.cfs_quota_us", strconv.FormatInt(quotaMicros(r.CPUQuota), 10)); err != nil {
			return err
		}
	}
	return nil
}

// account puts g in a cpuacct group too, where that hierarchy is mounted:
// its counter is in nanoseconds, where /proc's are 10-ms ticks per
// process, which read 0 for a short window. cpuacct limits nothing, so a
// host without it only loses the finer counter.
func (h v1) account(g *Group) {
	root := filepath.Join(h.root, "cpuacct")
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
		return
	}
	if d, ok := g.at["cpu"]; ok && sameDir(root, filepath.Join(h.root, "cpu")) {
		g.at["cpuacct"] = d // mounted together as cpu,cpuacct
		return
	}
	dir := filepath.Join(root, g.Name)
	if g.mkdir(dir) != nil {
		return
	}
	g.at["cpuacct"] = dir
	g.procs = append(g.procs, filepath.Join(dir, "cgroup.procs"))
}

func sameDir(a, b string) bool {
	x, errA := filepath.EvalSymlinks(a)
	y, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && x == y
}

func (v1) cpuCounter(g *Group) *metrics.CPUCounter {
	d, ok := g.at["cpuacct"]
	if !ok {
		return nil
	}
	file := filepath.Join(d, "cpuacct.usage")
	return &metrics.CPUCounter{Source: "cgroup cpuacct.usage", Resolution: time.Nanosecond, Read: func() (time.Duration, error) {
		ns, err := strconv.ParseInt(readValue(file), 10, 64)
		return time.Duration(ns), err
	}}
}

func (h v1) evidence(g *Group) map[string]string {
	ev := map[string]string{}
	read := func(c, f string) { g.readInto(ev, c, f) }
	read("memory", "memory.limit_in_bytes")
	read("memory", "memory.max_usage_in_bytes")
	read("memory", "memory.failcnt")
	if d, ok := g.at["memory"]; ok {
		keyed(ev, filepath.Join(d, "memory.stat"), "memory.stat.", "cache", "rss", "total_cache")
		keyed(ev, filepath.Join(d, "memory.oom_control"), "memory.", "oom_kill")
	}
	read("blkio", "blkio.throttle.io_serviced")
	// the cgroup's own byte count, beside /proc/PID/io's in the server
	// section: it includes a neighbour sharing the group
	read("blkio", "blkio.throttle.io_service_bytes")
	read("cpuset", "cpuset.cpus")
	if d, ok := g.at["cpu"]; ok {
		// throttled_time is in nanoseconds
		keyed(ev, filepath.Join(d, "cpu.stat"), "cpu.stat.", "nr_periods", "nr_throttled", "throttled_time")
	}
	return ev
}

func (h v1) ioServiced(g *Group, readsOnly bool) int64 {
	d, ok := g.at["blkio"]
	if !ok {
		return -1
	}
	b, _ := os.ReadFile(filepath.Join(d, "blkio.throttle.io_serviced"))
	var n int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[1] == "Read" || (f[1] == "Write" && !readsOnly)) {
			v, _ := strconv.ParseInt(f[2], 10, 64)
			n += v
		}
	}
	return n
}

func (h v1) cpusetHome(procCgroup string) string {
	home := "/"
	for _, line := range strings.Split(procCgroup, "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 {
			for _, c := range strings.Split(f[1], ",") {
				if c == "cpuset" {
					home = f[2]
				}
			}
		}
	}
	return filepath.Join(h.root, "cpuset", home, "cgroup.procs")
}

// writeIO writes the blkio throttles; a v1 rule goes away when its limit is
// written as 0.
func (v1) writeIO(g *Group, r Request, dev string, on bool) error {
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
			if !on {
				if err := writeFile(filepath.Join(g.at["blkio"], f), dev+" 0"); err != nil {
					return err
				}
				continue
			}
			if err := g.set("blkio", f, fmt.Sprintf("%s %d", dev, lim.n)); err != nil {
				return err
			}
		}
	}
	return nil
}
