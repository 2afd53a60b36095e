package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// startRun starts `shootout run` on a private MariaDB and returns once the
// server runs, with the server's PID read from shootout's own log line.
func startRun(t *testing.T, out string) (*exec.Cmd, int) {
	t.Helper()
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	cmd := exec.Command(bin, "run", "--targets", "mariadb-innodb", "--workload", "oltp_point_select", "--dataset", "2000",
		"--clients", "2", "--duration", "60s", "--interval", "1s", "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	pid := 0
	deadline := time.Now().Add(60 * time.Second)
	for sc.Scan() && time.Now().Before(deadline) {
		line := sc.Text()
		if strings.HasPrefix(line, "started mariadb-innodb (pid ") {
			fmt.Sscanf(line, "started mariadb-innodb (pid %d,", &pid)
		}
		if strings.HasPrefix(line, "[ 2s ]") { // the workload is running
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if pid == 0 {
		cmd.Process.Kill()
		t.Fatal("shootout did not report its server's pid")
	}
	return cmd, pid
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	// a zombie is dead for our purpose
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

func waitGone(pid int, within time.Duration) bool {
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

func TestSignalsStopTheServerAndKeepTheResult(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(testenv.WorkDir(t), "res")
			cmd, pid := startRun(t, out)
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(90 * time.Second):
				cmd.Process.Kill()
				t.Fatal("shootout did not exit after the signal")
			}
			if cmd.ProcessState.ExitCode() != 1 {
				t.Errorf("exit %d, want 1 (interrupted)", cmd.ProcessState.ExitCode())
			}
			if !waitGone(pid, 10*time.Second) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("mariadbd %d outlived shootout", pid)
			}
			files, err := result.ReadDir(out)
			if err != nil || len(files) != 1 || !strings.Contains(files[0].Status, "interrupted") || files[0].Throughput.Events == 0 {
				t.Fatalf("interrupted cell not recorded with what it measured: %v %+v", err, files)
			}
			if left, _ := os.ReadDir(filepath.Join(out, "work")); len(left) != 0 {
				t.Errorf("server directory left behind: %v", left)
			}
		})
	}
}

// TestKilledShootoutTakesItsServerAlong: the kernel ends the server when
// shootout is killed with SIGKILL (no cleanup code can run then).
func TestKilledShootoutTakesItsServerAlong(t *testing.T) {
	out := filepath.Join(testenv.WorkDir(t), "res")
	cmd, pid := startRun(t, out)
	cmd.Process.Kill()
	cmd.Wait()
	if !waitGone(pid, 10*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("mariadbd %d outlived a SIGKILLed shootout", pid)
	}
}
