package dialect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		err  error
		want ErrorClass
	}{
		{nil, ClassNone},
		{&mysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock; try restarting transaction"}, ClassDeadlock},
		// Galera's certification failure: the same code, told apart by its message
		{&mysql.MySQLError{Number: 1213, Message: "WSREP detected deadlock/conflict and aborted the transaction. Try restarting the transaction"}, ClassCertConflict},
		{&mysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock; try restarting transaction (snapshot conflict)"}, ClassWriteConflict},
		{&mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}, ClassLockWait},
		{&mysql.MySQLError{Number: 1180, Message: "Got error 149 'Busy' during COMMIT"}, ClassWriteConflict},
		{&mysql.MySQLError{Number: 1062, Message: "Duplicate entry '5' for key 'PRIMARY'"}, ClassDuplicateKey},
		{&mysql.MySQLError{Number: 2013, Message: "Lost connection"}, ClassConnectionLost},
		// a Galera node out of the primary component, seen here while its links were cut
		{&mysql.MySQLError{Number: 1047, Message: "WSREP has not yet prepared node for application use"}, ClassConnectionLost},
		{&mysql.MySQLError{Number: 1180, Message: "Error while appending streaming replication fragment(provider status: Not connected to Primary Component)"}, ClassConnectionLost},
		{&mysql.MySQLError{Number: 1064, Message: "syntax"}, ClassOther},
		{fmt.Errorf("wrapped: %w", &mysql.MySQLError{Number: 1213, Message: "deadlock"}), ClassDeadlock},
		{&pgconn.PgError{Code: "40P01"}, ClassDeadlock},
		{&pgconn.PgError{Code: "40001"}, ClassWriteConflict},
		{&pgconn.PgError{Code: "55P03"}, ClassLockWait},
		{&pgconn.PgError{Code: "23505"}, ClassDuplicateKey},
		{&pgconn.PgError{Code: "57P01"}, ClassConnectionLost},
		{&pgconn.PgError{Code: "08006"}, ClassConnectionLost},
		{&pgconn.PgError{Code: "42601"}, ClassOther},
		{sqlite3.Error{Code: sqlite3.ErrBusy}, ClassLockWait},
		{sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintPrimaryKey}, ClassDuplicateKey},
		{mysql.ErrInvalidConn, ClassConnectionLost},
		{io.ErrUnexpectedEOF, ClassConnectionLost},
		{context.Canceled, ClassOther},
		{errors.New("something else"), ClassOther},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	for _, c := range []ErrorClass{ClassDeadlock, ClassLockWait, ClassWriteConflict, ClassCertConflict, ClassDuplicateKey} {
		if !c.Retryable() {
			t.Errorf("%s should be retryable", c)
		}
	}
	for _, c := range []ErrorClass{ClassConnectionLost, ClassOther} {
		if c.Retryable() {
			t.Errorf("%s should not be retried as a transaction", c)
		}
	}
}

func TestBindAndDDLHelpers(t *testing.T) {
	pg := Dialect{Flavor: Postgres}
	if got := pg.Bind("SELECT c FROM t WHERE id BETWEEN ? AND ?"); got != "SELECT c FROM t WHERE id BETWEEN $1 AND $2" {
		t.Errorf("postgres bind: %q", got)
	}
	my := Dialect{Flavor: MySQL, Engine: "rocksdb"}
	if my.Bind("a=?") != "a=?" || my.TableOptions() != " ENGINE=rocksdb" || pg.TableOptions() != "" {
		t.Error("mysql bind / engine clause")
	}
	if (Dialect{Flavor: SQLite}).Begin(true) != "BEGIN IMMEDIATE" || my.Begin(true) != "BEGIN" {
		t.Error("BEGIN forms")
	}
	if len(my.BulkLoadSession()) == 0 || len(Dialect{Flavor: MySQL, Engine: "innodb"}.BulkLoadSession()) != 0 {
		t.Error("bulk load session only for MyRocks")
	}
}
