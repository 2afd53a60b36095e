package capture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/proto"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// server starts a private server of the target and returns how to reach it.
func server(t *testing.T, name string) proto.Endpoint {
	t.Helper()
	return start(t, name).Endpoint()
}

func start(t *testing.T, name string) target.Instance {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	return inst
}

// proxied runs the proxy in front of the server until the returned stop
// is called, which waits for the capture file to be complete.
func proxied(t *testing.T, scheme string, ci proto.Endpoint) (addr, out string, stop func()) {
	t.Helper()
	port, err := target.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	out = filepath.Join(t.TempDir(), "capture.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var log bytes.Buffer
	go func() {
		done <- Run(ctx, Options{Listen: addr, Out: out, Log: &log,
			To: fmt.Sprintf("%s://%s:%s@%s/%s", scheme, ci.User, ci.Password, ci.Address, ci.Database)})
	}()
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 100 {
			t.Fatalf("the proxy does not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr, out, func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		for _, pw := range []string{ci.Password, newSecret} {
			if bytes.Contains(b, []byte(pw)) || bytes.Contains(log.Bytes(), []byte(pw)) {
				t.Errorf("a password is in the capture or the log:\n%s\n%s", b, log.String())
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// scenario is what the test's application sends: session A runs text
// queries, a prepared statement with a parameter, a transaction and an
// error while session B runs one query; both then quit.
func scenario(t *testing.T, db *sql.DB, ph func(int) string, extra func(*testing.T, *sql.Conn)) {
	ctx := context.Background()
	a, err := db.Conn(ctx)
	must(t, err)
	b, err := db.Conn(ctx)
	must(t, err)
	for _, q := range []string{"CREATE TABLE t (id int primary key, v text)", "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)"} {
		_, err := a.ExecContext(ctx, q)
		must(t, err)
	}
	rows, err := a.QueryContext(ctx, "SELECT v FROM t ORDER BY id")
	must(t, err)
	for rows.Next() {
	}
	must(t, rows.Close())
	var v string
	must(t, a.QueryRowContext(ctx, "SELECT v FROM t WHERE id = "+ph(1), 2).Scan(&v))
	var n int
	must(t, b.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	tx, err := a.BeginTx(ctx, nil)
	must(t, err)
	_, err = tx.ExecContext(ctx, "UPDATE t SET v = "+ph(1)+" WHERE id = "+ph(2), "c", 3)
	must(t, err)
	must(t, tx.Commit())
	if _, err := a.ExecContext(ctx, "SELECT * FROM missing"); err == nil {
		t.Fatal("a query of a missing table succeeded")
	}
	if err := a.QueryRowContext(ctx, "SELECT v FROM missing WHERE id = "+ph(1), 1).Scan(&v); err == nil {
		t.Fatal("a prepared query of a missing table succeeded")
	}
	if extra != nil {
		extra(t, a)
	}
	must(t, a.Close())
	must(t, b.Close())
	must(t, db.Close())
}

// sum is the checksum of rows given as their payloads, as docs/capture.md
// defines it.
func sum(payloads ...[]byte) string {
	h := sha256.New()
	for _, p := range payloads {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		h.Write(p)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
}

// pgRow is a DataRow's body of text values (nil for NULL).
func pgRow(vals ...any) []byte {
	b := []byte{0, byte(len(vals))}
	for _, v := range vals {
		if v == nil {
			b = append(b, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		s := v.(string)
		b = append(b, 0, 0, 0, byte(len(s)))
		b = append(b, s...)
	}
	return b
}

type want struct {
	kind, text string
	params     []any
	rows       int64
	affected   int64
	checksum   string
	errCode    string
	unanswered bool
}

func TestProxyRecordsEachCommandOnceInOrder(t *testing.T) {
	my := []want{
		{kind: "query", text: "CREATE TABLE t (id int primary key, v text)"},
		{kind: "query", text: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)", affected: 3},
		{kind: "query", text: "SELECT v FROM t ORDER BY id", rows: 3, checksum: sum([]byte("\x01a"), []byte("\x01b"), []byte{0xfb})},
		{kind: "prepare", text: "SELECT v FROM t WHERE id = ?"},
		{kind: "execute", text: "SELECT v FROM t WHERE id = ?", params: []any{2.0}, rows: 1, checksum: sum([]byte("\x00\x00\x01b"))},
		{kind: "close", text: "SELECT v FROM t WHERE id = ?"},
		{kind: "begin", text: "START TRANSACTION"},
		{kind: "prepare", text: "UPDATE t SET v = ? WHERE id = ?"},
		{kind: "execute", text: "UPDATE t SET v = ? WHERE id = ?", params: []any{"c", 3.0}, affected: 1},
		{kind: "close", text: "UPDATE t SET v = ? WHERE id = ?"},
		{kind: "commit", text: "COMMIT"},
		{kind: "query", text: "SELECT * FROM missing", errCode: "1146"},
		{kind: "prepare", text: "SELECT v FROM missing WHERE id = ?", errCode: "1146"},
		{kind: "query", text: "CREATE USER 'cap'@'localhost' IDENTIFIED BY '<redacted>'"},
		{kind: "set", text: "SET PASSWORD FOR 'cap'@'localhost' = PASSWORD('<redacted>')"},
	}
	pg := []want{
		{kind: "query", text: "CREATE TABLE t (id int primary key, v text)"},
		{kind: "query", text: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)", affected: 3},
		// pgx prepares every query with no arguments but Exec's
		{kind: "prepare", text: "SELECT v FROM t ORDER BY id"},
		{kind: "execute", text: "SELECT v FROM t ORDER BY id", rows: 3, checksum: sum(pgRow("a"), pgRow("b"), pgRow(nil))},
		{kind: "prepare", text: "SELECT v FROM t WHERE id = $1"},
		{kind: "execute", text: "SELECT v FROM t WHERE id = $1", params: []any{2.0}, rows: 1, checksum: sum(pgRow("b"))},
		{kind: "begin", text: "begin"},
		{kind: "prepare", text: "UPDATE t SET v = $1 WHERE id = $2"},
		{kind: "execute", text: "UPDATE t SET v = $1 WHERE id = $2", params: []any{"c", 3.0}, affected: 1},
		{kind: "commit", text: "commit"},
		{kind: "query", text: "SELECT * FROM missing", errCode: "42P01"},
		{kind: "prepare", text: "SELECT v FROM missing WHERE id = $1", errCode: "42P01"},
		{kind: "prepare", text: "SELECT 1 / $1::int"},
		{kind: "prepare", text: "SELECT 2 + $1::int"},
		{kind: "execute", text: "SELECT 1 / $1::int", params: []any{0.0}, errCode: "22012"},
		{kind: "execute", text: "SELECT 2 + $1::int", params: []any{1.0}, unanswered: true},
		// pgx closes the failed batch's statements before its next query
		{kind: "close", text: "SELECT 1 / $1::int"},
		{kind: "close", text: "SELECT 2 + $1::int"},
		{kind: "query", text: "CREATE ROLE cap"},
		{kind: "query", text: "ALTER ROLE cap PASSWORD '<redacted>'"},
	}
	for _, c := range []struct {
		target, scheme, driver, dsn string
		ph                          func(int) string
		a, b                        []want
		extra                       func(*testing.T, *sql.Conn)
	}{
		// TLS is preferred, not required: the proxy refuses it and the
		// session goes on in the clear
		{"mariadb-innodb", "mysql", "mysql", "%s:%s@tcp(%s)/%s?tls=preferred&connectionAttributes=program_name:shop", func(int) string { return "?" }, my,
			[]want{{kind: "query", text: "SELECT count(*) FROM t", rows: 1, checksum: sum([]byte("\x013"))}}, withPasswords(
				"CREATE USER 'cap'@'localhost' IDENTIFIED BY '"+newSecret+"'", "SET PASSWORD FOR 'cap'@'localhost' = PASSWORD('"+newSecret+"')")},
		{"postgres", "postgres", "pgx", "postgres://%s:%s@%s/%s?sslmode=prefer&application_name=shop", func(i int) string { return fmt.Sprintf("$%d", i) }, pg, []want{
			{kind: "prepare", text: "SELECT count(*) FROM t"},
			// a bigint, in binary as pgx asks for it
			{kind: "execute", text: "SELECT count(*) FROM t", rows: 1, checksum: sum([]byte{0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 3})},
		}, func(t *testing.T, c *sql.Conn) {
			pgBatch(t, c)
			withPasswords("CREATE ROLE cap", "ALTER ROLE cap PASSWORD '"+newSecret+"'")(t, c)
		}},
	} {
		t.Run(c.target, func(t *testing.T) {
			ci := server(t, c.target)
			addr, out, stop := proxied(t, c.scheme, ci)
			db, err := sql.Open(c.driver, fmt.Sprintf(c.dsn, ci.User, ci.Password, addr, ci.Database))
			must(t, err)
			if c.scheme == "postgres" {
				refusesTLS(t, addr)
			}
			scenario(t, db, c.ph, c.extra)
			waitClosed(t, out, 2)
			stop()
			checkCapture(t, out, c.scheme, ci, c.a, c.b)
		})
	}
}

// newSecret is a password the application's statements set: the capture
// holds '<redacted>' in its place.
const newSecret = "Capture-Never-Holds-This-9"

// withPasswords runs statements that carry a password, as text queries.
func withPasswords(stmts ...string) func(*testing.T, *sql.Conn) {
	return func(t *testing.T, c *sql.Conn) {
		for _, q := range stmts {
			_, err := c.ExecContext(context.Background(), q)
			must(t, err)
		}
	}
}

// pgBatch sends two statements in one batch (one Sync): the first fails,
// so the server skips the second, which was sent but never run.
func pgBatch(t *testing.T, c *sql.Conn) {
	must(t, c.Raw(func(dc any) error {
		conn := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		b.Queue("SELECT 1 / $1::int", 0)
		b.Queue("SELECT 2 + $1::int", 1)
		err := conn.SendBatch(context.Background(), b).Close()
		if err == nil {
			t.Error("a batch dividing by zero succeeded")
		}
		return nil
	}))
}

// refusesTLS asks the proxy for TLS as a PostgreSQL client does first:
// the proxy answers no itself, at once.
func refusesTLS(t *testing.T, addr string) {
	c, err := net.Dial("tcp", addr)
	must(t, err)
	defer c.Close()
	_, err = c.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f})
	must(t, err)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil || b[0] != 'N' {
		t.Fatalf("the proxy's answer to an SSLRequest: %q, %v; want N", b, err)
	}
}

// waitClosed waits for n sessions' close lines: the client's goodbye
// reaches the proxy after the driver has returned.
func waitClosed(t *testing.T, path string, n int) {
	for i := 0; i < 200; i++ {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte(`"type":"close"`)) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: fewer than %d sessions closed", path, n)
}

func checkCapture(t *testing.T, path, scheme string, ci proto.Endpoint, a, b []want) {
	t.Helper()
	h, lines, err := Read(path)
	must(t, err)
	proto, _, _ := parseTo(scheme + "://127.0.0.1")
	if h.Protocol != proto || h.Source != "proxy" || h.ServerVersion == "" {
		t.Errorf("header %+v", h)
	}
	cmds := map[int64][]*Command{}
	var opens, closes []int64
	var end *End
	for _, l := range lines {
		switch l.Type {
		case "open":
			opens = append(opens, l.Open.Session)
			// the program the client names (MySQL's connect attributes,
			// PostgreSQL's startup parameters): its session type
			if l.Open.User != ci.User || l.Open.Database != ci.Database || SessionType(l.Open) != ci.User+"@"+ci.Database+" shop" {
				t.Errorf("open: %+v", *l.Open)
			}
		case "command":
			cmds[l.Command.Session] = append(cmds[l.Command.Session], l.Command)
		case "close":
			closes = append(closes, l.Close.Session)
			if l.Close.Reason != "client quit" {
				t.Errorf("session %d closed: %s", l.Close.Session, l.Close.Reason)
			}
		case "end":
			end = l.End
		}
	}
	if len(opens) != 2 || len(closes) != 2 || end == nil || end.Sessions != 2 || end.Cut != 0 {
		t.Fatalf("sessions opened %v, closed %v, end %+v", opens, closes, end)
	}
	checkSession(t, cmds[1], a)
	checkSession(t, cmds[2], b)
}

func checkSession(t *testing.T, got []*Command, w []want) {
	t.Helper()
	slices.SortFunc(got, func(x, y *Command) int { return int(x.Seq - y.Seq) })
	if len(got) != len(w) {
		for _, c := range got {
			t.Logf("%d %s %q", c.Seq, c.Kind, c.Text)
		}
		t.Fatalf("%d commands recorded, want %d", len(got), len(w))
	}
	for i, c := range got {
		e := w[i]
		code := ""
		if c.Error != nil {
			code = c.Error.Code
		}
		if c.Seq != int64(i+1) || c.Kind != e.kind || c.Text != e.text || !reflect.DeepEqual(c.Params, e.params) ||
			c.Rows != e.rows || c.Affected != e.affected || c.Checksum != e.checksum || code != e.errCode ||
			(!c.Unanswered && c.EndNs < c.StartNs) || c.Unanswered != e.unanswered {
			t.Errorf("command %d: got %+v (error %v)\nwant %+v", i+1, *c, c.Error, e)
		}
	}
}

// A stop while a session waits on the server leaves a complete file: the
// command unanswered, the session closed by the stop, the end line
// counting it as cut.
func TestProxyStopRecordsWhatWasInFlight(t *testing.T) {
	ci := server(t, "mariadb-innodb")
	addr, out, stop := proxied(t, "mysql", ci)
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", ci.User, ci.Password, addr, ci.Database))
	must(t, err)
	defer db.Close()
	failed := make(chan error, 1)
	go func() {
		_, err := db.Exec("SELECT SLEEP(30)")
		failed <- err
	}()
	for i := 0; ; i++ {
		b, _ := os.ReadFile(out)
		if bytes.Contains(b, []byte(`"type":"open"`)) {
			break
		}
		if i == 200 {
			t.Fatal("the session never opened")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the query reaches the server
	stop()
	if <-failed == nil {
		t.Error("the query the stop cut succeeded")
	}
	_, lines, err := Read(out)
	must(t, err)
	var got []string
	for _, l := range lines {
		switch l.Type {
		case "command":
			got = append(got, fmt.Sprintf("%s %s unanswered=%v", l.Command.Kind, l.Command.Text, l.Command.Unanswered))
		case "close":
			got = append(got, "close: "+l.Close.Reason)
		case "end":
			got = append(got, fmt.Sprintf("end: cut %d", l.End.Cut))
		}
	}
	want := []string{"query SELECT SLEEP(30) unanswered=true", "close: capture stopped", "end: cut 1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after a stop mid-query:\n got %q\nwant %q", got, want)
	}
}

// A client that asks for compression gets plain packets: the proxy
// clears the flag in the greeting, and the capture can read the session.
func TestProxyMySQLClientAskingForCompressionIsRecorded(t *testing.T) {
	ci := server(t, "mariadb-innodb")
	addr, out, stop := proxied(t, "mysql", ci)
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s?compress=true&readTimeout=5s&timeout=5s", ci.User, ci.Password, addr, ci.Database))
	must(t, err)
	var n int
	must(t, db.QueryRow("SELECT 1 + 1").Scan(&n))
	must(t, db.Close())
	waitClosed(t, out, 1)
	stop()
	_, lines, err := Read(out)
	must(t, err)
	var texts []string
	for _, l := range lines {
		if l.Type == "command" {
			texts = append(texts, l.Command.Text)
		}
	}
	if n != 2 || !reflect.DeepEqual(texts, []string{"SELECT 1 + 1"}) {
		t.Errorf("a compressing client: answer %d, commands recorded %q", n, texts)
	}
}

// A server that asks for the password in clear text gets it through the
// proxy, and the capture never holds it: the authentication exchange is
// passed on unread.
func TestProxyNeverRecordsACleartextPassword(t *testing.T) {
	inst := start(t, "postgres")
	ci := inst.Endpoint()
	hba := "host all all 127.0.0.1/32 password\n"
	must(t, os.WriteFile(filepath.Join(inst.DataDir(), "pg_hba.conf"), []byte(hba), 0o600))
	direct, err := sql.Open("pgx", fmt.Sprintf("postgres://%s:%s@%s/%s", ci.User, ci.Password, ci.Address, ci.Database))
	must(t, err)
	_, err = direct.Exec("SELECT pg_reload_conf()")
	must(t, err)
	must(t, direct.Close())
	addr, out, stop := proxied(t, "postgres", ci)
	// pgx sends a cleartext password only over TLS unless told it may
	db, err := sql.Open("pgx", fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", ci.User, ci.Password, addr, ci.Database))
	must(t, err)
	var n int
	must(t, db.QueryRow("SELECT 41 + 1").Scan(&n))
	must(t, db.Close())
	waitClosed(t, out, 1)
	stop() // fails the test if the password is in the capture or the log
	b, err := os.ReadFile(out)
	must(t, err)
	if n != 42 || !bytes.Contains(b, []byte("SELECT 41 + 1")) {
		t.Errorf("the session through the proxy: %d\n%s", n, b)
	}
}
