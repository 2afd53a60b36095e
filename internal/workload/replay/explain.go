package replay

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"shootout/internal/capture"
)

// explained is how many fingerprints get their plan: those that took
// the capture most time, where a slower target costs most.
const explained = 10

// explainable are the statements whose plan is asked: EXPLAIN without
// ANALYZE plans them without running them, writes included.
var explainable = []string{"select", "with", "insert", "update", "delete", "replace"}

// representatives are, for the fingerprints that took the capture most
// time, the command whose captured time is the median of its
// fingerprint's: its text and parameters are what EXPLAIN plans.
func (s *script) representatives(n int) []*step {
	type op struct {
		total int64
		steps []*step
	}
	byOp := map[int]*op{}
	for _, se := range s.sessions {
		for i := range se.steps {
			st := &se.steps[i]
			if st.op < 0 || (st.Kind != capture.KindQuery && st.Kind != capture.KindExecute) || !explainableText(s.ops[st.op]) {
				continue
			}
			o := byOp[st.op]
			if o == nil {
				o = &op{}
				byOp[st.op] = o
			}
			o.total += max(st.EndNs-st.StartNs, 0)
			o.steps = append(o.steps, st)
		}
	}
	ops := make([]*op, 0, len(byOp))
	for _, o := range byOp {
		ops = append(ops, o)
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].total != ops[j].total {
			return ops[i].total > ops[j].total
		}
		return ops[i].steps[0].op < ops[j].steps[0].op
	})
	var out []*step
	for _, o := range ops[:min(n, len(ops))] {
		sort.SliceStable(o.steps, func(i, j int) bool {
			return o.steps[i].EndNs-o.steps[i].StartNs < o.steps[j].EndNs-o.steps[j].StartNs
		})
		out = append(out, o.steps[len(o.steps)/2])
	}
	return out
}

func explainableText(fp string) bool {
	for _, w := range explainable {
		if strings.HasPrefix(fp, w+" ") || strings.HasPrefix(fp, w+"(") {
			return true
		}
	}
	return false
}

// plans are the target's EXPLAIN of the representatives, by operation;
// a statement the target cannot plan (a table the replay never made)
// says why in one line. Each is sent as one prepared statement (MySQL)
// or one extended-protocol query (PostgreSQL), which refuse a second
// statement: nothing a captured text holds after a semicolon runs.
func (w *Workload) plans(ctx context.Context, db *sql.DB) map[string]string {
	reps := w.s.representatives(explained)
	if len(reps) == 0 || db == nil {
		return nil
	}
	out := map[string]string{}
	for _, st := range reps {
		ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
		plan, err := w.explain(ectx, db, st)
		cancel()
		if err != nil {
			plan = "no plan: " + firstLine(err.Error())
		}
		out[w.s.ops[st.op]] = plan
	}
	return out
}

func (w *Workload) explain(ctx context.Context, db *sql.DB, st *step) (string, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	text := "EXPLAIN " + strings.TrimRight(strings.TrimSpace(st.Text), "; \t\n")
	if w.s.header.Protocol == capture.ProtoPostgres {
		return pgExplain(ctx, c, text, st.Params)
	}
	return myExplain(ctx, c, text, st.Params)
}

// myExplain is MariaDB's EXPLAIN as one line per table it reads: the
// table, the access type, the key, the rows it expects, and Extra.
func myExplain(ctx context.Context, c *sql.Conn, text string, params []any) (string, error) {
	ps, err := c.PrepareContext(ctx, text)
	if err != nil {
		return "", err
	}
	defer ps.Close()
	args := make([]any, len(params))
	for i, p := range params {
		args[i] = myValue(p)
	}
	rows, err := ps.QueryContext(ctx, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		col := map[string]string{}
		for i, name := range cols {
			col[strings.ToLower(name)] = vals[i].String
		}
		line := col["extra"] // no table read: "Impossible WHERE", "No tables used"
		if col["table"] != "" {
			line = strings.TrimSpace(fmt.Sprintf("%s %s key=%s rows=%s %s", col["table"], col["type"], orNone(col["key"]), col["rows"], col["extra"]))
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// pgExplain is PostgreSQL's EXPLAIN, its lines as the server wrote them,
// the parameters bound as text as the replay sends them.
func pgExplain(ctx context.Context, c *sql.Conn, text string, params []any) (string, error) {
	vals := make([][]byte, len(params))
	for i, v := range params {
		vals[i] = pgText(v)
	}
	var lines []string
	err := c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("a PostgreSQL connection of %T, not pgx's", dc)
		}
		res := sc.Conn().PgConn().ExecParams(ctx, text, vals, nil, nil, nil).Read()
		if res.Err != nil {
			return res.Err
		}
		for _, r := range res.Rows {
			if len(r) > 0 {
				lines = append(lines, string(r[0]))
			}
		}
		return nil
	})
	return strings.Join(lines, "\n"), err
}
