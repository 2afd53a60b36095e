package report

import (
	"bytes"
	"strings"
	"testing"
	"text/tabwriter"
	"unicode/utf8"

	"shootout/internal/result"
)

// TestTerminalTablesFitTheWidth: at COLUMNS=100 no line of a run's
// report is wider than 100, and every row still holds every figure of
// the unsplit table, in the same order.
func TestTerminalTablesFitTheWidth(t *testing.T) {
	var files []*result.File
	targets := []string{"mariadb-innodb", "mariadb-rocksdb", "postgres", "sqlite", "mariadb-aria-nontx", "tarantool-memtx"}
	for i, tg := range targets {
		for _, clients := range []int{1, 8} {
			f := cell(tg, clients, "0", float64(i+1)*1.25/float64(clients), "ok")
			f.Target.Version = "10.11.19-MariaDB-0+deb12u1"
			cpu := 3.5
			f.Server.CPUSeconds, f.Server.WriteBytes, f.Server.ReadBytes = &cpu, 1<<30, 1<<20
			f.Space.Bytes, f.Space.SettledBytes, f.Space.TableBytes = 5<<20, 4<<20, 3<<20
			files = append(files, f)
		}
	}
	render := func(columns string) string {
		t.Setenv("COLUMNS", columns)
		var b bytes.Buffer
		Terminal(&b, files, "mariadb-innodb")
		return b.String()
	}
	wide, narrow := render("1000"), render("100")
	for _, l := range strings.Split(narrow, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d columns at COLUMNS=100: %q", n, l)
		}
	}
	if !strings.Contains(wide, "version") || strings.Count(narrow, "clients/load") <= strings.Count(wide, "clients/load") {
		t.Fatalf("the wide report should be one table per kind and the narrow one split:\n%s", narrow)
	}
	// a row of the cost table is its target, clients/load and n, then
	// figures; split, its figures follow one another across the parts
	want, got := costRows(wide, targets), costRows(narrow, targets)
	for k, figures := range want {
		if strings.Join(got[k], " ") != strings.Join(figures, " ") {
			t.Errorf("%s: split %v, whole %v", k, got[k], figures)
		}
	}
	if len(want) != 2*len(targets) {
		t.Errorf("%d cost rows, want %d:\n%s", len(want), 2*len(targets), wide)
	}
}

// costRows is every cost-table row's figures by "target clients/load",
// its parts joined.
func costRows(out string, targets []string) map[string][]string {
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && contains(targets, f[0]) {
			k := f[0] + " " + f[1]
			rows[k] = append(rows[k], f[3:]...)
		}
	}
	return rows
}

// TestCellTablesSplitUnderTheirNamingColumns: the kv and siege tables
// (writeCells) repeat the columns that name a row — the text ones at the
// left, a clients/load label included — in every part.
func TestCellTablesSplitUnderTheirNamingColumns(t *testing.T) {
	t.Setenv("COLUMNS", "60")
	head := []string{"target", "path", "clients/load", "n", "rows/s", "× slower", "p50 ms", "p99 ms", "server CPU µs/row", "client CPU µs/row", "version"}
	var rows [][]tcell
	for _, tg := range []string{"mariadb-innodb", "tarantool-memtx"} {
		rows = append(rows, []tcell{txt(tg), txt("prepared"), txt("8/x1"), txt("4"), txt("123456"), txt("17.08?"), txt("0.103"), txt("3.850"), txt("93.5"), txt("104.7"), txt("10.11.19-MariaDB")})
	}
	var b bytes.Buffer
	writeCells(&b, head, rows)
	parts := 0
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 60 {
			t.Errorf("a line of %d columns at COLUMNS=60: %q", n, l)
		}
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "mariadb-innodb" {
			parts++
			if len(f) < 4 || f[1] != "prepared" || f[2] != "8/x1" {
				t.Errorf("a part without the row's name: %q", l)
			}
		}
	}
	if parts < 2 {
		t.Errorf("the table was not split:\n%s", b.String())
	}
}

// TestNotesUnderTablesFitTheWidth: the lines under the tables (a failed
// cell, a pause, a busy host, an unfinished write-back, limits not
// applied, MEMORY's space, the failed list at the end) wrap at the width like the tables
// above them; a real sysbench --quick report had three lines over 100.
func TestNotesUnderTablesFitTheWidth(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	paused := cell("mariadb-innodb", 50, "0", 96.8, "ok")
	paused.Throughput.LongestPauseS, paused.Throughput.PauseFromS, paused.Throughput.Latency.P50Ms = 4.2, 0.9, 79.7
	others := 0.32
	paused.Server.Host = &result.Host{OtherProcessesShare: &others}
	unfinished, left := cell("mariadb-rocksdb", 50, "0", 153.5, "ok"), false
	unfinished.Server.WriteBackFinished, unfinished.Server.WriteBackS = &left, 60
	unfinished.Server.WriteBackLeft, unfinished.Server.WriteBackLeftBytes = "the memtables not yet flushed to their files", 512<<20
	unlimited := cell("sqlite", 50, "0", 80, "ok")
	unlimited.Cell.Conditions.MemoryBytes = 3 << 30
	unlimited.Limits.Notes = []string{"memory, IOPS and bandwidth limits not applied: sqlite runs inside shootout's own process, whose limits would be the clients' too"}
	failed := cell("postgres", 50, "0", 0, "failed: start postgres: the server did not answer within 2m0s; its log ends: FATAL: could not map anonymous shared memory: Cannot allocate memory")
	memory := cell("mariadb-memory", 50, "0", 60, "ok")
	memory.Target.Engine, memory.Space.TableBytes = "memory", 1<<30
	var b bytes.Buffer
	Terminal(&b, []*result.File{paused, unfinished, unlimited, failed, memory}, "mariadb-innodb")
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d columns at COLUMNS=100: %q", n, l)
		}
	}
	for _, want := range []string{"paused: mariadb-innodb", "host busy: mariadb-innodb", "write-back unfinished: mariadb-rocksdb", "* sqlite:", "failed: postgres", "Cannot allocate memory", "mariadb-memory: the MEMORY engine"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestAPartPrintsNoBlankHeaderLine: where the headers go on two lines
// but none of a part's columns broke (an external server's long name
// beside the version), the part has one header line, not a line of
// spaces above it.
func TestAPartPrintsNoBlankHeaderLine(t *testing.T) {
	name := "mysql://root:***@127.0.0.1:33306/sbtest?engine=rocksdb"
	head := []string{"target", "clients/load", "n", "disk KiB written/tx", "version"}
	rows := [][]string{{name, "1/0", "1", "n/a", "10.11.19-MariaDB-0+deb12u1"}}
	var b bytes.Buffer
	fitTable(&b, 100, tabwriter.AlignRight, head, rows, 3, 1)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for _, l := range lines {
		if l != "" && strings.TrimSpace(l) == "" {
			t.Errorf("a header line of spaces only (%d):\n%s", len(l), b.String())
		}
	}
	if !strings.Contains(b.String(), "written/tx") || !strings.Contains(b.String(), "version") {
		t.Errorf("a header went missing:\n%s", b.String())
	}
}
