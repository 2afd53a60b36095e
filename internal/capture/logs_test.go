package capture

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// loggedServer runs the scenario of the proxy tests straight against a
// private server with its logs on, stops it (so every line is written)
// and returns its data directory and how it was reached.
func loggedServer(t *testing.T, name string, settings map[string]string) (dir, user, password, database string) {
	tg, err := target.Lookup(name)
	must(t, err)
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t), Settings: settings, KeepData: true})
	must(t, err)
	ci := inst.Endpoint()
	driver, dsn, ph := "mysql", "%s:%s@tcp(%s)/%s", func(int) string { return "?" }
	if name == "postgres" {
		driver, dsn, ph = "pgx", "postgres://%s:%s@%s/%s", func(i int) string { return fmt.Sprintf("$%d", i) }
	}
	db, err := sql.Open(driver, fmt.Sprintf(dsn, ci.User, ci.Password, ci.Address, ci.Database))
	must(t, err)
	scenario(t, db, ph, nil)
	must(t, inst.Stop(context.Background()))
	return inst.DataDir(), ci.User, ci.Password, ci.Database
}

// logged is a command as a log can tell it.
type logged struct {
	kind, text     string
	params         []any
	rows, affected int64
	errCode        string
}

func TestFromLogRecordsEachStatementOnceInOrder(t *testing.T) {
	my := map[string]string{"slow_query_log": "1", "slow_query_log_file": "slow.log", "long_query_time": "0",
		"general_log": "1", "general_log_file": "general.log", "log_output": "FILE"}
	pg := map[string]string{"logging_collector": "on", "log_destination": "csvlog", "log_min_duration_statement": "0",
		"log_filename": "pg.log"}
	t.Run("mariadb", func(t *testing.T) {
		dir, user, pw, db := loggedServer(t, "mariadb-innodb", my)
		checkLog(t, filepath.Join(dir, "slow.log"), "slow", user, pw, db, slowA, slowB)
		checkLog(t, filepath.Join(dir, "general.log"), "general", user, pw, db, generalA, []logged{{kind: "query", text: "SELECT count(*) FROM t"}})
	})
	t.Run("postgres", func(t *testing.T) {
		dir, user, pw, db := loggedServer(t, "postgres", pg)
		checkLog(t, filepath.Join(dir, "log", "pg.csv"), "csvlog", user, pw, db, csvA, csvB)
	})
}

var (
	slowA = []logged{
		{kind: "query", text: "CREATE TABLE t (id int primary key, v text)"},
		{kind: "query", text: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)", affected: 3},
		{kind: "query", text: "SELECT v FROM t ORDER BY id", rows: 3},
		{kind: "query", text: "SELECT v FROM t WHERE id = 2", rows: 1},
		{kind: "begin", text: "START TRANSACTION"},
		{kind: "query", text: "UPDATE t SET v = 'c' WHERE id = 3", affected: 1},
		{kind: "commit", text: "COMMIT"},
		{kind: "query", text: "SELECT * FROM missing"},
	}
	slowB    = []logged{{kind: "query", text: "SELECT count(*) FROM t", rows: 1}}
	generalA = []logged{
		{kind: "query", text: "CREATE TABLE t (id int primary key, v text)"},
		{kind: "query", text: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)"},
		{kind: "query", text: "SELECT v FROM t ORDER BY id"},
		{kind: "query", text: "SELECT v FROM t WHERE id = 2"},
		{kind: "begin", text: "START TRANSACTION"},
		{kind: "query", text: "UPDATE t SET v = 'c' WHERE id = 3"},
		{kind: "commit", text: "COMMIT"},
		{kind: "query", text: "SELECT * FROM missing"},
	}
	csvA = []logged{
		{kind: "query", text: "CREATE TABLE t (id int primary key, v text)"},
		{kind: "query", text: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)"},
		{kind: "prepare", text: "SELECT v FROM t ORDER BY id"},
		{kind: "execute", text: "SELECT v FROM t ORDER BY id"},
		{kind: "prepare", text: "SELECT v FROM t WHERE id = $1"},
		{kind: "execute", text: "SELECT v FROM t WHERE id = $1", params: []any{"2"}},
		{kind: "begin", text: "begin"},
		{kind: "prepare", text: "UPDATE t SET v = $1 WHERE id = $2"},
		{kind: "execute", text: "UPDATE t SET v = $1 WHERE id = $2", params: []any{"c", "3"}},
		{kind: "commit", text: "commit"},
		{kind: "query", text: "SELECT * FROM missing", errCode: "42P01"},
		{kind: "prepare", text: "SELECT v FROM missing WHERE id = $1", errCode: "42P01"},
	}
	csvB = []logged{{kind: "prepare", text: "SELECT count(*) FROM t"}, {kind: "execute", text: "SELECT count(*) FROM t"}}
)

// checkLog converts the log and finds the scenario's two sessions in it
// (the target's own setup and pings are there too), each statement once,
// in order; --show reads the capture, and no password is in it.
func checkLog(t *testing.T, log, format, user, pw, db string, a, b []logged) {
	t.Helper()
	out := filepath.Join(t.TempDir(), format+".capture")
	must(t, FromLog(LogOptions{From: log, Format: format, Out: out}))
	raw, err := os.ReadFile(out)
	must(t, err)
	if bytes.Contains(raw, []byte(pw)) {
		t.Errorf("%s: the password is in the capture", format)
	}
	h, lines, err := Read(out)
	must(t, err)
	if !strings.HasPrefix(h.Source, format) || h.ServerVersion == "" || len(h.Missing) == 0 || (h.Timing == TimingSecond) != (format != "csvlog") {
		t.Errorf("%s: header %+v", format, h)
	}
	ours := map[int64]bool{}
	var order []int64
	got := map[int64][]*Command{}
	for _, l := range lines {
		if l.Open != nil && l.Open.User == user && l.Open.Database == db {
			ours[l.Open.Session] = true
		}
		if c := l.Command; c != nil && ours[c.Session] && c.Text != "-- ping" {
			if got[c.Session] == nil {
				order = append(order, c.Session)
			}
			got[c.Session] = append(got[c.Session], c)
			if format != "general" && c.EndNs < c.StartNs || c.StartNs < h.StartNs {
				t.Errorf("%s: times of %+v", format, *c)
			}
		}
	}
	if len(order) != 2 {
		t.Fatalf("%s: %d sessions of the scenario, want 2", format, len(order))
	}
	compareLogged(t, format, got[order[0]], a)
	compareLogged(t, format, got[order[1]], b)
	var show bytes.Buffer
	must(t, Show(&show, out, 120))
	if !strings.Contains(show.String(), "select v from t where id = ?") {
		t.Errorf("%s: --show:\n%s", format, show.String())
	}
}

func compareLogged(t *testing.T, format string, got []*Command, want []logged) {
	t.Helper()
	var g []logged
	for i, c := range got {
		if c.Seq != got[0].Seq+int64(i) {
			t.Errorf("%s: seq %d at %d", format, c.Seq, i)
		}
		l := logged{kind: c.Kind, text: c.Text, params: c.Params, rows: c.Rows, affected: c.Affected}
		if c.Error != nil {
			l.errCode = c.Error.Code
		}
		g = append(g, l)
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", format, g, want)
	}
}

// Bad input is one error naming the file and line, and nothing written.
func TestFromLogRefusesWhatIsNoLogOfItsFormat(t *testing.T) {
	head := "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian 12). started with:\nTcp port: 3306  Unix socket: /s\nTime\t\t    Id Command\tArgument\n"
	general := head + "261128  3:18:20\t     5 Connect\tu@localhost on db using TCP/IP\n\t\t     5 Query\tSELECT 1\n"
	slow := head + "# Time: 261128  3:18:20\n# User@Host: u[u] @  [127.0.0.1]\n# Thread_id: 5  Schema: db  QC_hit: No\n" +
		"# Query_time: 0.000144  Lock_time: 0.000044  Rows_sent: 1  Rows_examined: 0\nSET timestamp=1795835900;\nSELECT 1;\n"
	csvlog := `2026-11-28 03:18:24.757 UTC,"u","db",1,"127.0.0.1:1",s.1,2,"SELECT",2026-11-28 03:18:24 UTC,3/0,0,LOG,00000,"duration: 3.803 ms  statement: SELECT 1",,,,,,,,,"","client backend",,0` + "\n"
	for _, c := range []struct{ format, text, want string }{
		{"slow", general, ":4: not a slow query log"},
		{"general", slow, ":4: not a general query log"},
		{"csvlog", slow, ":1: not a PostgreSQL csvlog"},
		{"slow", strings.TrimSuffix(slow, "\n"), ":9: truncated line"},
		{"slow", strings.TrimSuffix(slow, "SELECT 1;\n"), ":5: an entry with no statement"},
		{"general", strings.TrimSuffix(general, "\n"), ":5: truncated line"},
		{"csvlog", strings.TrimSuffix(csvlog, "\n"), ":1: truncated line"},
		{"csvlog", csvlog + `2026-11-28 03:18:24.757 UTC,"u`, ":2: not a csvlog"},
		{"csvlog", "", "no statement in it"},
		{"csvlog", strings.Replace(csvlog, "duration: 3.803 ms  statement: SELECT 1", "duration: 3.803 ms", 1), ":1: a duration without its statement"},
	} {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.log"), filepath.Join(dir, "out.capture")
		must(t, os.WriteFile(in, []byte(c.text), 0o600))
		err := FromLog(LogOptions{From: in, Format: c.format, Out: out})
		if err == nil || !strings.Contains(err.Error(), in+c.want) && !strings.Contains(err.Error(), c.want) ||
			!strings.HasPrefix(err.Error(), in) || strings.Contains(err.Error(), "\n") || !errors.Is(err, ErrBadInput) {
			t.Errorf("%s %q: %v; want %s%s", c.format, c.want, err, in, c.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s %q: a capture was written", c.format, c.want)
		}
	}
	for _, f := range []string{"slow", "general", "csvlog"} {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.log"), filepath.Join(dir, "out.capture")
		must(t, os.WriteFile(in, []byte(map[string]string{"slow": slow, "general": general, "csvlog": csvlog}[f]), 0o600))
		if err := FromLog(LogOptions{From: in, Format: f, Out: out}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Passwords a statement carries never reach the capture, whatever the
// statement's spelling.
func TestRedactDropsPasswordsInStatements(t *testing.T) {
	for _, s := range []string{
		"CREATE USER 'a'@'%' IDENTIFIED BY 'Secret9'",
		"ALTER USER a IDENTIFIED VIA mysql_native_password USING PASSWORD('Secret9')",
		"SET PASSWORD FOR a = PASSWORD('Secret9')",
		"SET PASSWORD = 'Secret9'",
		"CREATE ROLE app LOGIN PASSWORD 'Secret9'",
		"ALTER ROLE app WITH password 'Sec''ret9'",
	} {
		if r := redact(s); strings.Contains(r, "Secret9") || strings.Contains(r, "ret9") || !strings.Contains(r, "<redacted>") {
			t.Errorf("redact(%q) = %q", s, r)
		}
	}
}
