package target

import (
	"context"
	"database/sql"
	"io"
	"log"
	"net"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/rawsock"
)

// Every SQL connection shootout makes, to its own servers and to a
// user's, reads and writes with raw system calls (package rawsock): the
// client's CPU per query is part of what the tables explain, so it is
// kept as low as the runtime allows.
func init() {
	// every error the MySQL driver logs also reaches its caller, which
	// records it; its own lines on stderr would only break into the
	// interval lines (as a stopped server's clients' "unexpected EOF" did)
	mysql.SetLogger(log.New(io.Discard, "", 0))
	for _, network := range []string{"tcp", "unix"} {
		mysql.RegisterDialContext(network, func(ctx context.Context, addr string) (net.Conn, error) {
			return rawsock.Dial(ctx, network, addr)
		})
	}
}

// openSQL opens a pool of driver ("mysql" or "pgx") on dsn; pgx has no
// global dial hook, so its connections get rawsock through their config.
func openSQL(driver, dsn string) (*sql.DB, error) {
	if driver != "pgx" {
		return sql.Open(driver, dsn)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	dial := cfg.DialFunc // it keeps connect_timeout
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return rawsock.Wrap(c), nil
	}
	return stdlib.OpenDB(*cfg), nil
}
