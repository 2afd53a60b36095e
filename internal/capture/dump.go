package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"shootout/internal/child"
)

// DumpTake is Options.Dump's value asking the proxy to take the dump
// itself (--dump with no file).
const DumpTake = "take"

// Dump is the header's record of the data the capture started from.
type Dump struct {
	// File is the path as the user gave it (--dump FILE), or the dump
	// the proxy took, named relative to the capture's directory so the
	// two move together.
	File    string `json:"file"`
	Taken   bool   `json:"taken"`          // the proxy took it at its start
	Tool    string `json:"tool,omitempty"` // mariadb-dump, pg_dump
	Format  string `json:"format"`         // "sql": statements a client runs
	StartNs int64  `json:"start_ns,omitempty"`
	EndNs   int64  `json:"end_ns,omitempty"`
}

// dumpPlan is a dump to take: the --to URL's database and credentials,
// which go to the tool by a pipe or the environment, never on its
// command line, in a file, in the capture or in an error.
type dumpPlan struct {
	protocol, host, port, user, password, database string
	path, rel                                      string
}

// planDump checks --dump before anything listens: a named dump must
// exist, a dump to take needs the database and a file name free beside
// the capture.
func planDump(o Options, protocol, addr string) (*Dump, *dumpPlan, error) {
	switch o.Dump {
	case "":
		return nil, nil, nil
	case DumpTake:
	default:
		d, err := namedDump(o.Dump)
		return d, nil, err
	}
	u, _ := url.Parse(o.To) // parseTo has read it
	db := strings.Trim(u.Path, "/")
	if db == "" {
		return nil, nil, badInput("--dump: --to names no database to dump (mysql://USER@HOST:PORT/DATABASE, the password in MYSQL_PWD)")
	}
	p := &dumpPlan{protocol: protocol, user: u.User.Username(), database: db}
	p.password = password(u, protocol)
	p.host, p.port, _ = net.SplitHostPort(addr)
	p.rel = filepath.Base(o.Out) + ".dump.sql"
	p.path = filepath.Join(filepath.Dir(o.Out), p.rel)
	for _, f := range []string{o.Out, p.path} {
		if _, err := os.Stat(f); err == nil {
			return nil, nil, badInput("--dump: %s exists (a capture and its dump are never overwritten)", f)
		}
	}
	return &Dump{File: p.rel, Taken: true, Format: "sql"}, p, nil
}

// password is the URL's, else the environment's: the variable each
// protocol's own clients read, so the password need not be on
// shootout's command line either.
func password(u *url.URL, protocol string) string {
	if pw, ok := u.User.Password(); ok {
		return pw
	}
	if protocol == ProtoPostgres {
		return os.Getenv("PGPASSWORD")
	}
	return os.Getenv("MYSQL_PWD")
}

// namedDump is a dump the user names: it must be there.
func namedDump(path string) (*Dump, error) {
	switch path {
	case "":
		return nil, nil
	case DumpTake:
		return nil, badInput("--dump: only the proxy takes a dump; name the one the log started from with --dump=FILE")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, badInput("--dump: %w", err)
	}
	return &Dump{File: path, Format: "sql"}, nil
}

// take runs the dump tool: MariaDB's in one transaction
// (--single-transaction, consistent for InnoDB), pg_dump always in one
// snapshot. It is started through child, so it dies with shootout. A
// failed dump leaves no file.
func (p *dumpPlan) take(ctx context.Context, d *Dump) (err error) {
	d.StartNs = now()
	defer func() {
		d.EndNs = now()
		if err != nil {
			os.Remove(p.path)
		}
	}()
	cmd, cleanup, err := p.command(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	d.Tool = filepath.Base(cmd.Path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := child.Run(cmd); err != nil {
		return fmt.Errorf("--dump: %s of %s: %v: %s", d.Tool, p.database, err, lastLine(stderr.String()))
	}
	return nil
}

// command is the dump tool's command; cleanup closes what it holds open
// once the tool has run (or if it never does).
func (p *dumpPlan) command(ctx context.Context) (*exec.Cmd, func(), error) {
	if p.protocol == ProtoPostgres {
		tool, err := exec.LookPath("pg_dump")
		if err != nil {
			return nil, nil, fmt.Errorf("--dump: %w", err)
		}
		cmd := exec.CommandContext(ctx, tool, "--host", p.host, "--port", p.port, "--username", p.user,
			"--no-password", "--format=plain", "--file", p.path, p.database)
		cmd.Env = os.Environ()
		if p.password != "" {
			cmd.Env = append(cmd.Env, "PGPASSWORD="+p.password)
		}
		return cmd, func() {}, nil
	}
	tool, err := exec.LookPath("mariadb-dump")
	if err != nil {
		if tool, err = exec.LookPath("mysqldump"); err != nil {
			return nil, nil, fmt.Errorf("--dump: neither mariadb-dump nor mysqldump is installed")
		}
	}
	opt, err := optionPipe(p.user, p.password)
	if err != nil {
		return nil, nil, err
	}
	// the option file must be the first argument; ExtraFiles[0] is the
	// child's descriptor 3
	cmd := exec.CommandContext(ctx, tool, "--defaults-extra-file=/dev/fd/3", "--protocol=TCP", "--host", p.host,
		"--port", p.port, "--single-transaction", "--routines", "--triggers", "--result-file", p.path, p.database)
	cmd.ExtraFiles = []*os.File{opt}
	return cmd, func() { opt.Close() }, nil
}

// optionPipe holds the credentials for the MariaDB client tools in a
// pipe, its read end returned: no file ever holds the password, so none
// is left behind when shootout is killed before it could remove one.
// The option file is a few bytes, far under a pipe's buffer, so it is
// written whole before the tool starts.
func optionPipe(user, password string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("--dump: %w", err)
	}
	defer w.Close()
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	opt := fmt.Sprintf("[client]\nuser=\"%s\"\n", q.Replace(user))
	if password != "" {
		opt += fmt.Sprintf("password=\"%s\"\n", q.Replace(password))
	}
	if _, err := io.WriteString(w, opt); err != nil {
		r.Close()
		return nil, fmt.Errorf("--dump: the option pipe: %w", err)
	}
	return r, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
