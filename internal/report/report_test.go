package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"shootout/internal/hist"
	"shootout/internal/result"
)

func cell(target string, clients int, neighbour string, mean float64, status string) *result.File {
	return &result.File{
		Cell:       result.Cell{Target: target, Workload: "oltp_read_write", Dataset: "1000", Clients: clients, Conditions: result.Conditions{Neighbour: neighbour}, Repeat: 1},
		Status:     status,
		Ops:        map[string]result.Op{"event": {Snapshot: hist.Snapshot{Count: 100, MeanMs: mean}}},
		Throughput: result.Throughput{TPS: 1000 / mean, Seconds: 10},
		Server:     result.Server{Measured: true},
	}
}

func TestSeedTableRowsRatiosAndFailures(t *testing.T) {
	files := []*result.File{
		cell("mariadb-rocksdb", 2, "0", 2, "ok"),
		cell("mariadb-innodb", 2, "0", 5, "ok"),
		cell("mariadb-rocksdb", 1, "0", 1, "ok"),
		cell("mariadb-innodb", 1, "0", 3, "ok"),
		cell("postgres", 1, "0", 0, "failed: start postgres: no such binary"),
	}
	var b bytes.Buffer
	Terminal(&b, files, "mariadb-rocksdb")
	out := b.String()
	lines := strings.Split(out, "\n")
	var rows []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "1/0" || f[0] == "2/0") {
			rows = append(rows, l)
		}
	}
	if len(rows) < 2 || !strings.HasPrefix(strings.TrimSpace(rows[0]), "1/0") {
		t.Fatalf("rows not ordered by clients:\n%s", out)
	}
	if f := strings.Fields(rows[0]); f[1] != "1.000" || f[2] != "3.000" || f[3] != "3.00?" {
		t.Fatalf("1/0 row %q: want baseline 1.000, innodb 3.000, ratio 3.00? (one run each: noise unknown)", rows[0])
	}
	if f := strings.Fields(rows[1]); f[3] != "2.50?" {
		t.Fatalf("2/0 row %q: want ratio 2.50", rows[1])
	}
	if !strings.Contains(out, "failed: start postgres") || !strings.Contains(out, "1 failed cell(s)") {
		t.Fatalf("failed cell not shown:\n%s", out)
	}
}

func TestLabelOrder(t *testing.T) {
	want := []string{"1/0", "1/25%", "1/x1", "1/x4", "2/0", "4/x2"}
	for i := 0; i+1 < len(want); i++ {
		if !labelLess(want[i], want[i+1]) || labelLess(want[i+1], want[i]) {
			t.Errorf("%s should sort before %s", want[i], want[i+1])
		}
	}
}

func TestCSVRowsAndRatios(t *testing.T) {
	files := []*result.File{
		cell("mariadb-rocksdb", 1, "0", 2, "ok"),
		cell("mariadb-innodb", 1, "0", 5, "ok"),
		cell("postgres", 1, "0", 0, "failed: start postgres: x, \"quoted\""),
	}
	files[1].Server.BytesSource = "device vda (254:0)"
	files[1].Server.EngineWrites = &result.EngineWrites{LogBytesPerOp: 2500, DataBytesPerOp: 0.5}
	var b bytes.Buffer
	if err := CSV(&b, files, "mariadb-rocksdb"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("not valid CSV: %v\n%s", err, b.String())
	}
	if len(rows) != 4 || len(rows[0]) != len(CSVHeader) {
		t.Fatalf("%d rows of %d columns", len(rows), len(rows[0]))
	}
	col := func(name string) int {
		for i, h := range CSVHeader {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	if rows[2][col("target")] != "mariadb-innodb" || rows[2][col("times_baseline")] != "2.5000" {
		t.Fatalf("innodb row %v", rows[2])
	}
	if r := rows[2]; r[col("bytes_source")] != "device vda (254:0)" || r[col("engine_log_bytes_per_op")] != "2500.0000" || r[col("engine_data_bytes_per_op")] != "0.5000" {
		t.Fatalf("innodb row's byte columns %v", r)
	}
	if r := rows[1]; r[col("engine_log_bytes_per_op")] != "" {
		t.Fatalf("rocksdb row without engine counters has %q", r[col("engine_log_bytes_per_op")])
	}
	if rows[3][col("times_baseline")] != "" || rows[3][col("status")] != "failed: start postgres: x, \"quoted\"" {
		t.Fatalf("failed row %v", rows[3])
	}
}

// The redmine study's extra tables: settled table space per dataset, the
// slowest statements per target, and a mark on targets whose limits were
// not applied.
func TestSpaceStatementsAndUnlimitedMark(t *testing.T) {
	mk := func(target, ds string, tableMB int64, applied bool, stmts ...result.Statement) *result.File {
		f := cell(target, 1, "0", 10, "ok")
		f.Cell.Workload, f.Cell.Dataset = "redmine", ds
		f.Cell.Conditions.MemoryBytes, f.Cell.Conditions.IOPS = 1<<30, 100
		f.Ops = map[string]result.Op{"create": {Snapshot: hist.Snapshot{Count: 5, MeanMs: 10}}}
		f.Space.TableBytes = tableMB << 20
		f.Limits.Applied = applied
		if !applied {
			f.Limits.Notes = []string{"limits not applied: the embedded database runs inside shootout's own process"}
		}
		f.Statements = stmts
		return f
	}
	slow := result.Statement{Name: "issues.children_max_priority", Calls: 10, TotalMs: 300, MaxMs: 50}
	fast := result.Statement{Name: "tokens.find_api_key", Calls: 100, TotalMs: 20, MaxMs: 1}
	files := []*result.File{
		mk("mariadb-rocksdb", "small", 2, true, fast, slow),
		mk("mariadb-innodb", "small", 7, true, fast),
		mk("sqlite", "small", 8, false),
		mk("mariadb-rocksdb", "large", 20, true),
	}
	var b bytes.Buffer
	Terminal(&b, files, "mariadb-rocksdb")
	out := b.String()
	if !strings.Contains(out, "sqlite*") || !strings.Contains(out, "* sqlite: limits not applied: the embedded") {
		t.Errorf("sqlite's cells ran without their limits and must say so:\n%s", out)
	}
	var small, large string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == "redmine" && f[1] == "small" {
			small = l
		}
		if len(f) > 2 && f[0] == "redmine" && f[1] == "large" {
			large = l
		}
	}
	if f := strings.Fields(small); len(f) != 5 || f[2] != "2.0" || f[3] != "7.0" || f[4] != "8.0" {
		t.Errorf("space row for small: %q", small)
	}
	if f := strings.Fields(large); len(f) != 5 || f[2] != "20.0" || f[3] != "-" {
		t.Errorf("space row for large: %q", large)
	}
	i, j := strings.Index(out, "issues.children_max_priority"), strings.Index(out, "tokens.find_api_key")
	if i < 0 || j < 0 || i > j {
		t.Errorf("the statement with the largest total time comes first:\n%s", out)
	}
	// the page's verdict must not crown a target that ran without the limits
	files[2].Ops["create"] = result.Op{Snapshot: hist.Snapshot{Count: 5, MeanMs: 0.5}}
	var h bytes.Buffer
	if err := HTML(&h, &Page{Files: files, Baseline: "mariadb-rocksdb"}); err != nil {
		t.Fatal(err)
	}
	if page := h.String(); !strings.Contains(page, "sqlite ran without the limits the others had") || strings.Contains(page, "sqlite was") {
		t.Errorf("verdict should leave sqlite out of the times")
	}
}

// The HTML page carries the slow-query capture too, query text escaped.
func TestHTMLNamesTheSlowestStatements(t *testing.T) {
	f := cell("mariadb-rocksdb", 1, "0", 10, "ok")
	f.Statements = []result.Statement{
		{Name: "issues.children_max_priority", Query: "SELECT MAX(p) FROM issues WHERE parent_id = ? AND x < 1", Calls: 4, TotalMs: 400, MaxMs: 150},
		{Name: "tokens.find_api_key", Query: "SELECT 1", Calls: 10, TotalMs: 5, MaxMs: 1},
	}
	var b bytes.Buffer
	if err := HTML(&b, &Page{Files: []*result.File{f}, Baseline: "mariadb-rocksdb"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i, j := strings.Index(out, "issues.children_max_priority"), strings.Index(out, "tokens.find_api_key")
	if !strings.Contains(out, `id="statements"`) || i < 0 || j < 0 || i > j {
		t.Fatalf("slowest statements missing or out of order")
	}
	if strings.Contains(out, "x < 1") || !strings.Contains(out, "x &lt; 1") {
		t.Error("query text must be escaped")
	}
}

// A failed kv cell's reason is long (a start-up log line, an ids file's
// complaint); in the terminal's seed table it must not widen the column it
// starts in, and it is still given in full under the tables.
func TestKVSeedTableKeepsColumnsNarrow(t *testing.T) {
	// wide enough for one table with a one-line header: what is tested
	// here is that a failed cell does not widen its column
	t.Setenv("COLUMNS", "200")
	kvCell := func(target string, rows float64, status string) *result.File {
		f := &result.File{
			Cell:       result.Cell{Target: target, Workload: "kv", Dataset: "1000", Clients: 4, Conditions: result.Conditions{Neighbour: "0"}, Repeat: 1},
			Status:     status,
			Throughput: result.Throughput{Reads: int64(rows * 10), Seconds: 10},
			Ops:        map[string]result.Op{"read": {Snapshot: hist.Snapshot{Count: 100, P50Ms: 0.1, P99Ms: 0.5}}},
		}
		return f
	}
	why := "failed: start redis: redis-server exited: " + strings.Repeat("x", 120)
	files := []*result.File{kvCell("mariadb-innodb", 30000, "ok"), kvCell("redis", 0, why), kvCell("memcached", 120000, "ok")}
	files[0].Server.InMemory = &result.InMemory{OK: true}
	notInMemory := "not in memory: the server read 10.8 MiB from storage in the window; its files (451 MiB) were 73% in the page cache when the window started, 74% when it ended"
	files[2].Server.InMemory = &result.InMemory{ReadBytes: 11280384, CgroupReadIOs: -1, Note: notInMemory}
	var b bytes.Buffer
	Terminal(&b, files, "mariadb-innodb")
	out := b.String()
	var table []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, "the seed's table"):
			in = true
		case in && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "rows/s ="):
			table = append(table, l)
			continue
		}
		if in && len(table) > 0 {
			break
		}
	}
	if len(table) != 4 {
		t.Fatalf("want a header and 3 rows in the seed table, got %d lines:\n%s", len(table), out)
	}
	var failedRow, readRow string
	for _, l := range table {
		if strings.Contains(l, "redis") {
			failedRow = l
		}
		if strings.Contains(l, "memcached") {
			readRow = l
		}
	}
	if !strings.Contains(readRow, "NO: 10.8 MiB read") || strings.Contains(readRow, "page cache") {
		t.Errorf("the row that read from storage should say how much, and no more: %q", readRow)
	}
	if !strings.Contains(out, notInMemory) {
		t.Errorf("the note on what the page cache held is missing from the report:\n%s", out)
	}
	if !strings.Contains(failedRow, "failed") || strings.Contains(failedRow, "xxxx") {
		t.Errorf("the failed row should say failed, without its long reason: %q", failedRow)
	}
	if len(table[0]) > 200 {
		t.Errorf("the seed table's header is %d characters wide: a failed or not-in-memory reason widened a column\n%s", len(table[0]), strings.Join(table, "\n"))
	}
	if !strings.Contains(out, why) {
		t.Errorf("the failed cell's full reason is missing from the report:\n%s", out)
	}
}

// A cell that stood still for seconds and then went on is ok, but its
// pause is named under the table; a pause of a few operations' time is not.
func TestAPauseInsideAnOKCellIsNamed(t *testing.T) {
	stalled := cell("mariadb-innodb", 13, "0", 30, "ok")
	stalled.Throughput.Latency.P50Ms = 25
	stalled.Throughput.LongestPauseS, stalled.Throughput.PauseFromS = 12.3, 31.6
	short := cell("postgres", 13, "0", 30, "ok")
	short.Throughput.Latency.P50Ms = 250 // a second is four operations here
	short.Throughput.LongestPauseS, short.Throughput.PauseFromS = 1.5, 2
	var b bytes.Buffer
	Terminal(&b, []*result.File{stalled, short}, "mariadb-innodb")
	out := b.String()
	want := "paused: mariadb-innodb 13/0 repeat 1: no operation finished for 12.3 s from 31.6 s into the run"
	if !strings.Contains(out, want) {
		t.Fatalf("the stall is not named (want %q):\n%s", want, out)
	}
	if strings.Contains(out, "paused: postgres") {
		t.Fatalf("a pause of six median operations is not a stall:\n%s", out)
	}
	var h bytes.Buffer
	if err := HTML(&h, &Page{Files: []*result.File{stalled, short}, Baseline: "mariadb-innodb"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "no operation finished for 12.3 s") {
		t.Fatal("the HTML report does not name the stall")
	}
}

// TestMemoryEngineSpaceIsMarkedAsAllocated: a MEMORY table's size is what
// the engine allocated, not what its rows take, and both reports say so
// beside the figure; a table on any other engine gets no such note.
func TestMemoryEngineSpaceIsMarkedAsAllocated(t *testing.T) {
	spaced := func(target, engine string, bytes int64) *result.File {
		f := cell(target, 4, "0", 2, "ok")
		f.Target.Engine = engine
		f.Space = result.Space{Bytes: 2 * bytes, SettledBytes: 2 * bytes, TableBytes: bytes}
		return f
	}
	withMemory := []*result.File{spaced("mariadb-innodb", "innodb", 40<<20), spaced("mariadb-memory", "memory", 1<<30)}
	without := []*result.File{spaced("mariadb-innodb", "innodb", 40<<20), spaced("mariadb-myisam", "myisam", 30<<20)}

	var b bytes.Buffer
	Terminal(&b, withMemory, "mariadb-innodb")
	if out := b.String(); !strings.Contains(out, "1024.0") || !strings.Contains(out, "mariadb-memory: the MEMORY engine reports the blocks it allocated") {
		t.Fatalf("no note beside MEMORY's space:\n%s", out)
	}
	b.Reset()
	Terminal(&b, without, "mariadb-innodb")
	if strings.Contains(b.String(), "MEMORY engine") {
		t.Fatalf("a note without a MEMORY table:\n%s", b.String())
	}

	for _, c := range []struct {
		files []*result.File
		want  bool
	}{{withMemory, true}, {without, false}} {
		b.Reset()
		if err := HTML(&b, &Page{Files: c.files, Baseline: "mariadb-innodb"}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "mariadb-memory: the MEMORY engine reports the blocks it allocated"); got != c.want {
			t.Errorf("HTML note present %v, want %v", got, c.want)
		}
	}
}

// A cell that ran while the host took more than 5% of the CPUs is named
// under its table, in both reports; one on a quiet host is not, and an
// external server's cell says its others are not known.
func TestABusyHostIsNamed(t *testing.T) {
	t.Setenv("COLUMNS", "1000") // the note's words whole; the wrap is TestNotesUnderTablesFitTheWidth's
	busy := cell("mariadb-innodb", 13, "0", 30, "ok")
	others := 0.03
	busy.Server.Host = &result.Host{StealShare: 0.22, OtherProcessesShare: &others}
	quiet := cell("postgres", 13, "0", 30, "ok")
	little := 0.01
	quiet.Server.Host = &result.Host{StealShare: 0.02, OtherProcessesShare: &little}
	external := cell("sqlite", 13, "0", 30, "ok")
	external.Server.Host = &result.Host{StealShare: 0.08}
	var b bytes.Buffer
	Terminal(&b, []*result.File{busy, quiet, external}, "mariadb-innodb")
	out := b.String()
	for _, want := range []string{
		"host busy: mariadb-innodb 13/0 repeat 1: others took 25% of the CPUs during the run (steal 22%, other processes 3%)",
		"host busy: sqlite 13/0 repeat 1: others took 8% of the CPUs during the run (steal 8%, other processes not known (external server))",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "host busy: postgres") {
		t.Errorf("a host that took 3%% is not busy:\n%s", out)
	}
	var h bytes.Buffer
	if err := HTML(&h, &Page{Files: []*result.File{busy, quiet}, Baseline: "mariadb-innodb"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "Host busy: mariadb-innodb 13/0 repeat 1: others took 25%") {
		t.Error("the HTML report does not name the busy host")
	}
}

// A failed cell's reason stays out of the table's columns: a long one
// leaves every other row as a short one does, and is listed under it.
func TestAFailedCellsReasonDoesNotWidenTheTable(t *testing.T) {
	table := func(why string) string {
		files := []*result.File{
			cell("mariadb-rocksdb", 1, "0", 1, "ok"),
			cell("mariadb-innodb", 1, "0", 3, "ok"),
			cell("mariadb-rocksdb", 2, "0", 2, "ok"),
			cell("mariadb-innodb", 2, "0", 0, why),
		}
		var b bytes.Buffer
		Terminal(&b, files, "mariadb-rocksdb")
		return b.String()
	}
	long := "failed: run: " + strings.Repeat("Error 2013: Lost connection to server during query; ", 6)
	short, wide := table("failed: x"), table(long)
	rowsOf := func(out string) []string {
		var rows []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "1/0") {
				rows = append(rows, l)
			}
		}
		return rows
	}
	if a, b := rowsOf(short), rowsOf(wide); strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) == 0 {
		t.Fatalf("a long reason changed the other rows:\n%s\n--- with a short one:\n%s", wide, short)
	}
	if !strings.Contains(wide, "  failed: mariadb-innodb 2/0 repeat 1: failed: run: Error 2013") {
		t.Fatalf("the failure is not listed under the table:\n%s", wide)
	}
}

// Embedded SQLite's CPU is the shootout process's: it is in the server
// column once, and the client column is empty, in the CSV and the kv
// table alike (files written before run left the client's empty have it
// in both).
func TestEmbeddedCPUIsOnlyInTheServerColumn(t *testing.T) {
	cpu, perOp := 0.5, 0.0005
	f := &result.File{
		Cell:       result.Cell{ID: "sqlite__kv", Target: "sqlite", Workload: "kv", Dataset: "1000", Clients: 1, Conditions: result.Conditions{Neighbour: "0"}, Repeat: 1},
		Target:     result.Target{Name: "sqlite", Flavor: "sqlite", Embedded: true},
		Status:     "ok",
		Throughput: result.Throughput{Reads: 1000, Events: 1000, Seconds: 1, TPS: 1000},
		Ops:        map[string]result.Op{"read": {Snapshot: hist.Snapshot{Count: 1000, MeanMs: 0.01}}},
		Server:     result.Server{Measured: true, CPUSeconds: &cpu, CPUSecondsPerOp: &perOp},
		Client:     result.Client{CPUSeconds: 0.5, CPUSecondsPerOp: 0.0005},
	}
	var b bytes.Buffer
	if err := CSV(&b, []*result.File{f}, "sqlite"); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&b).ReadAll()
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if srv, cl := rows[1][col["server_cpu_ms_per_op"]], rows[1][col["client_cpu_ms_per_op"]]; srv != "0.5000" || cl != "" {
		t.Errorf("CSV server %q client %q: want the CPU in the server column only", srv, cl)
	}
	head, trows := rowsTable(rowsSets([]*result.File{f})[0], "sqlite")
	for i, h := range head {
		if strings.HasPrefix(h, "client CPU") && trows[0][i].Text != notMeasured {
			t.Errorf("kv table %s = %q, want %s", h, trows[0][i].Text, notMeasured)
		}
	}
}

// A cell whose agent was saturated measured its client: the terminal and
// the HTML report say so under the cost table, naming the agent and why;
// a cell whose agents kept up is not named.
func TestASaturatedClientIsNamed(t *testing.T) {
	t.Setenv("COLUMNS", "1000")
	sat := cell("mariadb-innodb", 9, "0", 30, "ok")
	sat.Client.Agents = []result.Agent{{Clients: 9, CPUCores: 0.26, CPUs: 1, CPUShare: 0.97, Saturated: true,
		SaturatedBy: []string{"used 0.26 of the 0.25 cores it was given", "97% of its clients' time on its CPU or waiting for one"}}}
	sat.Client.Saturated = true
	kept := cell("postgres", 9, "0", 30, "ok")
	kept.Client.Agents = []result.Agent{{Clients: 3, CPUCores: 0.18, CPUs: 1, CPUShare: 0.3}}
	var b bytes.Buffer
	Terminal(&b, []*result.File{sat, kept}, "mariadb-innodb")
	want := "client saturated: mariadb-innodb 9/0 repeat 1: agent 1 used 0.26 of the 0.25 cores it was given, 97% of its clients' time on its CPU or waiting for one"
	if out := b.String(); !strings.Contains(out, want) || strings.Contains(out, "client saturated: postgres") {
		t.Errorf("want %q and no postgres line:\n%s", want, out)
	}
	var h bytes.Buffer
	if err := HTML(&h, &Page{Files: []*result.File{sat, kept}, Baseline: "mariadb-innodb"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "Client saturated: mariadb-innodb 9/0 repeat 1: agent 1 used 0.26 of the 0.25 cores") {
		t.Error("the HTML report does not name the saturated client")
	}
}
