package capture

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// server starts a private server of the target and returns how to reach it.
func server(t *testing.T, name string) target.ConnInfo {
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
	return inst.(target.Connectable).ConnInfo()
}

// proxied runs the proxy in front of the server until the returned stop
// is called, which waits for the capture file to be complete.
func proxied(t *testing.T, scheme string, ci target.ConnInfo) (addr, out string, stop func()) {
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
			To: fmt.Sprintf("%s://%s:%s@%s:%d/%s", scheme, ci.User, ci.Password, ci.Host, ci.Port, ci.Database)})
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
		if bytes.Contains(b, []byte(ci.Password)) || bytes.Contains(log.Bytes(), []byte(ci.Password)) {
			t.Errorf("the password is in the capture or the log:\n%s\n%s", b, log.String())
		}
		t.Logf("log:\n%s", log.String())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestProxyExplore(t *testing.T) {
	ci := server(t, "mariadb-innodb")
	addr, out, stop := proxied(t, "mysql", ci)
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", ci.User, ci.Password, addr, ci.Database))
	must(t, err)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	must(t, err)
	_, err = conn.ExecContext(ctx, "CREATE TABLE t (id int primary key, v text)")
	must(t, err)
	_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
	must(t, err)
	var v string
	must(t, conn.QueryRowContext(ctx, "SELECT v FROM t WHERE id = ?", 2).Scan(&v))
	rows, err := conn.QueryContext(ctx, "SELECT * FROM t ORDER BY id")
	must(t, err)
	for rows.Next() {
	}
	rows.Close()
	tx, err := conn.BeginTx(ctx, nil)
	must(t, err)
	_, err = tx.ExecContext(ctx, "UPDATE t SET v = ? WHERE id = ?", "c", 3)
	must(t, err)
	must(t, tx.Commit())
	_, err = conn.ExecContext(ctx, "SELECT * FROM missing")
	t.Log(err)
	conn.Close()
	db.Close()
	stop()
	b, _ := os.ReadFile(out)
	t.Logf("%s", b)
}
