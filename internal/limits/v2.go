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

// v2 is the unified hierarchy mounted at root. A group is a small tree:
//
//	shootout-NAME/                     io.max: the disk cap the server and a neighbour share
//	shootout-NAME/shootout-main/       memory.max, memory.swap.max, cpu.max, cpuset.cpus; the server
//	shootout-NAME/shootout-neighbour/  fio, when the group caps IO
//
// Processes live in the leaves only: a v2 group can hand controllers to
// its children (cgroup.subtree_control) only while it has no processes of
// its own, and fio must share the server's disk cap without being charged
// for the server's memory or CPU, which takes a common parent.
type v2 struct {
	root string
	// populate, in tests, plays the kernel: it fills a new directory with
	// the interface files a real cgroupfs would show.
	populate func(dir string)
}

func (v2) version() int { return 2 }

func (v2) controllers(r Request) []string { return r.controllers("io") }

func (h v2) check(r Request) error {
	offered := readValue(filepath.Join(h.root, "cgroup.controllers"))
	delegated := readValue(filepath.Join(h.root, "cgroup.subtree_control"))
	var absent, undelegated []string
	for _, c := range h.controllers(r) {
		switch {
		case !hasWord(offered, c):
			absent = append(absent, c)
		case !hasWord(delegated, c):
			undelegated = append(undelegated, c)
		}
	}
	if len(absent) > 0 {
		return fmt.Errorf("cgroup v2 at %s does not offer %s (its cgroup.controllers lists %q): the kernel lacks it or a cgroup v1 hierarchy holds it; use --allow-unlimited",
			h.root, strings.Join(absent, ", "), offered)
	}
	if len(undelegated) > 0 {
		return fmt.Errorf("cgroup v2 at %s does not delegate %s to the groups under it (its cgroup.subtree_control has %q); enable with: echo '+%s' > %s, or use --allow-unlimited",
			h.root, strings.Join(undelegated, ", "), delegated, strings.Join(undelegated, " +"), filepath.Join(h.root, "cgroup.subtree_control"))
	}
	if err := syscall.Access(h.root, 2); err != nil { // W_OK
		return fmt.Errorf("cgroup v2 at %s is not writable (%v); remount it read-write or use --allow-unlimited", h.root, err)
	}
	return nil
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

func (h v2) mkdir(g *Group, dir string) error {
	if err := g.mkdir(dir); err != nil {
		return err
	}
	if h.populate != nil {
		h.populate(dir)
	}
	return nil
}

func (h v2) create(g *Group, r Request, dev string) error {
	top := filepath.Join(h.root, g.Name)
	if err := h.mkdir(g, top); err != nil {
		return err
	}
	cs := h.controllers(r)
	if len(cs) > 0 {
		if err := writeFile(filepath.Join(top, "cgroup.subtree_control"), "+"+strings.Join(cs, " +")); err != nil {
			return err
		}
	}
	main := filepath.Join(top, Prefix+"main")
	if err := h.mkdir(g, main); err != nil {
		return err
	}
	g.procs = []string{filepath.Join(main, "cgroup.procs")}
	for _, c := range cs {
		g.at[c] = main
	}
	if r.io() {
		g.at["io"] = top
		nb := filepath.Join(top, Prefix+"neighbour")
		if err := h.mkdir(g, nb); err != nil {
			return err
		}
		g.shared = []string{filepath.Join(nb, "cgroup.procs")}
		if !r.DeferIO {
			if err := h.writeIO(g, r, dev, true); err != nil {
				return err
			}
		}
	}
	if r.MemoryBytes > 0 {
		// memory.max counts the page cache, as v1's limit does
		if err := g.set("memory", "memory.max", strconv.FormatInt(r.MemoryBytes, 10)); err != nil {
			return err
		}
		// v2 counts swap apart from memory, and only where the kernel
		// accounts it (otherwise the file is absent): none, so the cap
		// is the whole budget
		if _, err := os.Stat(filepath.Join(main, "memory.swap.max")); err == nil {
			if err := g.set("memory", "memory.swap.max", "0"); err != nil {
				return err
			}
		}
	}
	if r.CPUs != "" {
		// an empty cpuset.mems takes the parent's nodes, unlike v1
		if err := g.set("cpuset", "cpuset.cpus", r.CPUs); err != nil {
			return err
		}
	}
	if r.CPUQuota > 0 {
		if err := g.set("cpu", "cpu.max", fmt.Sprintf("%d %d", quotaMicros(r.CPUQuota), cfsPeriod)); err != nil {
			return err
		}
	}
	return nil
}

// cpuCounter is the server's leaf's cpu.stat usage_usec, which v2 keeps
// in every group whether or not the cpu controller is enabled.
func (v2) cpuCounter(g *Group) *metrics.CPUCounter {
	if len(g.procs) == 0 {
		return nil
	}
	file := filepath.Join(filepath.Dir(g.procs[0]), "cpu.stat")
	return &metrics.CPUCounter{Source: "cgroup cpu.stat usage_usec", Resolution: time.Microsecond, Read: func() (time.Duration, error) {
		ev := map[string]string{}
		keyed(ev, file, "", "usage_usec")
		us, err := strconv.ParseInt(ev["usage_usec"], 10, 64)
		return time.Duration(us) * time.Microsecond, err
	}}
}

func (h v2) evidence(g *Group) map[string]string {
	ev := map[string]string{}
	read := func(c, f string) { g.readInto(ev, c, f) }
	read("memory", "memory.max")
	read("memory", "memory.peak") // kernels from 5.19 on
	if d, ok := g.at["memory"]; ok {
		// "max" counts the times the cap was hit, "oom_kill" the processes
		// the kernel killed for it
		keyed(ev, filepath.Join(d, "memory.events"), "memory.events.", "max", "oom", "oom_kill")
		keyed(ev, filepath.Join(d, "memory.stat"), "memory.stat.", "file", "anon")
	}
	read("io", "io.stat")
	read("cpuset", "cpuset.cpus")
	read("cpuset", "cpuset.cpus.effective")
	read("cpu", "cpu.max")
	if d, ok := g.at["cpu"]; ok {
		keyed(ev, filepath.Join(d, "cpu.stat"), "cpu.stat.", "usage_usec", "nr_periods", "nr_throttled", "throttled_usec")
	}
	return ev
}

// ioServiced sums rios and wios of io.stat ("8:0 rbytes=.. wbytes=..
// rios=.. wios=.. dbytes=.. dios=..", a line per device) where the cap is,
// which counts the neighbour's IOs too, as v1's blkio group does.
func (h v2) ioServiced(g *Group, readsOnly bool) int64 {
	d, ok := g.at["io"]
	if !ok {
		return -1
	}
	b, _ := os.ReadFile(filepath.Join(d, "io.stat"))
	var n int64
	for _, f := range strings.Fields(string(b)) {
		if k, v, ok := strings.Cut(f, "="); ok && (k == "rios" || (k == "wios" && !readsOnly)) {
			x, _ := strconv.ParseInt(v, 10, 64)
			n += x
		}
	}
	return n
}

func (h v2) cpusetHome(procCgroup string) string {
	home := "/"
	for _, line := range strings.Split(procCgroup, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			home = p
		}
	}
	return filepath.Join(h.root, home, "cgroup.procs")
}

// writeIO writes the group's io.max line; "max" lifts a limit.
func (v2) writeIO(g *Group, r Request, dev string, on bool) error {
	line := dev
	if r.IOPS > 0 {
		v := strconv.Itoa(r.IOPS)
		if !on {
			v = "max"
		}
		line += fmt.Sprintf(" riops=%s wiops=%s", v, v)
	}
	if r.BPS > 0 {
		v := strconv.FormatInt(r.BPS, 10)
		if !on {
			v = "max"
		}
		line += fmt.Sprintf(" rbps=%s wbps=%s", v, v)
	}
	if !on {
		return writeFile(filepath.Join(g.at["io"], "io.max"), line)
	}
	return g.set("io", "io.max", line)
}
