package child

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const helperEnv = "SHOOTOUT_CHILD_TEST_HELPER"

// TestMain makes the test binary, re-executed with helperEnv, a stand-in
// for shootout: it starts a child the way shootout does, from a goroutine
// whose thread then exits, prints the child's pid and waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "" {
		os.Exit(m.Run())
	}
	// the main thread is never ended (the runtime parks it instead): keep
	// it here, so the goroutine below runs on a thread that can end
	runtime.LockOSThread()
	started := make(chan int)
	go func() {
		// returning without UnlockOSThread ends this thread: a child whose
		// parent-death signal were tied to it would die now
		runtime.LockOSThread()
		cmd := exec.Command("sleep", "60")
		if err := Start(cmd); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		started <- cmd.Process.Pid
	}()
	fmt.Println(<-started)
	time.Sleep(time.Hour) // until killed
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

func TestChildDiesWithShootoutAndNotBefore(t *testing.T) {
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), helperEnv+"=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { helper.Process.Kill(); helper.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	// the thread that asked for the child has exited by now
	time.Sleep(300 * time.Millisecond)
	if !alive(pid) {
		t.Fatalf("the child %d died when the thread that asked for it exited, with shootout still running", pid)
	}
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	for end := time.Now().Add(time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the child %d still runs 1 s after its shootout was SIGKILLed", pid)
		}
	}
}

func TestOutputsAsExecGivesThem(t *testing.T) {
	out, err := Output(exec.Command("sh", "-c", "echo out; echo err >&2; exit 3"))
	ee, ok := err.(*exec.ExitError)
	if string(out) != "out\n" || !ok || ee.ExitCode() != 3 || string(ee.Stderr) != "err\n" {
		t.Fatalf("Output: %q, %v", out, err)
	}
	out, err = CombinedOutput(exec.Command("sh", "-c", "echo out; echo err >&2"))
	if err != nil || string(out) != "out\nerr\n" {
		t.Fatalf("CombinedOutput: %q, %v", out, err)
	}
}
