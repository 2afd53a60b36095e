// Package dialect holds every difference between the SQL servers that a
// workload must know about, so workloads contain no per-server branches.
package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"

	"shootout/internal/errclass"
)

// Flavor is the wire protocol and SQL family of a server.
type Flavor string

const (
	MySQL    Flavor = "mysql" // MariaDB and MySQL
	Postgres Flavor = "postgres"
	SQLite   Flavor = "sqlite"
)

// OptionGroups are the groups of an option file (my.cnf) a server of
// the flavor reads its settings from, nil where it reads none: a plan's
// settings_file takes these.
func (f Flavor) OptionGroups() []string {
	if f == MySQL {
		return []string{"mysqld", "mariadb", "mariadbd", "server"}
	}
	return nil
}

// Dialect is what a workload asks when it writes SQL for one target.
type Dialect struct {
	Flavor Flavor
	// Engine is the MariaDB storage engine (innodb, rocksdb, aria, myisam,
	// memory); empty for other flavors.
	Engine string
	// EngineOptions follow ENGINE= in CREATE TABLE (Aria's
	// TRANSACTIONAL=0 for the seed's non-transactional variant).
	EngineOptions string
}

// Placeholder returns the bind marker for the n-th (1-based) parameter.
func (d Dialect) Placeholder(n int) string {
	if d.Flavor == Postgres {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// Bind rewrites a statement written with '?' markers into the dialect's.
func (d Dialect) Bind(query string) string {
	if d.Flavor != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TableOptions is appended after the closing parenthesis of CREATE TABLE.
func (d Dialect) TableOptions() string {
	if d.Flavor == MySQL && d.Engine != "" {
		if d.EngineOptions != "" {
			return " ENGINE=" + d.Engine + " " + d.EngineOptions
		}
		return " ENGINE=" + d.Engine
	}
	return ""
}

// AutoIncrementInt is the column type of an auto-increment integer key.
func (d Dialect) AutoIncrementInt() string {
	switch d.Flavor {
	case Postgres:
		return "SERIAL"
	case SQLite:
		// INTEGER PRIMARY KEY is the rowid alias; AUTOINCREMENT is not needed
		// for ids to grow and only adds a sqlite_sequence write per insert.
		return "INTEGER"
	default:
		return "INTEGER NOT NULL AUTO_INCREMENT"
	}
}

// Begin is the statement that starts a transaction. SQLite needs IMMEDIATE
// for transactions that write: a deferred one that later writes fails with
// SQLITE_BUSY at once instead of waiting for the write lock.
func (d Dialect) Begin(writes bool) string {
	if d.Flavor == SQLite && writes {
		return "BEGIN IMMEDIATE"
	}
	return "BEGIN"
}

// CachePerConnection is true where each connection keeps its own page
// cache (SQLite's cache_size is per connection; the servers share theirs):
// there a warm-up through one connection leaves every other cold.
func (d Dialect) CachePerConnection() bool { return d.Flavor == SQLite }

// ErrorClass sorts a database error into the classes the driver counts and
// retries by (errclass, which the driver knows without knowing dialects).
type ErrorClass = errclass.Class

const (
	ClassNone           = errclass.None
	ClassDeadlock       = errclass.Deadlock
	ClassLockWait       = errclass.LockWait
	ClassWriteConflict  = errclass.WriteConflict
	ClassCertConflict   = errclass.CertConflict
	ClassConnectionLost = errclass.ConnectionLost
	ClassDuplicateKey   = errclass.DuplicateKey
	ClassOther          = errclass.Other
)

// ErrorCode is the server's own code of an error: "mysql:1213",
// "postgres:40P01", "sqlite:5"; "" when the error did not come from a
// server (a lost connection).
func ErrorCode(err error) string {
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return fmt.Sprintf("mysql:%d", my.Number)
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return "postgres:" + pg.Code
	}
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		return fmt.Sprintf("sqlite:%d", int(lite.Code))
	}
	return ""
}

// outOfPrimary: a Galera node out of the primary component (cut off from
// the majority) refuses every query until it rejoins, with 1047 "WSREP
// has not yet prepared node for application use", or fails a commit with
// 1180 "... (provider status: Not connected to Primary Component)". Its
// connection is as good as lost: the client connects again, maybe to
// another node, as behind a load balancer's health check.
func outOfPrimary(my *mysql.MySQLError) bool {
	return (my.Number == 1047 && strings.Contains(my.Message, "WSREP has not yet prepared node")) ||
		strings.Contains(my.Message, "Not connected to Primary Component")
}

// Classify maps an error from any of the three drivers to its class.
func Classify(err error) ErrorClass {
	if err == nil {
		return ClassNone
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ClassOther
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		if outOfPrimary(my) {
			return ClassConnectionLost
		}
		switch my.Number {
		case 1213: // ER_LOCK_DEADLOCK; MyRocks also reports snapshot conflicts here
			if strings.Contains(my.Message, "WSREP") { // Galera: certification, or a brute-force abort
				return ClassCertConflict
			}
			if strings.Contains(strings.ToLower(my.Message), "busy") || strings.Contains(my.Message, "conflict") {
				return ClassWriteConflict
			}
			return ClassDeadlock
		case 1205: // ER_LOCK_WAIT_TIMEOUT
			return ClassLockWait
		case 1020: // ER_CHECKREAD: record changed since last read
			return ClassWriteConflict
		case 1180: // ER_ERROR_DURING_COMMIT (MyRocks: Busy / TryAgain)
			return ClassWriteConflict
		case 1062: // ER_DUP_ENTRY: a concurrent delete+insert took the id
			return ClassDuplicateKey
		case 2006, 2013, 1927, 1053: // gone away, lost, killed, shutdown
			return ClassConnectionLost
		}
		return ClassOther
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "40P01":
			return ClassDeadlock
		case "55P03":
			return ClassLockWait
		case "40001":
			return ClassWriteConflict
		case "23505":
			return ClassDuplicateKey
		case "57P01", "57P02", "57P03":
			return ClassConnectionLost
		}
		if strings.HasPrefix(pg.Code, "08") {
			return ClassConnectionLost
		}
		return ClassOther
	}
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		switch lite.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return ClassLockWait
		case sqlite3.ErrConstraint:
			if lite.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || lite.ExtendedCode == sqlite3.ErrConstraintUnique {
				return ClassDuplicateKey
			}
		}
		return ClassOther
	}
	if isConnectionError(err) {
		return ClassConnectionLost
	}
	return ClassOther
}

func isConnectionError(err error) bool {
	if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "bad connection") || strings.Contains(msg, "conn closed") ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")
}
