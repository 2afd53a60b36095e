package metrics

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ThreadWaits says what the threads of the process trees under roots are
// doing, as the kernel sees it: how many run, sleep or wait on storage
// (state D), and where in the kernel the ones in D wait (wchan). It reads
// only /proc, so it answers for a server that answers nobody: whether its
// threads wait on the disk (a stalled device, a full journal) or among
// themselves.
func ThreadWaits(roots []int) string {
	states := map[string]int{}
	inD := map[string]int{}
	total := 0
	for _, pid := range treePIDs(roots) {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
		tasks, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile(filepath.Join(dir, t.Name(), "stat"))
			if err != nil {
				continue // the thread ended
			}
			state := statState(string(b))
			if state == "" {
				continue
			}
			total++
			states[state]++
			if state == "D" {
				w, _ := os.ReadFile(filepath.Join(dir, t.Name(), "wchan"))
				where := strings.TrimSpace(string(w))
				if where == "" || where == "0" {
					where = "unknown"
				}
				inD[where]++
			}
		}
	}
	if total == 0 {
		return "no threads (the process is gone)"
	}
	names := map[string]string{"R": "running", "S": "sleeping", "D": "waiting on storage (D)", "T": "stopped", "Z": "zombie"}
	var parts []string
	for _, st := range []string{"R", "S", "D", "T", "Z"} {
		if n := states[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, names[st]))
			delete(states, st)
		}
	}
	for st, n := range states {
		parts = append(parts, fmt.Sprintf("%d in state %s", n, st))
	}
	out := fmt.Sprintf("%d threads: %s", total, strings.Join(parts, ", "))
	if len(inD) > 0 {
		out += " in " + topCounts(inD, 3)
	}
	return out
}

// topCounts lists the n largest counts as "name ×count", largest first.
func topCounts(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
