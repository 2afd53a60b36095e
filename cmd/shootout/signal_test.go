package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/disk"
	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// startRun starts `shootout run` on a private MariaDB and returns once the
// server runs, with the server's PID read from shootout's own log line.
func startRun(t *testing.T, out string, extra ...string) (*exec.Cmd, int) {
	t.Helper()
	cmd, pid := startRunOn(t, "mariadb-innodb", out, extra...)
	if pid == 0 {
		cmd.Process.Kill()
		t.Fatal("shootout did not report its server's pid")
	}
	return cmd, pid
}

// startRunOn starts `shootout run` on target tg and returns once its
// clients run, with the server's PID (0 for SQLite, which runs inside
// shootout).
func startRunOn(t *testing.T, tg, out string, extra ...string) (*exec.Cmd, int) {
	t.Helper()
	tgt, _ := target.Lookup(tg)
	testenv.RequireTarget(t, tgt)
	args := append([]string{"run", "--targets", tg, "--workload", "oltp_point_select", "--dataset", "2000",
		"--clients", "2", "--duration", "60s", "--interval", "1s", "--out", out}, extra...)
	cmd := exec.Command(bin, args...)
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
		if strings.HasPrefix(line, "started "+tg+" (pid ") {
			fmt.Sscanf(line, "started "+tg+" (pid %d,", &pid)
		}
		if strings.HasPrefix(line, "[ 2s ]") { // the workload is running
			break
		}
	}
	go io.Copy(io.Discard, stderr)
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

// TestSignalsStopTheServerAndKeepTheResult: SIGTERM and SIGINT end the
// run with exit 1, the interrupted cell recorded with what it measured;
// under SIGTERM the private MariaDB stops and its directory goes. Both
// signals cancel one context (main.go); SIGINT's run is on SQLite, which
// starts no server. What the runner does on the cancelled context is
// internal/run's TestInterrupt… tests, on the fake target.
func TestSignalsStopTheServerAndKeepTheResult(t *testing.T) {
	for _, c := range []struct {
		sig syscall.Signal
		tg  string
	}{{syscall.SIGTERM, "mariadb-innodb"}, {syscall.SIGINT, "sqlite"}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			out := filepath.Join(testenv.WorkDir(t), "res")
			cmd, pid := startRunOn(t, c.tg, out)
			if (pid == 0) != (c.tg == "sqlite") {
				cmd.Process.Kill()
				t.Fatalf("shootout did not report its server's pid")
			}
			cmd.Process.Signal(c.sig)
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
			if pid != 0 && !waitGone(pid, 10*time.Second) {
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

// TestKilledShootoutLeavesNothingBehind: the kernel ends the server when
// shootout is killed with SIGKILL (no cleanup code can run then), and the
// next shootout command that starts something removes the cgroup and the
// server's directory that were left (read-only commands leave them).
func TestKilledShootoutLeavesNothingBehind(t *testing.T) {
	if err := limits.Check(limits.Request{MemoryBytes: 1 << 30}); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	out := filepath.Join(testenv.WorkDir(t), "res")
	// a neighbour too: fio and its job are children shootout starts
	cmd, pid := startRun(t, out, "--memory", "512M", "--neighbour", "x1")
	cg, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	// v1 names the memory controller; v2 has one tree
	if !strings.Contains(string(cg), "memory:/"+limits.Prefix) && !strings.Contains(string(cg), "0::/"+limits.Prefix) {
		t.Fatalf("server not started inside its memory cgroup:\n%s", cg)
	}
	var children []int
	for end := time.Now().Add(10 * time.Second); len(children) < 2 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		children = metrics.Descendants(cmd.Process.Pid) // the server and fio
	}
	if !slices.Contains(children, pid) || len(children) < 2 {
		t.Fatalf("expected the server %d and fio under shootout, found %v", pid, children)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// nothing runs on, before any sweep: each died with shootout
	for _, p := range children {
		if !waitGone(p, 2*time.Second) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			for _, p := range children {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("%d (%s) outlived a SIGKILLed shootout", p, strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	groups := filepath.Join(limits.Root, "memory")
	if limits.Version() == 2 {
		groups = limits.Root
	}
	left, _ := filepath.Glob(filepath.Join(groups, limits.Prefix+strconv.Itoa(cmd.Process.Pid)+"-*"))
	// v1: the server's memory group; v2: the server's tree and, beside
	// it, the client's cpuset group
	if len(left) == 0 || len(left) > 2 {
		t.Fatalf("expected the killed run's cgroups to be there before the sweep, found %v", left)
	}
	// a command that only reads touches nothing
	for _, args := range [][]string{{"targets"}, {"studies"}, {"run", "--dry-run", "--targets", "sqlite", "--workload", "oltp_point_select"}} {
		if _, stderr, _ := shootout(t, nil, args...); strings.Contains(stderr, "cleanup:") {
			t.Fatalf("%v swept: %q", args, stderr)
		}
	}
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("a read-only command removed the cgroup: %v", err)
	}
	_, stderr, code := shootout(t, nil, "run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "100",
		"--duration", "1s", "--out", filepath.Join(testenv.WorkDir(t), "next"))
	if code != 0 || !strings.Contains(stderr, "cleanup: removed cgroup "+left[0]) || !strings.Contains(stderr, "cleanup: removed server directory") {
		t.Fatalf("the next run after a SIGKILL: exit %d, stderr %q", code, stderr)
	}
	for _, g := range left {
		if _, err := os.Stat(g); err == nil {
			t.Fatalf("cgroup %s still there after the sweep", g)
		}
	}
	if dirs, _ := os.ReadDir(filepath.Join(out, "work")); len(dirs) != 0 {
		t.Fatalf("server directory still there: %v", dirs)
	}
}

// TestLimitsWithoutRightsStopBeforeStarting runs shootout as an
// unprivileged user: asking for a memory cap must fail at once, naming what
// is missing, before any server starts.
func TestLimitsWithoutRightsStopBeforeStarting(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	os.Chmod(filepath.Dir(bin), 0o755)
	cmd := exec.Command(bin, "run", "--targets", "mariadb-innodb", "--workload", "oltp_point_select", "--memory", "1G", "--out", "/nonexistent/x")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "creating cgroups needs root") || !strings.Contains(string(out), "--allow-unlimited") {
		t.Fatalf("exit %v, output %q", err, out)
	}
}

func TestCalibrateMeasuresTheDiskAndTheCap(t *testing.T) {
	if err := limits.Check(limits.Request{IOPS: 100}); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := testenv.WorkDir(t)
	stdout, stderr, code := shootout(t, nil, "calibrate", "--dir", dir, "--seconds", "1", "--iops", "100", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "calibration.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cal limits.Calibration
	if err := json.Unmarshal(b, &cal); err != nil {
		t.Fatal(err)
	}
	capped, free := cal.IOPS["randread_qd1_capped"], cal.IOPS["randread_qd1"]
	t.Logf("random 4k reads: %.0f IOPS free, %.0f under a 100 IOPS cap", free, capped)
	if capped <= 0 || capped > 120 || free <= capped {
		t.Fatalf("calibration %+v", cal.IOPS)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "calibrate-*")); len(left) != 0 {
		t.Fatalf("fio file left: %v", left)
	}
}

// TestKilledShootoutLeavesNoDiskBehind SIGKILLs a run whose data is on a
// modelled disk: the FUSE server dies with shootout, and the next
// command's sweep unmounts the file system, frees the loop device,
// unmounts the image and removes the disk's directory.
func TestKilledShootoutLeavesNoDiskBehind(t *testing.T) {
	if err := disk.Check(); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	before, _ := filepath.Glob(filepath.Join(disk.Root, "cell-*"))
	cmd, pid := startRun(t, filepath.Join(testenv.WorkDir(t), "res"), "--disk", "cloud")
	now, _ := filepath.Glob(filepath.Join(disk.Root, "cell-*"))
	var mine []string
	for _, d := range now {
		if !slices.Contains(before, d) {
			mine = append(mine, d)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("expected one new disk directory in %s, found %v", disk.Root, mine)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !waitGone(pid, 10*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("mariadbd %d outlived a SIGKILLed shootout", pid)
	}
	_, stderr, code := shootout(t, nil, "run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "100",
		"--duration", "1s", "--out", filepath.Join(testenv.WorkDir(t), "next"))
	if code != 0 || !strings.Contains(stderr, "cleanup: removed modelled disk "+mine[0]) {
		t.Fatalf("the next run after a SIGKILL: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(mine[0]); err == nil {
		t.Errorf("%s still there after the sweep", mine[0])
	}
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), mine[0]) {
		t.Errorf("still mounted after the sweep: %s", mine[0])
	}
	loops, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, b := range loops {
		if got, _ := os.ReadFile(b); strings.Contains(string(got), mine[0]) {
			t.Errorf("loop device still attached to %s", got)
		}
	}
}
