package target

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// serverCmd prepares a server process: in its own process group so the
// terminal's Ctrl-C reaches shootout (which stops servers in order) and not
// the server directly, and killed by the kernel if shootout itself dies.
func serverCmd(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: cred}
	return cmd
}

// process is a started server and the channel that closes when it exits.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

func startProcess(cmd *exec.Cmd) (*process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop asks the server to shut down with sig, and kills it after grace.
func (p *process) stop(sig syscall.Signal, grace time.Duration) error {
	if !p.running() {
		return nil
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
	return errors.New("server did not stop in time and was killed")
}
