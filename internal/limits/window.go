package limits

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Window is a group's evidence over the measured window only. The kernel's
// counters (failcnt, OOM kills, throttled periods and time, IOs and bytes)
// count from the group's creation, which includes the dataset's load; a
// Window reads them at the start and at the end and keeps the difference.
// Gauges (limits, cpusets, the page cache and RSS now) keep their value at
// the end. The peak memory is reset at the start where the kernel allows
// it (v1); where it does not (v2 before 6.12), the window says so.
type Window struct {
	g      *Group
	before map[string]string
	notes  []string
}

// gauges are evidence keys that are a state, not a count.
var gauges = []string{"memory.limit_in_bytes", "memory.max", "cpuset.cpus", "cpuset.cpus.effective", "cpu.max",
	"memory.stat.", "memory.max_usage_in_bytes", "memory.peak"}

func isGauge(key string) bool {
	for _, g := range gauges {
		if key == g || strings.HasSuffix(g, ".") && strings.HasPrefix(key, g) {
			return true
		}
	}
	return false
}

// StartWindow begins the measured window of g.
func (g *Group) StartWindow() *Window {
	w := &Window{g: g}
	if d, ok := g.at["memory"]; ok {
		if g.h.version() == 1 {
			// writing 0 restarts the high-water mark from the usage now
			if err := writeFile(filepath.Join(d, "memory.max_usage_in_bytes"), "0"); err != nil {
				w.notes = append(w.notes, "memory.max_usage_in_bytes could not be reset at the window's start, so it includes the load: "+err.Error())
			}
		} else {
			w.notes = append(w.notes, "memory.peak counts since the cell's cgroup was made (the load included): this kernel cannot reset it")
		}
	}
	w.before = g.Evidence()
	return w
}

// End is the evidence of the window: counters as differences, gauges as
// they are now, and notes on what could not be confined to the window.
func (w *Window) End() (map[string]string, []string) {
	after := w.g.Evidence()
	out := map[string]string{}
	for k, v := range after {
		if isGauge(k) {
			out[k] = v
			continue
		}
		d, err := subtractCounters(w.before[k], v)
		if err != nil {
			out[k] = v
			w.notes = append(w.notes, fmt.Sprintf("%s counted from the cgroup's creation: %v", k, err))
			continue
		}
		out[k] = d
	}
	return out, w.notes
}

// subtractCounters subtracts the numbers of before from those of after,
// field by field, keeping the words ("8:0 Read 10" or "rios=3"), so one
// rule serves single counters, blkio's per-device lines and io.stat.
func subtractCounters(before, after string) (string, error) {
	if before == "" {
		return after, nil
	}
	a, b := strings.Fields(after), strings.Fields(before)
	if len(a) != len(b) {
		return "", fmt.Errorf("its layout changed during the window")
	}
	lines := strings.Split(after, "\n")
	var out []string
	i := 0
	for _, line := range lines {
		var fields []string
		for _, f := range strings.Fields(line) {
			key, val, kv := strings.Cut(f, "=")
			if !kv {
				key, val = "", f
			}
			bkey, bval, _ := strings.Cut(b[i], "=")
			if !kv {
				bkey, bval = "", b[i]
			}
			i++
			x, errA := strconv.ParseInt(val, 10, 64)
			y, errB := strconv.ParseInt(bval, 10, 64)
			if key != bkey {
				return "", fmt.Errorf("its layout changed during the window")
			}
			if errA != nil || errB != nil {
				if val != bval {
					return "", fmt.Errorf("%q became %q", bval, val)
				}
				fields = append(fields, f)
				continue
			}
			if kv {
				fields = append(fields, key+"="+strconv.FormatInt(x-y, 10))
			} else {
				fields = append(fields, strconv.FormatInt(x-y, 10))
			}
		}
		out = append(out, strings.Join(fields, " "))
	}
	return strings.Join(out, "\n"), nil
}
