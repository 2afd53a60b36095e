package target_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestPortTakenBeforeTheServerBinds: another program binds the port
// between shootout's probe and the server's bind; the server must start on
// another port, and the log must say the first try failed.
func TestPortTakenBeforeTheServerBinds(t *testing.T) {
	for _, tg := range []target.Target{target.MariaDB{Engine: "innodb"}, target.Postgres{}} {
		t.Run(tg.Name(), func(t *testing.T) {
			testenv.RequireTarget(t, tg)
			squatter, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer squatter.Close()
			taken := squatter.Addr().(*net.TCPAddr).Port
			real := target.FreePort
			calls := 0
			defer target.SetFreePort(func() (int, error) {
				calls++
				if calls == 1 {
					return taken, nil
				}
				return real()
			})()
			var log strings.Builder
			inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t), Log: &log})
			if err != nil {
				t.Fatalf("start with its first port taken: %v", err)
			}
			defer inst.Stop(context.Background())
			if calls < 2 {
				t.Fatalf("the server never tried another port (%d probes)", calls)
			}
			if err := inst.(target.SQLInstance).DB().PingContext(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, ok := tg.(target.MariaDB); ok {
				// io_uring stalled InnoDB's writes on this machine's kernel
				settings, err := inst.Settings(context.Background())
				if err != nil || settings["innodb_use_native_aio"] != "OFF" {
					t.Errorf("innodb_use_native_aio = %q (%v), want OFF", settings["innodb_use_native_aio"], err)
				}
			}
			if strings.Count(log.String(), "started ") < 2 {
				t.Errorf("the log must show both tries:\n%s", log.String())
			}
		})
	}
}
