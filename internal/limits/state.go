package limits

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"shootout/internal/disk"
	"shootout/internal/netns"
)

// StateDir holds one file per running shootout listing what it created,
// so that the next shootout removes what a SIGKILLed one left behind.
var StateDir = "/run/shootout"

// Process is a process shootout started, identified by PID and start time
// (a PID alone may have been reused by the time anyone looks).
type Process struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

type state struct {
	Owner   Process   `json:"owner"`
	Cgroups []string  `json:"cgroups,omitempty"`
	Servers []Process `json:"servers,omitempty"`
	Dirs    []string  `json:"dirs,omitempty"`
	Disks   []string  `json:"disks,omitempty"` // modelled disks' directories (internal/disk)
	Nets    []string  `json:"nets,omitempty"`  // a cluster's hosts (internal/netns ids)
}

// Ledger is this process's state file.
type Ledger struct {
	mu   sync.Mutex
	path string
	s    state
}

// process is the one ledger of this process: its file is named by the
// PID, so every Open shares it (cells run side by side in one process
// would otherwise overwrite each other's records, and the first Close
// would remove the file while the others' servers still ran).
var process struct {
	sync.Mutex
	l     *Ledger
	users int
}

// Open starts this process's ledger, or joins it when it is open (nil
// and no error when /run is not writable: then only the in-process
// cleanup protects). Each Open is matched by a Close.
func Open() *Ledger {
	process.Lock()
	defer process.Unlock()
	if process.l == nil {
		if err := os.MkdirAll(StateDir, 0o755); err != nil {
			return nil
		}
		me := os.Getpid()
		process.l = &Ledger{path: filepath.Join(StateDir, strconv.Itoa(me)+".json"), s: state{Owner: Process{me, startTime(me)}}}
	}
	process.users++
	return process.l
}

func (l *Ledger) save() {
	if l == nil {
		return
	}
	b, _ := json.Marshal(l.s)
	tmp := l.path + ".tmp"
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, l.path)
	}
}

// AddCgroups, AddServer and AddDir record what was created; the matching
// Forget calls drop it once cleaned up.
func (l *Ledger) AddCgroups(dirs []string) {
	// first: a group nested in one recorded before goes before it
	l.edit(func(s *state) { s.Cgroups = append(slices.Clone(dirs), s.Cgroups...) })
}
func (l *Ledger) AddServer(pid int, dir string) {
	l.edit(func(s *state) {
		s.Servers = append(s.Servers, Process{pid, startTime(pid)})
		if dir != "" {
			s.Dirs = append(s.Dirs, dir)
		}
	})
}
func (l *Ledger) AddDisk(dir string) {
	l.edit(func(s *state) { s.Disks = append(s.Disks, dir) })
}
func (l *Ledger) ForgetDisk(dir string) {
	l.edit(func(s *state) { s.Disks = without(s.Disks, dir) })
}
func (l *Ledger) AddNet(id string) {
	l.edit(func(s *state) { s.Nets = append(s.Nets, id) })
}
func (l *Ledger) ForgetNet(id string) {
	l.edit(func(s *state) { s.Nets = without(s.Nets, id) })
}
func (l *Ledger) ForgetCgroups(dirs []string) {
	l.edit(func(s *state) { s.Cgroups = without(s.Cgroups, dirs...) })
}
func (l *Ledger) ForgetServer(pid int, dir string) {
	l.edit(func(s *state) {
		var keep []Process
		for _, p := range s.Servers {
			if p.PID != pid {
				keep = append(keep, p)
			}
		}
		s.Servers = keep
		s.Dirs = without(s.Dirs, dir)
	})
}

func (l *Ledger) edit(f func(*state)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f(&l.s)
	l.save()
}

// Close ends one Open; the last removes the ledger: everything in it
// was cleaned up.
func (l *Ledger) Close() {
	if l == nil {
		return
	}
	process.Lock()
	defer process.Unlock()
	if process.l != l {
		return // closed already
	}
	if process.users--; process.users > 0 {
		return
	}
	process.l = nil
	os.Remove(l.path)
}

// Sweep removes what shootout processes that no longer run left behind:
// their servers (if still running, checked by PID and start time), their
// cgroups and their server directories. It returns one line per thing
// removed, and one per thing it could not remove: those stay in the dead
// process's ledger, so the next command's sweep tries them again.
func Sweep() []string {
	var done []string
	files, _ := filepath.Glob(filepath.Join(StateDir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s state
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		if alive(s.Owner) {
			continue
		}
		for _, p := range s.Servers {
			if alive(p) {
				syscall.Kill(p.PID, syscall.SIGKILL)
				done = append(done, fmt.Sprintf("killed server pid %d left by shootout pid %d", p.PID, s.Owner.PID))
			}
		}
		left := state{Owner: s.Owner}
		// a disk's file system holds server directories: it goes first
		for _, d := range s.Disks {
			if _, err := os.Stat(d); err != nil {
				continue
			}
			if err := disk.Sweep(d); err != nil {
				left.Disks = append(left.Disks, d)
				done = append(done, fmt.Sprintf("could not remove modelled disk %s (kept in %s for the next sweep): %v", d, f, err))
				continue
			}
			done = append(done, "removed modelled disk "+d)
		}
		for _, c := range s.Cgroups {
			if !strings.Contains(filepath.Base(c), Prefix) {
				continue // only ever remove our own
			}
			if _, err := os.Stat(c); err != nil {
				continue
			}
			// a parent cannot go while a child that failed is still there
			if under(c, left.Cgroups) {
				left.Cgroups = append(left.Cgroups, c)
				continue
			}
			if err := removeCgroup(c); err != nil {
				left.Cgroups = append(left.Cgroups, c)
				done = append(done, fmt.Sprintf("could not remove cgroup %s (kept in %s for the next sweep): %v", c, f, err))
				continue
			}
			done = append(done, "removed cgroup "+c)
		}
		done = append(done, sweepDirs(s.Dirs, &left, f)...)
		done = append(done, sweepNets(s.Nets, &left, f)...)
		if len(left.Cgroups) == 0 && len(left.Dirs) == 0 && len(left.Disks) == 0 && len(left.Nets) == 0 {
			os.Remove(f)
			continue
		}
		b, _ = json.Marshal(left)
		if err := os.WriteFile(f+".tmp", b, 0o644); err == nil {
			os.Rename(f+".tmp", f)
		}
	}
	return done
}

func sweepDirs(dirs []string, left *state, f string) []string {
	var done []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			left.Dirs = append(left.Dirs, d)
			done = append(done, fmt.Sprintf("could not remove server directory %s (kept in %s for the next sweep): %v", d, f, err))
			continue
		}
		done = append(done, "removed server directory "+d)
	}
	return done
}

// sweepNets removes a dead shootout's cluster hosts: every namespace and
// link named with a network's id, however far its making got.
func sweepNets(ids []string, left *state, f string) []string {
	var done []string
	for _, id := range ids {
		what := netns.Leftovers(id)
		if len(what) == 0 {
			continue
		}
		if err := netns.Remove(id); err != nil {
			left.Nets = append(left.Nets, id)
			done = append(done, fmt.Sprintf("could not remove network %s (kept in %s for the next sweep): %v", id, f, err))
			continue
		}
		done = append(done, "removed network "+id+": "+strings.Join(what, ", "))
	}
	return done
}

// under is true when one of dirs lies inside parent.
func under(parent string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(d, parent+"/") {
			return true
		}
	}
	return false
}

func alive(p Process) bool {
	if p.PID <= 0 || syscall.Kill(p.PID, 0) != nil {
		return false
	}
	return p.Start == 0 || startTime(p.PID) == p.Start
}

// startTime is field 22 of /proc/PID/stat: when the process started, in
// clock ticks since boot.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

func without(xs []string, drop ...string) []string {
	var out []string
	for _, x := range xs {
		keep := true
		for _, d := range drop {
			if x == d {
				keep = false
			}
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}
