package replay

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/capture"
)

// answer is what the server said to one command.
type answer struct {
	rows int64
	// sum is the rows' checksum as the capture takes it (docs/capture.md),
	// "" where the replay reads rows in another form than the capture
	// summed (binary rows of a prepared statement)
	sum  string
	err  error
	code string // the server's error code: MySQL's number, PostgreSQL's SQLSTATE
}

// conn is one replayed session's connection, speaking the capture's
// protocol the way its client did: text queries as text queries,
// prepared statements prepared on the server and executed by id.
type conn interface {
	text(ctx context.Context, q string) answer
	prepare(ctx context.Context, id, q string) answer
	execute(ctx context.Context, id, q string, params []any) answer
	closeStmt(ctx context.Context, id string)
	ping(ctx context.Context) answer
	close() error
}

func newConn(protocol string, c *sql.Conn) conn {
	if protocol == capture.ProtoPostgres {
		return &pgSess{c: c, prepared: map[string]bool{}}
	}
	return &mySess{c: c, stmts: map[string]*sql.Stmt{}}
}

func failed(err error) answer {
	a := answer{err: err}
	var my *mysql.MySQLError
	var pg *pgconn.PgError
	switch {
	case errors.As(err, &my):
		a.code = strconv.Itoa(int(my.Number))
	case errors.As(err, &pg):
		a.code = pg.Code
	}
	return a
}

// mySess replays a MariaDB/MySQL session through the MySQL driver: a
// query without parameters goes as COM_QUERY and its rows come as text,
// the bytes the capture summed; a prepared statement as
// COM_STMT_PREPARE and COM_STMT_EXECUTE.
type mySess struct {
	c     *sql.Conn
	stmts map[string]*sql.Stmt
}

func (m *mySess) text(ctx context.Context, q string) answer {
	rows, err := m.c.QueryContext(ctx, q)
	if err != nil {
		return failed(err)
	}
	return myRows(rows, true)
}

// myRows reads every result's rows; text rows are summed as the wire
// carried them (a length-encoded string per column, 0xFB for NULL).
func myRows(rows *sql.Rows, text bool) answer {
	defer rows.Close()
	var r capture.RowSum
	var buf []byte
	for {
		cols, err := rows.Columns()
		if err != nil {
			return failed(err)
		}
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return failed(err)
			}
			buf = buf[:0]
			for _, v := range vals {
				buf = lenenc(buf, v)
			}
			r.Add(buf)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return failed(err)
	}
	a := answer{rows: r.N}
	if text {
		a.sum = r.Sum()
	}
	return a
}

func lenenc(b []byte, v sql.RawBytes) []byte {
	if v == nil {
		return append(b, 0xfb)
	}
	switch n := len(v); {
	case n < 0xfb:
		b = append(b, byte(n))
	case n < 1<<16:
		b = append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		b = append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	default:
		b = append(b, 0xfe)
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	}
	return append(b, v...)
}

func (m *mySess) prepare(ctx context.Context, id, q string) answer {
	if old := m.stmts[id]; old != nil {
		old.Close()
	}
	st, err := m.c.PrepareContext(ctx, q)
	if err != nil {
		delete(m.stmts, id)
		return failed(err)
	}
	m.stmts[id] = st
	return answer{}
}

func (m *mySess) execute(ctx context.Context, id, q string, params []any) answer {
	st := m.stmts[id]
	if st == nil {
		// prepared before the capture began, or its prepare failed here
		if a := m.prepare(ctx, id, q); a.err != nil {
			return a
		}
		st = m.stmts[id]
	}
	args := make([]any, len(params))
	for i, p := range params {
		args[i] = myValue(p)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return failed(err)
	}
	return myRows(rows, false)
}

func (m *mySess) closeStmt(ctx context.Context, id string) {
	if st := m.stmts[id]; st != nil {
		st.Close()
		delete(m.stmts, id)
	}
}

func (m *mySess) ping(ctx context.Context) answer {
	if err := m.c.PingContext(ctx); err != nil {
		return failed(err)
	}
	return answer{}
}

func (m *mySess) close() error {
	for id := range m.stmts {
		m.closeStmt(context.Background(), id)
	}
	return m.c.Close()
}

// myValue is a captured parameter as the driver sends it: JSON numbers
// that are whole as integers, {"hex": ...} as bytes.
func myValue(p any) any {
	switch v := p.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
	case map[string]any:
		if h, ok := v["hex"].(string); ok {
			b, _ := hex.DecodeString(h)
			return b
		}
		if h, ok := v["binary"].(string); ok {
			b, _ := hex.DecodeString(h)
			return b
		}
	}
	return p
}

// pgSess replays a PostgreSQL session on pgx's connection underneath
// database/sql: a simple query as a Query message, whose text rows are
// the bytes the capture summed; a prepared statement as Parse under its
// captured name, and Bind/Execute with its parameters as text.
type pgSess struct {
	c        *sql.Conn
	prepared map[string]bool
}

func (p *pgSess) raw(f func(pc *pgconn.PgConn) answer) answer {
	var a answer
	err := p.c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("replay: a PostgreSQL connection of %T, not pgx's", dc)
		}
		a = f(sc.Conn().PgConn())
		return nil
	})
	if err != nil {
		return failed(err)
	}
	return a
}

func (p *pgSess) text(ctx context.Context, q string) answer {
	return p.raw(func(pc *pgconn.PgConn) answer {
		results, err := pc.Exec(ctx, q).ReadAll()
		var r capture.RowSum
		for _, res := range results {
			for _, row := range res.Rows {
				r.Add(dataRow(row))
			}
		}
		if err != nil {
			a := failed(err)
			a.rows = r.N
			return a
		}
		return answer{rows: r.N, sum: r.Sum()}
	})
}

// dataRow is a DataRow message's body: the count of columns, then each
// value's length (-1 for NULL) and bytes.
func dataRow(vals [][]byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(vals)))
	for _, v := range vals {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

func (p *pgSess) prepare(ctx context.Context, id, q string) answer {
	return p.raw(func(pc *pgconn.PgConn) answer {
		if _, err := pc.Prepare(ctx, id, q, nil); err != nil {
			return failed(err)
		}
		p.prepared[id] = true
		return answer{}
	})
}

func (p *pgSess) execute(ctx context.Context, id, q string, params []any) answer {
	if !p.prepared[id] {
		if a := p.prepare(ctx, id, q); a.err != nil {
			return a
		}
	}
	vals := make([][]byte, len(params))
	for i, v := range params {
		vals[i] = pgText(v)
	}
	return p.raw(func(pc *pgconn.PgConn) answer {
		res := pc.ExecPrepared(ctx, id, vals, nil, nil).Read()
		if res.Err != nil {
			a := failed(res.Err)
			a.rows = int64(len(res.Rows))
			return a
		}
		return answer{rows: int64(len(res.Rows))}
	})
}

// pgText is a captured parameter in PostgreSQL's text format.
func pgText(v any) []byte {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.AppendInt(nil, int64(x), 10)
		}
		return strconv.AppendFloat(nil, x, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(nil, x)
	case map[string]any:
		if h, ok := x["hex"].(string); ok {
			return []byte(`\x` + h)
		}
		if h, ok := x["binary"].(string); ok {
			return []byte(`\x` + h)
		}
	}
	return fmt.Append(nil, v)
}

func (p *pgSess) closeStmt(ctx context.Context, id string) {
	if !p.prepared[id] {
		return
	}
	delete(p.prepared, id)
	if id == "" {
		return // the unnamed statement is replaced by the next Parse
	}
	p.raw(func(pc *pgconn.PgConn) answer {
		pc.Deallocate(ctx, id)
		return answer{}
	})
}

func (p *pgSess) ping(ctx context.Context) answer {
	if err := p.c.PingContext(ctx); err != nil {
		return failed(err)
	}
	return answer{}
}

func (p *pgSess) close() error { return p.c.Close() }
