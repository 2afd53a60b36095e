// Package child starts the processes shootout runs — servers, fio, puma,
// initdb and the other tools — so that each dies with shootout: a
// SIGKILLed shootout runs no handler, and what it started would otherwise
// run on (and load the machine) until the next command's sweep.
//
// The kernel's parent-death signal (PR_SET_PDEATHSIG) does it, with one
// catch: "parent" is the thread that forked the child, not the process.
// A Go program's threads come and go under it (a goroutine that locks its
// thread and returns takes the thread with it), and a child forked from
// such a thread would be killed in the middle of a cell. So every child
// is forked from one thread that lives as long as shootout: a goroutine
// that locks it and never returns.
package child

import (
	"bytes"
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	starts    = make(chan startReq)
	startOnce sync.Once
)

// starter is the thread every child is forked from. It never returns, so
// its locked thread never exits while shootout runs.
func starter() {
	runtime.LockOSThread()
	for r := range starts {
		r.done <- r.cmd.Start()
	}
}

// Start starts cmd from the long-lived thread, with a parent-death signal:
// cmd's own if it set one, SIGKILL otherwise. Wait may be called from any
// goroutine.
func Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.Pdeathsig == 0 {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	startOnce.Do(func() { go starter() })
	done := make(chan error, 1)
	starts <- startReq{cmd, done}
	return <-done
}

// Run is cmd.Run through Start.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// Output is cmd.Output through Start: its standard output, and in an
// *exec.ExitError its standard error, as exec's Output gives them.
func Output(cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil {
		return nil, errors.New("child: Stdout already set")
	}
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	if cmd.Stderr == nil {
		cmd.Stderr = &errOut
	}
	err := Run(cmd)
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) == 0 {
		ee.Stderr = errOut.Bytes()
	}
	return out.Bytes(), err
}

// CombinedOutput is cmd.CombinedOutput through Start.
func CombinedOutput(cmd *exec.Cmd) ([]byte, error) {
	if cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("child: Stdout or Stderr already set")
	}
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := Run(cmd)
	return b.Bytes(), err
}
