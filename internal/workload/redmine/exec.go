package redmine

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// Statement execution, timed per statement name. Reads go through Rails'
// query cache (a read repeated within a request since its last write is
// not sent again); writes clear it.

// maxPrepared bounds the prepared statements one client keeps: texts with
// lists in them (a user's projects) are many.
const maxPrepared = 512

// sending is the statement about to be sent: its figures, and the trace.
func (wk *worker) sending(name, text string) *workload.StatementClock {
	if wk.trace != nil {
		wk.trace(name, text)
	}
	return wk.times.Of(name, text)
}

// text is the statement in the dialect's placeholders; a name alone is one
// of the fixed statements.
func (wk *worker) text(name, query string) string {
	if query == "" {
		var ok bool
		if query, ok = fixed[name]; !ok {
			panic("no statement " + name)
		}
	}
	b, ok := wk.bound[query]
	if !ok {
		b = wk.d.Bind(query)
		if len(wk.bound) < 4*maxPrepared {
			wk.bound[query] = b
		}
	}
	return b
}

// startRequest begins a request: Rails' query cache starts empty.
func (wk *worker) startRequest() { clear(wk.cache) }

// send runs one statement by the configured protocol.
func (wk *worker) query(ctx context.Context, text string, args []any) (*sql.Rows, error) {
	if st := wk.prepare(ctx, text); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return wk.conn.QueryContext(ctx, text, args...)
}

func (wk *worker) execute(ctx context.Context, text string, args []any) (sql.Result, error) {
	if st := wk.prepare(ctx, text); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return wk.conn.ExecContext(ctx, text, args...)
}

// prepare returns the prepared statement of text under protocol=prepared
// on MySQL, nil otherwise (or when it cannot be prepared: the text is then
// sent as it is and its error, if any, reported there).
func (wk *worker) prepare(ctx context.Context, text string) *sql.Stmt {
	if wk.w.opt.Protocol != "prepared" || wk.d.Flavor != dialect.MySQL {
		return nil
	}
	if st := wk.prepared[text]; st != nil {
		return st
	}
	st, err := wk.conn.PrepareContext(ctx, text)
	if err != nil {
		return nil
	}
	if wk.prepared == nil {
		wk.prepared = map[string]*sql.Stmt{}
	}
	if len(wk.prepared) >= maxPrepared {
		for t, old := range wk.prepared {
			old.Close()
			delete(wk.prepared, t)
			break
		}
	}
	wk.prepared[text] = st
	return st
}

// q is a read: its rows, from the query cache when Redmine would not send
// it again.
func (wk *worker) q(ctx context.Context, name, query string, args ...any) ([][]any, error) {
	text := wk.text(name, query)
	key := cacheKey(text, args)
	if rows, ok := wk.cache[key]; ok {
		return rows, nil
	}
	defer wk.sending(name, text).Record(time.Now())
	wk.out.Reads++
	rows, err := wk.query(ctx, text, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i, v := range vals {
			if vals[i], err = normalize(v); err != nil {
				return nil, fmt.Errorf("%s: column %s: %w", name, cols[i], err)
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	wk.cache[key] = out
	return out, nil
}

func cacheKey(text string, args []any) string {
	var b strings.Builder
	b.WriteString(text)
	for _, a := range args {
		b.WriteByte(0)
		switch v := a.(type) {
		case int:
			b.WriteString(strconv.Itoa(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case string:
			b.WriteString(v)
		default:
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// x is a write; it returns the rows it changed.
func (wk *worker) x(ctx context.Context, name, query string, args ...any) (int64, error) {
	text := wk.text(name, query)
	clear(wk.cache)
	defer wk.sending(name, text).Record(time.Now())
	wk.out.Writes++
	wk.pending.logicalBytes += logicalBytes(args)
	r, err := wk.execute(ctx, text, args)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return r.RowsAffected()
}

// ins is an INSERT whose new id the caller reads: RETURNING on
// PostgreSQL, the protocol's last insert id elsewhere, as Rails does.
func (wk *worker) ins(ctx context.Context, name, query string, args ...any) (int64, error) {
	if query == "" {
		query = fixed[name]
	}
	text := wk.text(name, query+wk.d.Returning())
	clear(wk.cache)
	defer wk.sending(name, text).Record(time.Now())
	wk.out.Writes++
	wk.pending.logicalBytes += logicalBytes(args)
	var id int64
	if wk.d.Flavor == dialect.Postgres {
		rows, err := wk.query(ctx, text, args)
		if err == nil {
			if rows.Next() {
				err = rows.Scan(&id)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		wk.inserted(name, id)
		return id, nil
	}
	r, err := wk.execute(ctx, text, args)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	id, err = r.LastInsertId()
	if err == nil {
		wk.inserted(name, id)
	}
	return id, err
}

// inserted keeps the transaction's first new row: if its COMMIT is lost
// with the connection, that row's presence tells whether it committed.
func (wk *worker) inserted(statement string, id int64) {
	if wk.firstInsert.table == "" {
		wk.firstInsert = rowRef{table: strings.SplitN(statement, ".", 2)[0], id: id}
	}
}

// tx runs BEGIN, COMMIT or ROLLBACK, which are never prepared.
func (wk *worker) tx(ctx context.Context, name, text string) error {
	defer wk.sending(name, text).Record(time.Now())
	wk.out.Other++
	if _, err := wk.conn.ExecContext(ctx, text); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (wk *worker) begin(ctx context.Context) error {
	if err := wk.tx(ctx, "transaction.begin", wk.d.Begin(true)); err != nil {
		return err
	}
	wk.inTx = true
	return nil
}

func (wk *worker) commit(ctx context.Context) error {
	if err := wk.tx(ctx, "transaction.commit", "COMMIT"); err != nil {
		if dialect.Classify(err) == dialect.ClassConnectionLost && wk.firstInsert.table != "" {
			// the server may have committed before the session went
			// (a KILL or a crash between the commit and its answer):
			// Check asks the database
			wk.w.addDoubt(doubtfulCommit{row: wk.firstInsert, counts: wk.pending, create: wk.pending.issuesCreated > 0})
		}
		return err
	}
	wk.inTx = false
	wk.committed.add(wk.pending)
	wk.pending, wk.firstInsert = counts{}, rowRef{}
	return nil
}

// logicalBytes is what a write asked the server to store: strings at their
// length, integers at 4 bytes (the columns are INT), floats and times at 8,
// NULL at nothing.
func logicalBytes(args []any) int64 {
	var n int64
	for _, a := range args {
		switch v := a.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		case time.Time, float64:
			n += 8
		case nil:
		default:
			n += 4
		}
	}
	return n
}

// normalize turns what the three drivers scan into int64, float64, string,
// bool, time.Time or nil, so asInt and asFloat never meet a type they do
// not know: a column of another type fails the request instead of being
// read as 0.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, float64, string, bool, time.Time:
		return v, nil
	case []byte:
		return string(x), nil
	case int32:
		return int64(x), nil
	case int:
		return int64(x), nil
	case float32:
		return float64(x), nil
	}
	return nil, fmt.Errorf("unexpected column type %T", v)
}

// asInt reads a normalized number; a numeric string (MySQL's text protocol,
// DECIMAL) is parsed.
func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			f, _ := strconv.ParseFloat(x, 64)
			return int64(f)
		}
		return n
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return float64(asInt(v))
}
