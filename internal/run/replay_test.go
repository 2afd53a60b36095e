package run

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/capture"
	"shootout/internal/plan"
)

// capturedStep is one command of the test's application and what its
// server answered.
type capturedStep struct {
	sess     int64
	at       int64 // steps of 5 ms after the capture began
	kind     string
	text     string
	stmt     string
	params   []any
	rows     [][]string // the rows, summed as the wire carried them
	errCode  string
	affected int64
}

// appCapture is what the test's application sent, as the proxy records
// it: session 1 creates a table, inserts a row, inserts another in a
// transaction, reads them and queries a missing table (an error);
// session 2, open at the same time, prepares a statement and executes it
// with a parameter (the row session 1 committed just before), inserts,
// closes the statement; session 3, after both, counts the rows and asks
// 1 + 1, whose answer the capture holds as 3 (a difference the replay
// must show).
func appCapture(pg bool) []capturedStep {
	create, ph := "CREATE TABLE log (id int AUTO_INCREMENT PRIMARY KEY, s int, n int, v varchar(20))", "?"
	missing := "1146"
	if pg {
		create, ph, missing = "CREATE TABLE log (id serial PRIMARY KEY, s int, n int, v varchar(20))", "$1", "42P01"
	}
	param := any(2.0)
	if pg {
		param = "2"
	}
	return []capturedStep{
		{sess: 1, at: 0, kind: capture.KindQuery, text: create},
		{sess: 1, at: 10, kind: capture.KindQuery, text: "INSERT INTO log (s, n, v) VALUES (1, 1, 'a')", affected: 1},
		{sess: 1, at: 20, kind: capture.KindBegin, text: "BEGIN"},
		{sess: 1, at: 25, kind: capture.KindQuery, text: "INSERT INTO log (s, n, v) VALUES (1, 2, 'b')", affected: 1},
		{sess: 1, at: 30, kind: capture.KindCommit, text: "COMMIT"},
		{sess: 2, at: 50, kind: capture.KindPrepare, text: "SELECT v FROM log WHERE n = " + ph, stmt: "7"},
		{sess: 2, at: 60, kind: capture.KindExecute, text: "SELECT v FROM log WHERE n = " + ph, stmt: "7", params: []any{param}, rows: [][]string{{"b"}}},
		{sess: 1, at: 62, kind: capture.KindQuery, text: "SELECT s, n, v FROM log WHERE s = 1 ORDER BY id", rows: [][]string{{"1", "1", "a"}, {"1", "2", "b"}}},
		{sess: 1, at: 65, kind: capture.KindQuery, text: "SELECT * FROM missing", errCode: missing},
		{sess: 2, at: 70, kind: capture.KindQuery, text: "INSERT INTO log (s, n, v) VALUES (2, 1, 'c')", affected: 1},
		{sess: 2, at: 80, kind: capture.KindClose, text: "SELECT v FROM log WHERE n = " + ph, stmt: "7"},
		{sess: 3, at: 120, kind: capture.KindQuery, text: "SELECT count(*) FROM log", rows: [][]string{{"3"}}},
		{sess: 3, at: 130, kind: capture.KindQuery, text: "SELECT 1 + 1", rows: [][]string{{"3"}}},
	}
}

// wireSum is the capture's checksum of rows, built here byte by byte as
// each protocol carries a text row (docs/capture.md).
func wireSum(pg bool, rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	h := sha256.New()
	for _, r := range rows {
		var p []byte
		if pg {
			p = binary.BigEndian.AppendUint16(p, uint16(len(r)))
		}
		for _, v := range r {
			if pg {
				p = binary.BigEndian.AppendUint32(p, uint32(len(v)))
			} else {
				p = append(p, byte(len(v)))
			}
			p = append(p, v...)
		}
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		h.Write(p)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
}

// writeCapture writes steps as a capture file of the protocol.
func writeCapture(t *testing.T, protocol string, steps []capturedStep, cut bool) string {
	t.Helper()
	const base = int64(1_700_000_000_000_000_000)
	// a step of the test's timeline is 5 ms: under timing=original a
	// session may fall behind by tens of ms on a busy machine, and
	// session 2's read must still come after session 1's commit
	ms := func(at int64) int64 { return base + at*5_000_000 }
	pg := protocol == capture.ProtoPostgres
	lines := []any{capture.Header{Type: "header", Format: capture.Format, Version: capture.Version, Protocol: protocol, Source: "proxy", StartNs: base}}
	seq := map[int64]int64{}
	last := map[int64]int64{}
	for _, s := range steps {
		if seq[s.sess] == 0 {
			lines = append(lines, capture.Open{Type: "open", Session: s.sess, AtNs: ms(s.at) - 1000, User: "app", Database: "app"})
		}
		seq[s.sess]++
		c := capture.Command{Type: "command", Session: s.sess, Seq: seq[s.sess], Kind: s.kind, Text: s.text, Stmt: s.stmt, Params: s.params,
			StartNs: ms(s.at), EndNs: ms(s.at) + 2_000_000, Rows: int64(len(s.rows)), Affected: s.affected}
		if s.kind != capture.KindExecute {
			c.Checksum = wireSum(pg, s.rows)
		}
		if s.errCode != "" {
			c.Error = &capture.Error{Code: s.errCode, Message: "no such table"}
		}
		lines = append(lines, c)
		last[s.sess] = ms(s.at) + 3_000_000
	}
	for id := int64(1); id <= int64(len(seq)); id++ {
		lines = append(lines, capture.Close{Type: "close", Session: id, AtNs: last[id], Reason: "client quit"})
	}
	if !cut {
		lines = append(lines, capture.End{Type: "end", AtNs: ms(200), Reason: "stopped by a signal", Sessions: int64(len(seq)), Commands: int64(len(steps))})
	}
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), protocol+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestACaptureReplaysOnEachEngine replays the test application's capture
// on MariaDB's InnoDB and MyRocks and on PostgreSQL, under each timing:
// every command is sent once, each session keeps its order (the rows it
// inserted lie in that order), each fingerprint is an operation with
// the capture's count, and every answer equals the capture's but the
// one the capture holds wrong, which the cell's drift names.
func TestACaptureReplaysOnEachEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, tc := range []struct {
		protocol string
		targets  []string
		timing   string
	}{
		{capture.ProtoMySQL, []string{"mariadb-innodb", "mariadb-rocksdb"}, ""},
		{capture.ProtoMySQL, []string{"mariadb-innodb"}, "commit"},
		{capture.ProtoPostgres, []string{"postgres"}, ""},
		{capture.ProtoPostgres, []string{"postgres"}, "commit"},
	} {
		t.Run(tc.protocol+"-"+tc.timing, func(t *testing.T) {
			requireTargets(t, tc.targets...)
			replayOn(t, tc.protocol, tc.targets, tc.timing)
		})
	}
}

func replayOn(t *testing.T, protocol string, targets []string, timing string) {
	steps := appCapture(protocol == capture.ProtoPostgres)
	file := writeCapture(t, protocol, steps, false)
	params := map[string]string{"capture": file}
	if timing != "" {
		params["timing"] = timing
	}
	p := &plan.Plan{Name: "it", Targets: targets, Workloads: []string{"replay"}, Datasets: []string{filepath.Base(file)},
		Params: params, Clients: []int{2}, Duration: "3s", Interval: "0s", Trim: new(float64)}
	var order []string
	r := &Runner{beforeCheck: func(ctx context.Context, db *sql.DB) error {
		order = nil
		rs, err := db.QueryContext(ctx, "SELECT s, n FROM log ORDER BY id")
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var s, n int
			if err := rs.Scan(&s, &n); err != nil {
				return err
			}
			order = append(order, fmt.Sprintf("%d.%d", s, n))
		}
		return rs.Err()
	}}
	for _, f := range runPlan(t, p, r, len(targets)) {
		if !f.OK() {
			t.Fatalf("%s: %s; invariants %+v", f.Cell.Target, f.Status, f.Invariants)
		}
		// sent: every command, the close of the statement too
		if f.Counters["sent"] != int64(len(steps)) {
			t.Errorf("%s: %d commands sent, the capture has %d", f.Cell.Target, f.Counters["sent"], len(steps))
		}
		// each session's inserts in its order, each once; session 2's
		// after session 1's commit, which the timing keeps
		if got := strings.Join(order, " "); got != "1.1 1.2 2.1" {
			t.Errorf("%s: rows inserted in the order %s, want 1.1 1.2 2.1", f.Cell.Target, got)
		}
		if n := f.Ops["insert into log(s, n, v) values(?+)"].Count; n != 3 {
			t.Errorf("%s: the insert's fingerprint counted %d times, want 3; ops %v", f.Cell.Target, n, opNames(f.Ops))
		}
		drift := strings.Join(f.Invariants.Drift, "\n")
		if len(f.Invariants.Drift) != 1 || !strings.Contains(drift, "select ? + ?: 1 other rows than the capture's") {
			t.Errorf("%s: drift %q, want the one answer the capture holds wrong (select 1 + 1) and no other", f.Cell.Target, drift)
		}
		t.Logf("%s: %s", f.Cell.Target, strings.Join(f.Invariants.Checked, "; "))
	}
}

func opNames[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestAReplayStartsFromItsDump loads the dump the capture started from
// (param dump=, the dump workload's loader) before the replay: the
// captured reads of its tables find their rows.
func TestAReplayStartsFromItsDump(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	requireTargets(t, "mariadb-innodb")
	data, _ := filepath.Abs("../workload/dump/testdata/mariadb-help.sql.gz")
	file := writeCapture(t, capture.ProtoMySQL, []capturedStep{
		{sess: 1, at: 0, kind: capture.KindQuery, text: "SELECT name FROM help_category WHERE name = 'Geographic'", rows: [][]string{{"Geographic"}}},
	}, false)
	p := &plan.Plan{Name: "it", Targets: []string{"mariadb-innodb"}, Workloads: []string{"replay"}, Datasets: []string{filepath.Base(file)},
		Params: map[string]string{"capture": file, "dump": data}, Clients: []int{1}, Duration: "3s", Interval: "0s", Trim: new(float64)}
	f := runPlan(t, p, &Runner{}, 1)[0]
	if !f.OK() || f.Counters["sent"] != 1 || len(f.Invariants.Drift) > 0 {
		t.Fatalf("%s: sent %d, drift %q", f.Status, f.Counters["sent"], f.Invariants.Drift)
	}
	if f.Load.Tables["help_topic"] < 500 {
		t.Errorf("loaded %v: the help tables hold hundreds of rows", f.Load.Tables)
	}
	// the replay's figures per kind of session reach the cell's file
	if st := f.Invariants.SessionTypes; len(st) != 1 || st[0].Type != "app@app -" || st[0].Sessions != 1 || st[0].Statements.Count != 1 {
		t.Errorf("session types %+v, want app@app - with its 1 session and 1 statement", st)
	}
}

// run --replay CAPTURE is the replay workload's own flag: the plan's
// workload becomes replay on the capture, its dataset the capture's name.
func TestReplayFlagPutsTheCaptureInPlace(t *testing.T) {
	file := writeCapture(t, capture.ProtoMySQL, appCapture(false), false)
	p := &plan.Plan{Name: "it", Targets: []string{"mariadb-innodb", "postgres"}, Workloads: []string{"oltp_read_only"}}
	if err := UseOwn(p, map[string]string{"replay": file}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Workloads, ",") != "replay" || p.Params["capture"] != file || strings.Join(p.Datasets, ",") != filepath.Base(file) {
		t.Errorf("plan %v %v %v, want replay on the capture", p.Workloads, p.Params, p.Datasets)
	}
}
