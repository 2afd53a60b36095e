package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"shootout/internal/child"
	"shootout/internal/proto"
)

// ServerCmd prepares a server process: in its own process group so the
// terminal's Ctrl-C reaches shootout (which stops servers in order) and not
// the server directly, and killed by the kernel if shootout itself dies
// (StartProcess starts it so that this holds).
func ServerCmd(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: cred}
	return cmd
}

// Process is a started server (or application server) and the channel
// that closes when it exits.
type Process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// StartProcess starts cmd with the parent-death signal it asks for (or
// SIGKILL) tied to a thread that lives as long as shootout: see package
// child.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	if err := child.Start(cmd); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// PID is the process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited closes when the process has exited and been waited for.
func (p *Process) Exited() <-chan struct{} { return p.exited }

func (p *Process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Stop asks the process to end with sig, and kills it after grace.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) error {
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
	// a server in its own process group (ServerCmd) may have forked
	// workers of its own, as puma's master does: they go with it
	if a := p.cmd.SysProcAttr; a != nil && a.Setpgid {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
	return fmt.Errorf("did not stop within %v and was killed", grace)
}

// managed is what every server shootout starts has: its own directory, the
// process, the pool on the benchmark database, and the settings applied.
type managed struct {
	dir, dataDir string
	keep         bool
	proc         *Process
	db           *sql.DB
	applied      map[string]string
	ep           proto.Endpoint
}

func (m *managed) Endpoint() proto.Endpoint { return m.ep }

func (m *managed) DB() *sql.DB                { return m.db }
func (m *managed) PIDs() []int                { return []int{m.proc.PID()} }
func (m *managed) DataDir() string            { return m.dataDir }
func (m *managed) Applied() map[string]string { return m.applied }

// shutdown closes the pool, asks the server to stop with sig (killing it
// after a minute) and removes its directory.
func (m *managed) shutdown(sig syscall.Signal) error {
	if m.db != nil {
		m.db.Close()
	}
	var err error
	if m.proc != nil {
		err = m.proc.Stop(sig, 60*time.Second)
	}
	removeServerDir(m.dir, m.keep)
	return err
}

// waitReady is WaitReady with a database server's minute.
func (p *Process) waitReady(ctx context.Context, ping func(context.Context) error, name, logFile string) error {
	return p.WaitReady(ctx, ping, name, logFile, 60*time.Second)
}

// WaitReady pings the server until it answers, it exits (the reason is
// in its log), or limit passes. Each try has its own short deadline:
// a socket may accept a connection and never answer, and only the
// server's exit or the limit then ends the wait.
func (p *Process) WaitReady(ctx context.Context, ping func(context.Context) error, name, logFile string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	// 20 ms for a database server's minute; a slower start is asked less often
	pause := max(limit/3000, 20*time.Millisecond)
	for {
		try, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := ping(try)
		cancel()
		if err == nil {
			return nil
		}
		if !p.running() {
			return fmt.Errorf("%s exited during start-up: %s", name, tail(logFile, 8))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s not ready after %v: %v; log: %s", name, limit, err, tail(logFile, 8))
		}
		time.Sleep(pause)
	}
}

// LogTail is the last n lines of the log at path on one line, " | "
// between them ("" if it cannot be read): what an error says of a
// process that failed.
func LogTail(path string, n int) string { return lastLines(tail(path, n), n) }

// Running says whether the process has not exited yet.
func (p *Process) Running() bool { return p.running() }

func (m *managed) execAll(ctx context.Context, qs ...string) error {
	for _, q := range qs {
		if _, err := m.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Mortal is an instance whose server process shootout watches: the run
// stops its clients the moment it exits and names the cause, instead of
// retrying connections to a server that is gone.
type Mortal interface {
	// Exited closes when the server process exits.
	Exited() <-chan struct{}
	// Death says how it ended — the signal that killed it or its exit
	// status — with what its log says of why (a crash report's signal,
	// query and stack, else the last lines); "" while it runs.
	Death() string
}

func (m *managed) Exited() <-chan struct{} { return m.proc.Exited() }

// death describes how the process ended, with what logFile says of why.
func (m *managed) death(logFile string) string {
	if m.proc == nil || m.proc.running() {
		return ""
	}
	how := "exited"
	var ee *exec.ExitError
	if errors.As(m.proc.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			switch {
			case ws.Signaled():
				how = fmt.Sprintf("was killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
			case ws.Exited():
				how = fmt.Sprintf("exited with status %d", ws.ExitStatus())
			}
		}
	} else if m.proc.err == nil {
		how = "exited with status 0"
	}
	if s := logSummary(logFile); s != "" {
		how += "; " + s
	}
	return how
}
