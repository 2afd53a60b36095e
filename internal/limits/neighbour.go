package limits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shootout/internal/child"
	"shootout/internal/fio"
)

// NeighbourFileBytes is the default size of the file the neighbours read
// and write (plan key neighbour_file, 16M to 2G): direct IO makes the
// device, not a cache, serve them; small enough to lay out in a moment.
const NeighbourFileBytes = 256 << 20

// NeighbourSpec is one of the seed's neighbour loads: "0" (none), "25%" (one
// job rate-limited to a quarter of the disk's IOPS), "x1", "x2", "x4" (1, 2,
// 4 jobs at full speed). All are random 4k blocks, 50/50 read/write, direct
// IO, on the disk of the server's data.
type NeighbourSpec string

// Jobs and rate of a spec; rate is IOPS per direction, 0 for unlimited.
func (s NeighbourSpec) jobs(diskIOPS int) (jobs, rate int, err error) {
	switch s {
	case "25%":
		if diskIOPS <= 0 {
			return 0, 0, errors.New("neighbour 25% is a quarter of the disk's IOPS: give --iops (the cap the disk has) or --disk (a model)")
		}
		r := diskIOPS / 4
		if r < 1 {
			r = 1
		}
		return 1, r, nil
	case "x1":
		return 1, 0, nil
	case "x2":
		return 2, 0, nil
	case "x4":
		return 4, 0, nil
	}
	return 0, 0, fmt.Errorf("neighbour %q is not one of 0, 25%%, x1, x2, x4", string(s))
}

// Neighbour is a running fio.
type Neighbour struct {
	cmd    *exec.Cmd
	out    bytes.Buffer
	errOut bytes.Buffer
	done   chan error
	Jobs   int
	Rate   int
	Dir    string
}

// CheckNeighbour reports whether fio can run a spec here.
func CheckNeighbour(spec NeighbourSpec, diskIOPS int) error {
	if spec == "0" || spec == "" {
		return nil
	}
	if _, _, err := spec.jobs(diskIOPS); err != nil {
		return err
	}
	if _, err := exec.LookPath("fio"); err != nil {
		return errors.New("fio not found; fix: apt-get install -y fio")
	}
	return nil
}

// StartNeighbour lays out its file under workDir and starts fio for at most
// maxRun (fio stops by itself then, even if shootout is gone). In g's blkio
// group, when there is one, fio shares the server's IOPS cap, as VMs share
// a disk. It returns once fio's jobs run; if ctx ends first, fio is killed.
func StartNeighbour(ctx context.Context, spec NeighbourSpec, workDir string, fileBytes int64, diskIOPS int, maxRun time.Duration, g *Group) (_ *Neighbour, err error) {
	jobs, rate, err := spec.jobs(diskIOPS)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(workDir, "neighbour-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	file := filepath.Join(dir, "fio.dat")
	if fileBytes <= 0 {
		fileBytes = NeighbourFileBytes
	}
	if err := layOut(file, fileBytes); err != nil {
		return nil, err
	}
	secs := int(maxRun.Seconds())
	if secs < 1 {
		secs = 1
	}
	args := []string{"--name=shootout-neighbour", "--filename=" + file, fmt.Sprintf("--size=%d", fileBytes),
		"--rw=randrw", "--rwmixread=50", "--bs=" + strconv.Itoa(NeighbourBlockBytes), "--direct=1", "--ioengine=psync", "--iodepth=1",
		fmt.Sprintf("--numjobs=%d", jobs), "--thread", "--group_reporting", "--time_based", fmt.Sprintf("--runtime=%d", secs),
		"--output-format=json"}
	if rate > 0 {
		args = append(args, fmt.Sprintf("--rate_iops=%d,%d", rate, rate))
	}
	fio, err := exec.LookPath("fio")
	if err != nil {
		return nil, errors.New("fio not found; fix: apt-get install -y fio")
	}
	// fio links some forty libraries; started cold inside the capped
	// group, the loader's page faults read them at the cap's pace (10 s
	// at 100 IOPS here). One uncapped start first puts them in the page
	// cache.
	if out, err := child.CombinedOutput(exec.Command(fio, "--version")); err != nil {
		return nil, fmt.Errorf("fio --version: %v: %s", err, strings.TrimSpace(string(out)))
	}
	cmd := exec.Command(fio, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	n := &Neighbour{cmd: cmd, done: make(chan error, 1), Jobs: jobs, Rate: rate, Dir: dir}
	cmd.Stdout, cmd.Stderr = &n.out, &n.errOut
	if g != nil && len(g.shared) > 0 {
		if err := g.wrapShared(cmd); err != nil {
			return nil, err
		}
	}
	if err := child.Start(cmd); err != nil {
		return nil, fmt.Errorf("start fio: %w", err)
	}
	go func() { n.done <- cmd.Wait() }()
	// Until fio has started its jobs it has no SIGINT handler (a SIGINT
	// then ends it without a report) and it loads nothing. The measured
	// run must not begin before the neighbour does. The jobs are threads
	// (--thread), not forked processes: a job process outlives a killed
	// fio (and so a SIGKILLed shootout) to the end of its runtime, a
	// thread dies with it.
	if err := waitForJobs(ctx, cmd.Process.Pid, jobs, n.done, neighbourStartTimeout); err != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-n.done:
		case <-time.After(5 * time.Second):
		}
		return nil, fmt.Errorf("fio did not start its %d job(s): %v %s", jobs, err, strings.TrimSpace(n.errOut.String()))
	}
	return n, nil
}

// neighbourStartTimeout bounds the wait for fio's jobs.
const neighbourStartTimeout = 60 * time.Second

// waitForJobs waits until the fio process pid has started its jobs (a
// thread each, beside its main and helper threads), or has exited, or
// within has passed, or ctx is done.
func waitForJobs(ctx context.Context, pid, jobs int, exited chan error, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		if tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid)); err == nil && len(tasks) >= jobs+2 {
			return nil
		}
		select {
		case err := <-exited:
			exited <- err // for Stop's reader, were there one
			return fmt.Errorf("fio exited (%v)", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still none after %s", within)
		}
	}
}

// PIDs are fio's processes started here (its jobs are its threads).
func (n *Neighbour) PIDs() []int { return []int{n.cmd.Process.Pid} }

// NeighbourBlockBytes is the size of every neighbour IO.
const NeighbourBlockBytes = 4096

// NeighbourResult is what fio achieved.
type NeighbourResult struct {
	ReadIOPS, WriteIOPS float64
}

// Stop ends fio (SIGINT makes it stop and report), reads what it achieved,
// and removes its file.
func (n *Neighbour) Stop() (NeighbourResult, error) {
	defer os.RemoveAll(n.Dir)
	syscall.Kill(-n.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-n.done:
	case <-time.After(15 * time.Second):
		syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		<-n.done
		return NeighbourResult{}, errors.New("fio did not stop on SIGINT and was killed")
	}
	var r NeighbourResult
	var err error
	if r.ReadIOPS, r.WriteIOPS, err = fio.IOPS(n.out.Bytes()); err != nil {
		return NeighbourResult{}, fmt.Errorf("%v (fio %v) %s", err, n.cmd.ProcessState, strings.TrimSpace(n.errOut.String()))
	}
	return r, nil
}

// layOut writes the neighbour's file with real blocks: reads of a sparse
// file's holes never reach the disk.
func layOut(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*131 + 7)
	}
	for written := int64(0); written < size; written += int64(len(buf)) {
		if _, err := f.Write(buf); err != nil {
			return fmt.Errorf("lay out neighbour file %s: %w", path, err)
		}
	}
	return f.Sync()
}

// wrapShared is Wrap into the part of the group that holds the disk cap
// only: fio shares the server's IOPS, but its few pages must not count
// against the server's memory, nor its CPU against the server's quota.
func (g *Group) wrapShared(cmd *exec.Cmd) error { return wrapWith(cmd, g.shared) }
