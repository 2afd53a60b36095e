package target

import (
	"context"
	"net"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/rawsock"
)

// Every MySQL connection shootout makes, to its own servers and to a
// user's, reads and writes with raw system calls (package rawsock): the
// client's CPU per query is part of what the tables explain, so it is
// kept as low as the runtime allows.
func init() {
	for _, network := range []string{"tcp", "unix"} {
		mysql.RegisterDialContext(network, func(ctx context.Context, addr string) (net.Conn, error) {
			return rawsock.Dial(ctx, network, addr)
		})
	}
}
