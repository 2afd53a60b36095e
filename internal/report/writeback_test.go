package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"shootout/internal/result"
)

// Every table shows the write-back's seconds; one that stopped with data
// left is marked, and what it left is named under the table; the CSV
// says whether each finished and what it left.
func TestWriteBackSecondsAndWhatWasLeftAreShown(t *testing.T) {
	t.Setenv("COLUMNS", "1000") // the note's words whole; the wrap is TestNotesUnderTablesFitTheWidth's
	yes, no := true, false
	done := cell("postgres", 4, "0", 30, "ok")
	done.Server.WriteBackS, done.Server.WriteBackFinished = 2.34, &yes
	gaveUp := cell("mariadb-innodb", 4, "0", 20, "ok")
	gaveUp.Server.WriteBackS, gaveUp.Server.WriteBackFinished = 301.2, &no
	gaveUp.Server.WriteBackLeftBytes, gaveUp.Server.WriteBackLeft = 43<<20, "2752 InnoDB dirty pages"
	files := []*result.File{gaveUp, done}

	var b bytes.Buffer
	Terminal(&b, files, "mariadb-innodb")
	out := b.String()
	for _, want := range []string{"wb s", "2.3", "301.2" + unfinishedMark,
		"! write-back unfinished: mariadb-innodb 4/0 repeat 1: wb 301.2 s unfinished, 43.0 MiB left (2752 InnoDB dirty pages)"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal: missing %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "2.3"+unfinishedMark) {
		t.Errorf("a finished write-back is marked:\n%s", out)
	}

	var h bytes.Buffer
	if err := HTML(&h, &Page{Files: files, Baseline: "mariadb-innodb"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">wb s<", "301.2" + unfinishedMark, "Write-back unfinished: mariadb-innodb 4/0 repeat 1: wb 301.2 s unfinished, 43.0 MiB left"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML: missing %q", want)
		}
	}

	var c bytes.Buffer
	if err := CSV(&c, files, "mariadb-innodb"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	got := map[string][]string{}
	for _, r := range rows[1:] {
		got[r[col["target"]]] = []string{r[col["writeback_s"]], r[col["writeback_finished"]], r[col["writeback_left_bytes"]]}
	}
	if g := strings.Join(got["mariadb-innodb"], " "); g != "301.2000 false 45088768" {
		t.Errorf("CSV: InnoDB's write-back %q", g)
	}
	if g := strings.Join(got["postgres"], " "); g != "2.3400 true " {
		t.Errorf("CSV: PostgreSQL's write-back %q", g)
	}
}
