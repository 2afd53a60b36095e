package metrics

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostLoadCountsOthersNotOurs: a busy loop outside this process's
// tree is the host's load; one of our own children is not.
func TestHostLoadCountsOthersNotOurs(t *testing.T) {
	// what others take anyway (another package's tests, say): the busy
	// loops below are judged by what they add to it
	before := SampleHost()
	time.Sleep(time.Second)
	base := SampleHost().Since(before)

	// our own child, busy for the whole test; it ends by itself after
	// 10 s should the test die before killing it
	child := exec.Command("bash", "-c", busyLoop(10))
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	time.Sleep(200 * time.Millisecond)
	before = SampleHost()
	time.Sleep(time.Second)
	ours := SampleHost().Since(before)
	// the child takes half of two CPUs, a whole one of one
	if ours.Others > base.Others+0.2 {
		t.Errorf("our own busy child counted as others: %+v, %+v without it", ours, base)
	}

	// an orphan: its parent shell exits at once, so it is no longer in
	// our tree; it ends by itself after 5 s and is killed by PID here
	out, err := exec.Command("sh", "-c", "bash -c '"+busyLoop(5)+"' >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("pid of the orphan: %q", out)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	time.Sleep(200 * time.Millisecond)
	before = SampleHost()
	time.Sleep(time.Second)
	theirs := SampleHost().Since(before)
	// one busy process of two CPUs beside our own busy child: half of
	// the CPUs' time at most, a quarter at the least
	if theirs.Others < base.Others+0.25 {
		t.Errorf("a busy process outside our tree took %.0f%% of the CPUs by the sample (%.0f%% without it), want 25 points more", theirs.Others*100, base.Others*100)
	}
	if theirs.Busy() < theirs.Others || theirs.Steal < 0 {
		t.Errorf("busy %v is not steal + others: %+v", theirs.Busy(), theirs)
	}
}

// busyLoop is a shell loop that keeps a CPU busy for seconds and then
// ends without starting another process (bash's own clock).
func busyLoop(seconds int) string {
	return "while [ $SECONDS -lt " + strconv.Itoa(seconds) + " ]; do :; done"
}
