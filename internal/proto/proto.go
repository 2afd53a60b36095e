// Package proto names the protocols clients speak to a target and says
// where a native (non-SQL) client reaches its server. Targets offer
// protocols, workloads speak some of them; the driver knows neither.
package proto

import "fmt"

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

// Endpoint is how a native client reaches an instance.
type Endpoint struct {
	Protocol Name
	Network  string // "tcp" or "unix"
	Address  string // host:port or a socket's path
	User     string
	// Password is a secret: it goes to the client and nowhere else.
	Password string
	// Database is Redis's database number ("" for 0).
	Database string
	// External is a server shootout did not start: only what shootout
	// wrote there is ever written or removed.
	External bool
	// Engine is the storage engine behind the protocol where the server
	// has several (Tarantool: memtx or vinyl).
	Engine string
}

// Transport is how clients reach the server, for the record ("tcp
// 127.0.0.1:6379", "unix /tmp/x/redis.sock"): never the password.
func (e Endpoint) Transport() string { return fmt.Sprintf("%s %s", e.Network, e.Address) }
