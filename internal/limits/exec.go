package limits

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// execArg marks a re-executed shootout that only joins cgroups and then
// becomes the server: cgroup v1 does not move memory already charged, so
// the server must be inside its group before it allocates anything.
const execArg = "__shootout_cgexec"

// Wrap rewrites cmd so that it first joins g and then execs the server.
// The server's user (cmd's Credential) is taken on in the helper, after
// joining, since an unprivileged process cannot write to cgroup.procs.
func (g *Group) Wrap(cmd *exec.Cmd) error { return wrapWith(cmd, g.ProcsFiles()) }

func wrapWith(cmd *exec.Cmd, procs []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{self, execArg, strings.Join(procs, ",")}
	if sp := cmd.SysProcAttr; sp != nil && sp.Credential != nil {
		args = append(args, strconv.Itoa(int(sp.Credential.Uid)), strconv.Itoa(int(sp.Credential.Gid)))
		sp.Credential = nil
	} else {
		args = append(args, "-", "-")
	}
	args = append(args, cmd.Path)
	args = append(args, cmd.Args[1:]...)
	cmd.Path, cmd.Args = self, args
	return nil
}

// MaybeExec is called first thing in main (and in TestMain of packages
// whose tests start limited servers). In a helper process it joins the
// cgroups, takes on the server's user, and execs the server; it never
// returns there. Elsewhere it does nothing.
func MaybeExec() {
	if len(os.Args) < 6 || os.Args[1] != execArg {
		return
	}
	if err := helper(os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[5:]); err != nil {
		fmt.Fprintln(os.Stderr, "shootout cgroup exec:", err)
		os.Exit(127)
	}
}

func helper(procs, uid, gid, path string, argv []string) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, f := range strings.Split(procs, ",") {
		if err := os.WriteFile(f, pid, 0o644); err != nil {
			return fmt.Errorf("join %s: %w", f, err)
		}
	}
	if uid != "-" {
		u, _ := strconv.Atoi(uid)
		g, _ := strconv.Atoi(gid)
		if err := syscall.Setgroups(nil); err != nil {
			return err
		}
		if err := syscall.Setgid(g); err != nil {
			return err
		}
		if err := syscall.Setuid(u); err != nil {
			return err
		}
		// changing user clears the parent-death signal: set it again so
		// the server still dies with shootout
		if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
			return err
		}
	}
	return syscall.Exec(path, argv, os.Environ())
}
