package replay

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// planned is a capture whose costliest statements are writes, one with
// a second statement after a semicolon, and a read prepared with a
// parameter.
const planned = `{"type":"header","format":"shootout-capture","version":1,"protocol":"postgresql","start_ns":1000}
{"type":"open","session":1,"at_ns":1000}
{"type":"command","session":1,"seq":1,"kind":"query","text":"DELETE FROM t WHERE id > 0","start_ns":2000,"end_ns":90000,"affected":2}
{"type":"command","session":1,"seq":2,"kind":"query","text":"SELECT 1; DELETE FROM t","start_ns":100000,"end_ns":190000,"rows":1}
{"type":"command","session":1,"seq":3,"kind":"prepare","text":"UPDATE t SET v = $1 WHERE id = $2","stmt":"u","start_ns":200000,"end_ns":201000}
{"type":"command","session":1,"seq":4,"kind":"execute","text":"UPDATE t SET v = $1 WHERE id = $2","stmt":"u","params":["z","1"],"start_ns":210000,"end_ns":280000,"affected":1}
{"type":"command","session":1,"seq":5,"kind":"prepare","text":"SELECT v FROM t WHERE id = $1","stmt":"s","start_ns":300000,"end_ns":301000}
{"type":"command","session":1,"seq":6,"kind":"execute","text":"SELECT v FROM t WHERE id = $1","stmt":"s","params":["2"],"start_ns":310000,"end_ns":350000,"rows":1}
{"type":"close","session":1,"at_ns":400000}
{"type":"end","at_ns":400000}
`

// The plans are EXPLAINs of the captured statements with their captured
// parameters, and nothing they hold runs: the rows a captured DELETE
// or UPDATE would change are there after, and a second statement after
// a semicolon is refused, not run.
func TestPlansRunNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	tg, err := target.Lookup("postgres")
	must(t, err)
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t)})
	must(t, err)
	defer inst.Stop(context.Background())
	db := inst.(target.SQLInstance).DB()
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"} {
		_, err := db.ExecContext(ctx, q)
		must(t, err)
	}
	w, err := New(map[string]string{"capture": file(t, planned), "timing": "session"})
	must(t, err)
	plans := w.(*Workload).plans(ctx, db)
	var rows sql.NullString
	must(t, db.QueryRowContext(ctx, "SELECT string_agg(id || v, ',' ORDER BY id) FROM t").Scan(&rows))
	if rows.String != "1a,2b" {
		t.Errorf("the table holds %q after the plans, want 1a,2b untouched", rows.String)
	}
	for fp, want := range map[string]string{
		"delete from t where id > ?":      "Delete on t",
		"update t set v = ? where id = ?": "Update on t",
		"select v from t where id = ?":    "Index Scan using t_pkey on t",
		"select ?; delete from t":         "no plan: ",
	} {
		if !strings.Contains(plans[fp], want) {
			t.Errorf("%s: plan %q, want %q", fp, plans[fp], want)
		}
	}
	t.Logf("%q", plans)
}
