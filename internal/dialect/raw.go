package dialect

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
)

// The hot path of a benchmark client runs statements through the database
// driver directly, inside sql.Conn.Raw: database/sql's per-query
// bookkeeping (a Rows object, locks, argument conversion by reflection)
// doubled the client's user CPU per point select (6.0 µs against 3.0 µs
// here), and every microsecond the client spends is taken from a server
// sharing the machine. Statements are prepared once per connection.

// RawStmt is a statement prepared on one driver connection. Use it only
// inside sql.Conn.Raw on the connection it was prepared on.
type RawStmt struct {
	stmt  driver.Stmt
	query driver.StmtQueryContext
	exec  driver.StmtExecContext
	args  []driver.NamedValue
	dest  []driver.Value
}

// PrepareRaw prepares query on the driver connection dc (the argument of
// sql.Conn.Raw's function).
func PrepareRaw(ctx context.Context, dc any, query string) (*RawStmt, error) {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("driver connection %T cannot prepare with a context", dc)
	}
	st, err := pc.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	q, okq := st.(driver.StmtQueryContext)
	e, oke := st.(driver.StmtExecContext)
	if !okq || !oke {
		st.Close()
		return nil, fmt.Errorf("driver statement %T lacks QueryContext/ExecContext", st)
	}
	n := st.NumInput()
	if n < 0 {
		n = 4
	}
	return &RawStmt{stmt: st, query: q, exec: e, args: make([]driver.NamedValue, 0, n), dest: make([]driver.Value, 8)}, nil
}

func (s *RawStmt) bind(args []any) []driver.NamedValue {
	s.args = s.args[:0]
	for i, a := range args {
		s.args = append(s.args, driver.NamedValue{Ordinal: i + 1, Value: a})
	}
	return s.args
}

// Query runs the statement and reads every row, as a client must, and
// returns how many it read.
func (s *RawStmt) Query(ctx context.Context, args ...any) (int, error) {
	rows, err := s.query.QueryContext(ctx, s.bind(args))
	if err != nil {
		return 0, err
	}
	if n := len(rows.Columns()); n > len(s.dest) {
		s.dest = make([]driver.Value, n)
	}
	dest := s.dest[:len(rows.Columns())]
	read := 0
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			break
		}
		if err != nil {
			rows.Close()
			return read, err
		}
		read++
	}
	return read, rows.Close()
}

// Each runs the statement and hands every row's values to fn (valid
// until fn returns), and returns how many rows there were.
func (s *RawStmt) Each(ctx context.Context, fn func(row []driver.Value) error, args ...any) (int, error) {
	rows, err := s.query.QueryContext(ctx, s.bind(args))
	if err != nil {
		return 0, err
	}
	return eachRow(rows, &s.dest, fn)
}

// QueryRaw runs a statement without parameters on the driver connection
// dc (text protocol) and hands every row's values to fn.
func QueryRaw(ctx context.Context, dc any, query string, dest *[]driver.Value, fn func(row []driver.Value) error) (int, error) {
	q, ok := dc.(driver.QueryerContext)
	if !ok {
		return 0, fmt.Errorf("driver connection %T cannot query directly", dc)
	}
	rows, err := q.QueryContext(ctx, query, nil)
	if err != nil {
		return 0, err
	}
	return eachRow(rows, dest, fn)
}

func eachRow(rows driver.Rows, buf *[]driver.Value, fn func([]driver.Value) error) (int, error) {
	if n := len(rows.Columns()); n > len(*buf) {
		*buf = make([]driver.Value, n)
	}
	dest := (*buf)[:len(rows.Columns())]
	read := 0
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			break
		}
		if err == nil {
			err = fn(dest)
		}
		if err != nil {
			rows.Close()
			return read, err
		}
		read++
	}
	return read, rows.Close()
}

// Exec runs the statement and returns the rows it affected.
func (s *RawStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	r, err := s.exec.ExecContext(ctx, s.bind(args))
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// Close releases the server-side statement.
func (s *RawStmt) Close() error { return s.stmt.Close() }

// ExecRaw runs a statement without parameters (BEGIN, COMMIT, a literal
// INSERT) on the driver connection dc.
func ExecRaw(ctx context.Context, dc any, query string) error {
	ex, ok := dc.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("driver connection %T cannot execute directly", dc)
	}
	_, err := ex.ExecContext(ctx, query, nil)
	return err
}
