package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

const (
	header = `{"type":"header","format":"shootout-capture","version":1,"protocol":"mysql","start_ns":1000}` + "\n"
	open1  = `{"type":"open","session":1,"at_ns":1000}` + "\n"
	query1 = `{"type":"command","session":1,"seq":1,"kind":"query","text":"SELECT 1","start_ns":2000,"end_ns":3000,"rows":1}` + "\n"
	end    = `{"type":"end","at_ns":9000}` + "\n"
)

func file(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A capture a replay cannot trust is refused before anything starts, in
// one line naming the file and the line.
func TestABadCaptureIsRefusedNamingItsLine(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"not a capture", "SELECT 1;\n", ":1: not a shootout capture"},
		{"a line cut short", header + open1 + query1[:40], ":3: truncated line"},
		{"no end line", header + open1 + query1, ":4: no end line: the capture was cut short"},
		{"a session never opened", header + query1 + end, ":2: a command of session 1, which no open line started"},
		{"out of order", header + open1 + query1 + query1 + end, ":4: session 1's command 1 after its command 1"},
		{"a line after the end", header + open1 + query1 + end + end, ":5: a line after the end line"},
		{"another protocol", strings.Replace(header, "mysql", "redis", 1) + end, ":1: protocol \"redis\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := file(t, tc.text)
			_, err := New(map[string]string{"capture": p})
			if err == nil || !strings.Contains(err.Error(), p+tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %s%s", err, p, tc.want)
			}
		})
	}
}

// A capture replays on the servers of its protocol only: the plan asks
// SpeaksDialect, and the refusal names the file.
func TestACaptureSpeaksItsProtocolOnly(t *testing.T) {
	p := file(t, header+open1+query1+end)
	w, err := New(map[string]string{"capture": p})
	if err != nil {
		t.Fatal(err)
	}
	dc := w.(*Workload)
	if err := dc.SpeaksDialect(dialect.Dialect{Flavor: dialect.MySQL}); err != nil {
		t.Errorf("a MySQL capture on MariaDB: %v", err)
	}
	err = dc.SpeaksDialect(dialect.Dialect{Flavor: dialect.Postgres})
	if err == nil || !strings.Contains(err.Error(), p+":1: a capture of the mysql protocol") {
		t.Errorf("a MySQL capture on PostgreSQL: %v, want a refusal naming %s:1", err, p)
	}
}

// Without timing= a replay keeps the captured timeline when every
// command has its time, else each session's order; original is refused
// for a capture without times.
func TestTheDefaultTimingIsTheMostFaithful(t *testing.T) {
	w, err := New(map[string]string{"capture": file(t, header+open1+query1+end)})
	if err != nil || w.(*Workload).timing != Original {
		t.Fatalf("a capture with times: %v, %v; want timing=original", w, err)
	}
	untimed := strings.Replace(query1, `"start_ns":2000`, `"start_ns":0`, 1)
	w, err = New(map[string]string{"capture": file(t, header+open1+untimed+end)})
	if err != nil || w.(*Workload).timing != Session {
		t.Fatalf("a capture without times: %v, %v; want timing=session", w, err)
	}
	_, err = New(map[string]string{"capture": file(t, header+open1+untimed+end), "timing": "original"})
	if err == nil || !strings.Contains(err.Error(), "commands without times") {
		t.Errorf("timing=original without times: %v", err)
	}
}

// Sessions open at the same time in the capture go to different lanes,
// a session that opened after another closed may share its lane; under
// timing=commit each lane needs a client of its own, and too few
// clients is refused naming the count.
func TestSessionsOpenAtOnceGetClientsOfTheirOwn(t *testing.T) {
	text := header +
		`{"type":"open","session":1,"at_ns":1000}` + "\n" +
		`{"type":"open","session":2,"at_ns":1500}` + "\n" +
		`{"type":"command","session":1,"seq":1,"kind":"query","text":"SELECT 1","start_ns":2000,"end_ns":3000}` + "\n" +
		`{"type":"command","session":2,"seq":1,"kind":"query","text":"SELECT 2","start_ns":2500,"end_ns":3500}` + "\n" +
		`{"type":"close","session":1,"at_ns":4000}` + "\n" +
		`{"type":"open","session":3,"at_ns":5000}` + "\n" +
		`{"type":"command","session":3,"seq":1,"kind":"query","text":"SELECT 3","start_ns":5500,"end_ns":6000}` + "\n" +
		`{"type":"close","session":2,"at_ns":7000}` + "\n" +
		`{"type":"close","session":3,"at_ns":7000}` + "\n" + end
	w, err := New(map[string]string{"capture": file(t, text), "timing": "commit"})
	if err != nil {
		t.Fatal(err)
	}
	rw := w.(*Workload)
	var got []string
	for _, l := range rw.s.lanes {
		var ids []string
		for _, se := range l {
			ids = append(ids, fmt.Sprint(se.id))
		}
		got = append(got, strings.Join(ids, ","))
	}
	if strings.Join(got, " ") != "1,3 2" {
		t.Errorf("lanes %v, want 1,3 and 2: session 3 opened after 1 closed, 2 overlapped both", got)
	}
	rw.SetClients(1)
	_, err = rw.NewWorker(context.Background(), nil, dialect.Dialect{}, workload.Dataset{}, 0)
	if err == nil || !strings.Contains(err.Error(), "--clients 2") {
		t.Errorf("timing=commit with 1 client for 2 sessions open at once: %v", err)
	}
}

// A MariaDB log's capture (timing "second") replays each session in its
// order by default, not on a timeline where a second's statements start
// at once; timing=commit is refused when the capture has no end times
// (a general log's), since the order of its commits is unknown.
func TestALogCaptureDefaultsToSessionAndRefusesCommitWithoutEnds(t *testing.T) {
	second := strings.Replace(header, `"start_ns":1000`, `"start_ns":1000,"timing":"second"`, 1)
	w, err := New(map[string]string{"capture": file(t, second+open1+query1+end)})
	if err != nil || w.(*Workload).timing != Session || !w.(*Workload).defaulted {
		t.Fatalf("a capture timed to the second: %v, %v; want timing=session by default", w, err)
	}
	if w, err = New(map[string]string{"capture": file(t, second+open1+query1+end), "timing": "original"}); err != nil || w.(*Workload).timing != Original {
		t.Errorf("timing=original asked for on a capture timed to the second: %v, %v", w, err)
	}
	unended := strings.Replace(query1, `"end_ns":3000`, `"end_ns":0`, 1)
	p := file(t, second+open1+unended+end)
	_, err = New(map[string]string{"capture": p, "timing": "commit"})
	if err == nil || !strings.Contains(err.Error(), "timing=commit: the capture "+p+" has commands without end times") || strings.Contains(err.Error(), "\n") {
		t.Errorf("timing=commit without end times: %v, want one line naming %s", err, p)
	}
}

// The header's dump is the default dump=, a relative name found beside
// the capture whatever the working directory; dump= given wins.
func TestTheHeadersDumpIsTheDefaultData(t *testing.T) {
	dir := t.TempDir()
	sql := "CREATE TABLE `t` (\n  `id` int NOT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB;\nINSERT INTO `t` VALUES (1);\n"
	if err := os.WriteFile(filepath.Join(dir, "c.dump.sql"), []byte(sql), 0o600); err != nil {
		t.Fatal(err)
	}
	withDump := strings.Replace(header, `"start_ns":1000`, `"start_ns":1000,"dump":{"file":"c.dump.sql","taken":true,"format":"sql"}`, 1)
	p := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(p, []byte(withDump+open1+query1+end), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := New(map[string]string{"capture": p})
	if err != nil || w.(*Workload).data == nil {
		t.Fatalf("a capture naming its dump: %v, %v; want the dump beside it loaded first", w, err)
	}
	_, err = New(map[string]string{"capture": p, "dump": filepath.Join(dir, "other.sql")})
	if err == nil || !strings.Contains(err.Error(), "other.sql") {
		t.Errorf("dump= given: %v, want it read instead of the header's", err)
	}
}

// A statement that changes the schema outside a transaction is a commit
// in the order timing=commit keeps (it affects no rows to say so): a
// later statement of another session waits for it.
func TestSchemaChangesAreCommits(t *testing.T) {
	text := header +
		`{"type":"open","session":1,"at_ns":1000}` + "\n" +
		`{"type":"open","session":2,"at_ns":1000}` + "\n" +
		`{"type":"command","session":1,"seq":1,"kind":"query","text":"CREATE TABLE t (a int)","start_ns":1100,"end_ns":1200}` + "\n" +
		`{"type":"command","session":2,"seq":1,"kind":"query","text":"SELECT count(*) FROM t","start_ns":1300,"end_ns":1400,"rows":1}` + "\n" +
		`{"type":"close","session":1,"at_ns":2000}` + "\n" +
		`{"type":"close","session":2,"at_ns":2000}` + "\n" + end
	s, err := readScript(file(t, text))
	if err != nil {
		t.Fatal(err)
	}
	read := s.sessions[1].steps[0]
	if s.commits != 1 || read.needs != 1 {
		t.Errorf("%d commits, the read waits for %d: want the CREATE TABLE a commit it waits for", s.commits, read.needs)
	}
}

// A session's transactions as the server saw them, whatever carried
// them: BEGIN and COMMIT prepared (PgJDBC), MariaDB's autocommit turned
// off and on, COMMIT AND CHAIN. A statement inside one waits for no
// other session's commit under timing=original (it would hold its
// locks), and the commits are the COMMITs, not the writes before them.
func TestTransactionsAreFollowedWhateverCarriesThem(t *testing.T) {
	cmd := func(seq int, kind, text string, affected int) string {
		extra := ""
		if affected > 0 {
			extra = fmt.Sprintf(`,"affected":%d`, affected)
		}
		if kind == "execute" {
			extra += `,"stmt":"s"`
		}
		return fmt.Sprintf(`{"type":"command","session":1,"seq":%d,"kind":%q,"text":%q,"start_ns":%d,"end_ns":%d%s}`+"\n", seq, kind, text, 1000+seq*100, 1050+seq*100, extra)
	}
	for _, tc := range []struct {
		name    string
		steps   []string
		inTx    []bool
		commits []int // the steps that commit
	}{
		{"prepared BEGIN and COMMIT",
			[]string{cmd(1, "execute", "BEGIN", 0), cmd(2, "execute", "INSERT INTO t VALUES ($1)", 1), cmd(3, "execute", "COMMIT", 0), cmd(4, "execute", "INSERT INTO t VALUES ($1)", 1)},
			[]bool{false, true, true, false}, []int{2, 3}},
		{"autocommit off and on",
			[]string{cmd(1, "set", "SET autocommit=0", 0), cmd(2, "query", "UPDATE t SET a = 1", 1), cmd(3, "commit", "COMMIT", 0), cmd(4, "query", "UPDATE t SET a = 2", 1), cmd(5, "set", "SET @@SESSION.autocommit = ON", 0), cmd(6, "query", "UPDATE t SET a = 3", 1)},
			[]bool{false, true, true, true, true, false}, []int{2, 4, 5}},
		{"COMMIT AND CHAIN",
			[]string{cmd(1, "begin", "BEGIN", 0), cmd(2, "commit", "COMMIT AND CHAIN", 0), cmd(3, "query", "UPDATE t SET a = 1", 1), cmd(4, "commit", "COMMIT", 0)},
			[]bool{false, true, true, true}, []int{1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := header + open1 + strings.Join(tc.steps, "") + `{"type":"close","session":1,"at_ns":8000}` + "\n" + end
			if strings.Contains(tc.name, "prepared") {
				text = strings.Replace(text, `"protocol":"mysql"`, `"protocol":"postgresql"`, 1)
			}
			s, err := readScript(file(t, text))
			if err != nil {
				t.Fatal(err)
			}
			var inTx []bool
			var commits []int
			for i, st := range s.sessions[0].steps {
				inTx = append(inTx, st.inTx)
				if st.commit >= 0 {
					commits = append(commits, i)
				}
			}
			if fmt.Sprint(inTx) != fmt.Sprint(tc.inTx) || fmt.Sprint(commits) != fmt.Sprint(tc.commits) {
				t.Errorf("in a transaction %v, commits at %v; want %v and %v", inTx, commits, tc.inTx, tc.commits)
			}
		})
	}
}
