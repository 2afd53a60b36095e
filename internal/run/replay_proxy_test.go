package run

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/capture"
	"shootout/internal/plan"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// proxiedCapture starts a private server of tg, puts shootout's capture
// proxy in front of it, runs app through the proxy and returns the
// capture file once the proxy has ended it.
func proxiedCapture(t *testing.T, tg string, app func(db *sql.DB)) string {
	t.Helper()
	tgt, err := target.Lookup(tg)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := tgt.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	ep := inst.Endpoint()
	port, err := target.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	out := filepath.Join(t.TempDir(), "app.jsonl")
	scheme, driver, dsn := "mysql", "mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", ep.User, ep.Password, listen, ep.Database)
	if ep.Dialect.Flavor == "postgres" {
		scheme, driver = "postgres", "pgx"
		dsn = fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", ep.User, ep.Password, listen, ep.Database)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var log bytes.Buffer
	go func() {
		done <- capture.Run(ctx, capture.Options{Listen: listen, Out: out, Log: &log, To: scheme + "://" + ep.Address})
	}()
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			break
		}
		if i == 100 {
			t.Fatalf("the proxy does not listen on %s", listen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	app(db)
	db.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("proxy: %v\n%s", err, log.String())
	}
	return out
}

// proxiedApp is the test's application: two sessions at once, a table,
// rows inserted alone and in a transaction, text queries, a prepared
// statement executed with a parameter, an error.
func proxiedApp(t *testing.T, ph string) func(db *sql.DB) {
	return func(db *sql.DB) {
		ctx := context.Background()
		a, err := db.Conn(ctx)
		must(t, err)
		b, err := db.Conn(ctx)
		must(t, err)
		for _, q := range []string{"CREATE TABLE log (id int PRIMARY KEY, s int, n int, v varchar(20))",
			"INSERT INTO log VALUES (1, 1, 1, 'a')", "BEGIN", "INSERT INTO log VALUES (2, 1, 2, 'b')", "COMMIT"} {
			_, err := a.ExecContext(ctx, q)
			must(t, err)
		}
		var v string
		must(t, b.QueryRowContext(ctx, "SELECT v FROM log WHERE n = "+ph, 2).Scan(&v))
		_, err = b.ExecContext(ctx, "INSERT INTO log VALUES (3, 2, 1, 'c')")
		must(t, err)
		rows, err := a.QueryContext(ctx, "SELECT id, s, n, v FROM log ORDER BY id")
		must(t, err)
		for rows.Next() {
		}
		must(t, rows.Close())
		if _, err := a.ExecContext(ctx, "SELECT * FROM missing"); err == nil {
			t.Fatal("a query of a missing table succeeded")
		}
		must(t, a.Close())
		must(t, b.Close())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAProxiedCaptureReplaysOnTheEngineItCameFrom captures the test's
// application through shootout's proxy in front of a private MariaDB
// and PostgreSQL, replays each capture on the engine it came from and
// another (MyRocks), and finds every command sent once, each session in
// its order, and every answer equal to the capture's: errors, counts of
// rows, and the checksums of text rows the proxy took from the wire.
func TestAProxiedCaptureReplaysOnTheEngineItCameFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, tc := range []struct {
		from, ph string
		to       []string
	}{
		{"mariadb-innodb", "?", []string{"mariadb-innodb", "mariadb-rocksdb"}},
		{"postgres", "$1", []string{"postgres"}},
	} {
		t.Run(tc.from, func(t *testing.T) {
			requireTargets(t, tc.to...)
			file := proxiedCapture(t, tc.from, proxiedApp(t, tc.ph))
			h, lines, err := capture.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			commands := 0
			for _, l := range lines {
				if l.Command != nil && !l.Command.Unanswered {
					commands++
				}
			}
			p := &plan.Plan{Name: "it", Targets: tc.to, Workloads: []string{"replay"}, Datasets: []string{filepath.Base(file)},
				Params: map[string]string{"capture": file, "timing": "commit"}, Clients: []int{2}, Duration: "5s", Interval: "0s", Trim: new(float64)}
			var order []string
			r := &Runner{beforeCheck: func(ctx context.Context, db *sql.DB) error {
				order = nil
				rs, err := db.QueryContext(ctx, "SELECT s, n FROM log ORDER BY id")
				if err != nil {
					return err
				}
				defer rs.Close()
				for rs.Next() {
					var s, n int
					if err := rs.Scan(&s, &n); err != nil {
						return err
					}
					order = append(order, fmt.Sprintf("%d.%d", s, n))
				}
				return rs.Err()
			}}
			for _, f := range runPlan(t, p, r, len(tc.to)) {
				if !f.OK() {
					t.Fatalf("%s: %s; %+v", f.Cell.Target, f.Status, f.Invariants)
				}
				if f.Counters["sent"] != int64(commands) {
					t.Errorf("%s: %d commands sent, the %s capture has %d answered", f.Cell.Target, f.Counters["sent"], h.Protocol, commands)
				}
				if got := strings.Join(order, " "); got != "1.1 1.2 2.1" {
					t.Errorf("%s: rows in the order %s, want 1.1 1.2 2.1", f.Cell.Target, got)
				}
				if len(f.Invariants.Drift) > 0 {
					t.Errorf("%s: answers that differ from the capture's: %q", f.Cell.Target, f.Invariants.Drift)
				}
				t.Logf("%s: %s; ops %v", f.Cell.Target, strings.Join(f.Invariants.Checked, "; "), opNames(f.Ops))
			}
		})
	}
}
