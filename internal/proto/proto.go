// Package proto names the protocols clients speak to a target and says
// where a client reaches its server. Targets offer protocols, workloads
// speak some of them; the driver knows neither.
package proto

import (
	"fmt"
	"net"
	"strconv"

	"shootout/internal/dialect"
)

// Name is a protocol.
type Name string

const (
	// SQL is database/sql with a dialect: MariaDB, PostgreSQL, SQLite.
	SQL Name = "sql"
	// Redis is RESP, spoken to redis-server.
	Redis Name = "redis"
	// Tarantool is IPROTO, Tarantool's binary protocol.
	Tarantool Name = "tarantool"
	// Memcached is memcached's text protocol.
	Memcached Name = "memcached"
)

// Endpoint is how a client reaches an instance, whatever its protocol:
// the one address type from the target through the workload to its
// clients (the C clients and an application server in the loop too).
type Endpoint struct {
	Protocol Name
	// Network is "tcp", "unix", or "file" for an embedded database;
	// "" when the target cannot say (an external PostgreSQL given by
	// URL, whose URL goes to its driver whole).
	Network string
	// Address is host:port, a socket's path, or the database file.
	Address string
	User    string
	// Password is a secret: it goes to the client (or the application's
	// private configuration) and nowhere else; String leaves it out.
	Password string
	// Database is the SQL database, or Redis's database number ("" for 0).
	Database string
	// External is a server shootout did not start: only what shootout
	// wrote there is ever written or removed.
	External bool
	// Engine is the storage engine behind the protocol where the server
	// has several (Tarantool: memtx or vinyl).
	Engine string
	// Dialect is a SQL server's: every difference its clients must make.
	Dialect dialect.Dialect
}

// TCP is an endpoint on host:port.
func TCP(p Name, host string, port int) Endpoint {
	return Endpoint{Protocol: p, Network: "tcp", Address: net.JoinHostPort(host, strconv.Itoa(port))}
}

// Known is whether the endpoint says where the server is.
func (e Endpoint) Known() bool { return e.Network != "" && e.Address != "" }

// HostPort is a tcp endpoint's host and port ("", 0 for any other).
func (e Endpoint) HostPort() (string, int) {
	if e.Network != "tcp" {
		return "", 0
	}
	host, port, err := net.SplitHostPort(e.Address)
	if err != nil {
		return "", 0
	}
	n, _ := strconv.Atoi(port)
	return host, n
}

// Socket is a unix endpoint's path ("" for any other).
func (e Endpoint) Socket() string {
	if e.Network != "unix" {
		return ""
	}
	return e.Address
}

// Transport is how clients reach the server, for the record ("tcp
// 127.0.0.1:6379", "unix /tmp/x/redis.sock"): never the password.
func (e Endpoint) Transport() string { return fmt.Sprintf("%s %s", e.Network, e.Address) }

// String is the endpoint for a log line, without its password: an
// endpoint printed by mistake (%v, %+v) leaks nothing.
func (e Endpoint) String() string {
	s := fmt.Sprintf("%s %s", e.Protocol, e.Transport())
	if e.User != "" {
		s += " user " + e.User
	}
	return s
}

// GoString is String, for %#v.
func (e Endpoint) GoString() string { return e.String() }
