package agent

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Two threads that want one CPU for the same time each wait for it about
// as long as the other runs: selfSched counts both, the wait too (what
// tells an agent short of CPU in a closed loop).
func TestSelfSchedCountsTheWaitForACPU(t *testing.T) {
	var one unix.CPUSet
	one.Set(0)
	before := selfSched()
	var spun sync.WaitGroup
	measured := make(chan struct{})
	for range 2 {
		spun.Add(1)
		go func() {
			// the thread ends with the goroutine, and its affinity with it;
			// it stays until measured (an exited thread's times are gone)
			runtime.LockOSThread()
			defer func() { spun.Done(); <-measured }()
			if err := unix.SchedSetaffinity(0, &one); err != nil {
				t.Error(err)
				return
			}
			for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
			}
		}()
	}
	spun.Wait()
	d := selfSched().minus(before)
	close(measured)
	t.Logf("run %v, wait %v", time.Duration(d.run), time.Duration(d.wait))
	// each was runnable its 300 ms, and at most one ran at a time (fewer
	// on a loaded CPU): they ran at most 300 ms and waited the rest
	if d.run+d.wait < int64(500*time.Millisecond) || d.wait < int64(200*time.Millisecond) {
		t.Fatalf("run %v, wait %v: two threads spinning 300 ms on one CPU were runnable 600 ms, and waited half of it or more", time.Duration(d.run), time.Duration(d.wait))
	}
}
