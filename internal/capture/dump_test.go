package capture

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shootout/internal/target"
)

// --dump: the proxy dumps the database before it lets the first session
// through, so the dump holds what was there before the capture and not
// what the captured sessions wrote; the password reaches the tool by a
// pipe or the environment, never its command line or a file.
func TestProxyDumpHoldsTheDataTheCaptureStartedFrom(t *testing.T) {
	for _, c := range []struct{ target, scheme, driver, dsn string }{
		{"mariadb-innodb", "mysql", "mysql", "%s:%s@tcp(%s)/%s"},
		{"postgres", "postgres", "pgx", "postgres://%s:%s@%s/%s"},
	} {
		t.Run(c.target, func(t *testing.T) {
			ci := server(t, c.target)
			direct, err := sql.Open(c.driver, fmt.Sprintf(c.dsn, ci.User, ci.Password, ci.Address, ci.Database))
			must(t, err)
			defer direct.Close()
			for _, q := range []string{"CREATE TABLE d (id int primary key, v text)", "INSERT INTO d VALUES (1, 'before-the-capture')"} {
				_, err := direct.Exec(q)
				must(t, err)
			}
			port, err := target.FreeLoopbackPort()
			must(t, err)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			out := filepath.Join(t.TempDir(), "app.capture")
			o := Options{Listen: addr, Out: out, Dump: DumpTake,
				To: fmt.Sprintf("%s://%s:%s@%s/%s", c.scheme, ci.User, ci.Password, ci.Address, ci.Database)}
			protocol, server, _ := parseTo(o.To)
			_, plan, err := planDump(o, protocol, server)
			must(t, err)
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			cmd, cleanup, err := plan.command(context.Background())
			must(t, err)
			if strings.Contains(strings.Join(cmd.Args, " "), ci.Password) {
				t.Errorf("the password is on the dump tool's command line: %q", cmd.Args)
			}
			noFileHolds(t, tmp, ci.Password)
			cleanup()
			var log bytes.Buffer
			o.Log = &log
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- Run(ctx, o) }()
			// the application connects at once: the proxy holds it until the dump is taken
			app, err := sql.Open(c.driver, fmt.Sprintf(c.dsn, ci.User, ci.Password, addr, ci.Database))
			must(t, err)
			for i := 0; app.Ping() != nil; i++ {
				if i == 100 {
					t.Fatal("the proxy never let a session through")
				}
				time.Sleep(50 * time.Millisecond)
			}
			_, err = app.Exec("INSERT INTO d VALUES (2, 'during-the-capture')")
			must(t, err)
			must(t, app.Close())
			cancel()
			must(t, <-done)
			checkDump(t, out, ci.Password, log.String())
		})
	}
}

// noFileHolds fails if a file under dir holds the password: one left by
// a SIGKILLed shootout would stay there.
func noFileHolds(t *testing.T, dir, password string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if b, rerr := os.ReadFile(path); err == nil && !d.IsDir() && rerr == nil && bytes.Contains(b, []byte(password)) {
			t.Errorf("%s holds the password", path)
		}
		return nil
	})
}

func checkDump(t *testing.T, out, password, log string) {
	t.Helper()
	h, _, err := Read(out)
	must(t, err)
	d := h.Dump
	if d == nil || !d.Taken || d.File != "app.capture.dump.sql" || d.Tool == "" || d.StartNs == 0 || d.EndNs < d.StartNs || h.StartNs < d.EndNs {
		t.Fatalf("header's dump: %+v (capture started %d)", d, h.StartNs)
	}
	dump, err := os.ReadFile(filepath.Join(filepath.Dir(out), d.File))
	must(t, err)
	if !bytes.Contains(dump, []byte("before-the-capture")) || bytes.Contains(dump, []byte("during-the-capture")) {
		t.Errorf("the dump does not hold the data the capture started from:\n%s", dump)
	}
	capture, _ := os.ReadFile(out)
	for what, b := range map[string][]byte{"capture": capture, "log": []byte(log), "dump": dump} {
		if bytes.Contains(b, []byte(password)) {
			t.Errorf("the password is in the %s", what)
		}
	}
}

// A dump named by the user is recorded as given, and must be there; a
// dump to take needs the database.
func TestDumpOptionsAreCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	named := filepath.Join(dir, "start.sql")
	must(t, os.WriteFile(named, []byte("CREATE TABLE x (i int);\n"), 0o600))
	out := filepath.Join(dir, "c.capture")
	for _, c := range []struct{ dump, to, want string }{
		{filepath.Join(dir, "none.sql"), "mysql://u:p@127.0.0.1:1/db", "--dump: stat " + dir},
		{DumpTake, "mysql://u:p@127.0.0.1:1", "--dump: --to names no database"},
	} {
		err := Run(context.Background(), Options{Listen: "127.0.0.1:0", To: c.to, Out: out, Dump: c.dump})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrBadInput) {
			t.Errorf("--dump %s: %v; want %s", c.dump, err, c.want)
		}
	}
	d, _, err := planDump(Options{Dump: named, Out: out}, ProtoMySQL, "127.0.0.1:1")
	if err != nil || d.File != named || d.Taken {
		t.Errorf("a named dump: %+v, %v", d, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad --dump left a capture behind")
	}
	passwordFromEnv(t, out)
}

// A --to without a password takes it from the variable the protocol's
// clients read; one in the URL comes first.
func passwordFromEnv(t *testing.T, out string) {
	t.Setenv("MYSQL_PWD", "from-mysql-pwd")
	t.Setenv("PGPASSWORD", "from-pgpassword")
	for _, c := range []struct{ to, want string }{
		{"mysql://app@127.0.0.1:3306/shop", "from-mysql-pwd"},
		{"postgres://app@127.0.0.1:5432/shop", "from-pgpassword"},
		{"mysql://app:in-url@127.0.0.1:3306/shop", "in-url"},
	} {
		protocol, server, err := parseTo(c.to)
		must(t, err)
		_, plan, err := planDump(Options{To: c.to, Out: out, Dump: DumpTake}, protocol, server)
		if err != nil || plan.password != c.want || plan.user != "app" {
			t.Errorf("--to %s: %+v, %v; want the password %s", c.to, plan, err, c.want)
		}
	}
}
