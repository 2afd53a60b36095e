package metrics

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestThreadWaitsSaysWhatTheThreadsDo(t *testing.T) {
	if got := ThreadWaits([]int{os.Getpid()}); !strings.Contains(got, "running") {
		t.Errorf("this test's own process: %q, want a running thread (the one reading)", got)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	waitState := func(want string) {
		for end := time.Now().Add(5 * time.Second); ProcState(pid) != want; {
			if time.Now().After(end) {
				t.Fatalf("sleep never reached state %s (is %q)", want, ProcState(pid))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitState("S")
	if got := ThreadWaits([]int{pid}); got != "1 threads: 1 sleeping" {
		t.Errorf("a sleeping sleep: %q", got)
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	waitState("T")
	if got := ThreadWaits([]int{pid}); got != "1 threads: 1 stopped" {
		t.Errorf("a stopped sleep: %q", got)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if got := ThreadWaits([]int{pid}); !strings.Contains(got, "gone") {
		t.Errorf("an ended sleep: %q", got)
	}
}

func TestTopCountsLargestFirst(t *testing.T) {
	got := topCounts(map[string]int{"a": 1, "b": 5, "c": 3, "d": 5}, 3)
	if got != "b ×5, d ×5, c ×3" {
		t.Fatalf("got %q", got)
	}
}
