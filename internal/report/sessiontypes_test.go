package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"shootout/internal/hist"
	"shootout/internal/result"
)

// typedFiles are stmtFiles with kinds of session: per kind its sessions,
// statements and mean on each target (base, other), jittered by repeat
// as stmtFiles' means are.
func typedFiles(repeats int, kinds map[string][4]float64) []*result.File {
	files := stmtFiles(repeats, map[string][3]float64{"select 1": {10, 1, 1}})
	for _, f := range files {
		i := 0
		if f.Cell.Target == "other-engine" {
			i = 1
		}
		for name, v := range kinds {
			n, mean := int64(v[1]), v[2+i]*(1+0.01*float64(f.Cell.Repeat))
			f.Invariants.SessionTypes = append(f.Invariants.SessionTypes, result.SessionType{Type: name, Sessions: int64(v[0]),
				Statements: hist.Snapshot{Count: n, MeanMs: mean, P50Ms: mean * 0.5, P99Ms: mean * 4, SumMs: mean * float64(n)}})
		}
	}
	return files
}

// median of the repeats' jitter, 1+0.01r for r = 1..repeats
func jitter(repeats int) float64 { return 1 + 0.01*float64(repeats+1)/2 }

// The terminal and HTML compare each kind of session: its sessions and
// statements, each target's total, p50 and p99, and × from the
// statements' means with the repeats' mark, the kind that took the
// baseline most time first.
func TestEachSessionTypeIsCompared(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	kinds := map[string][4]float64{
		"cron@shop -":  {1, 12, 5, 5},   // as fast on both: ~
		"app@shop php": {10, 100, 1, 2}, // twice as slow on other-engine, and most of the time
	}
	files := typedFiles(4, kinds)
	var b bytes.Buffer
	Terminal(&b, files, "base-engine")
	out := b.String()
	j := jitter(4)
	row := func(n int, name string, k [4]float64, ratio string) *regexp.Regexp {
		base, other := k[1]*k[2]*j, k[1]*k[3]*j
		return regexp.MustCompile(fmt.Sprintf(`#%d +%s +%d +%d +%.1f +%.3f +%.3f +%.1f +%.3f +%.3f +%s`, n, regexp.QuoteMeta(name),
			int(k[0]), int(k[1]), base, k[2]*j*0.5, k[2]*j*4, other, k[3]*j*0.5, k[3]*j*4, regexp.QuoteMeta(ratio)))
	}
	if !strings.Contains(out, "per session type") {
		t.Fatalf("no per session type table:\n%s", out)
	}
	for _, re := range []*regexp.Regexp{row(1, "app@shop php", kinds["app@shop php"], "2.00"), row(2, "cron@shop -", kinds["cron@shop -"], "1.00~")} {
		if !re.MatchString(out) {
			t.Errorf("no row matching %s:\n%s", re, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 100 {
			t.Errorf("a line wider than 100 columns: %q", l)
		}
	}
	page := string(render(t, &Page{Files: files, Baseline: "base-engine"}))
	if !strings.Contains(page, "Per session type") || !strings.Contains(page, "cron@shop -") {
		t.Errorf("the HTML has no per session type table")
	}
}

// A capture of one kind of session gets no view in the terminal or the
// HTML: its one line would repeat the per-statement headline.
func TestOneSessionTypeGetsNoView(t *testing.T) {
	files := typedFiles(2, map[string][4]float64{"app@shop php": {10, 100, 1, 2}})
	var b bytes.Buffer
	Terminal(&b, files, "base-engine")
	if strings.Contains(b.String(), "per session type") {
		t.Errorf("a view of one session type:\n%s", b.String())
	}
	if page := string(render(t, &Page{Files: files, Baseline: "base-engine"})); strings.Contains(page, "Per session type") {
		t.Errorf("the HTML has a view of one session type")
	}
}

// The CSV has a row per cell and kind of session (op empty): its
// sessions, statements, total and latencies, and times_baseline against
// the baseline's same repeat.
func TestTheCSVHasARowPerSessionType(t *testing.T) {
	kinds := map[string][4]float64{"app@shop php": {10, 100, 1, 3}}
	var b bytes.Buffer
	if err := CSV(&b, typedFiles(2, kinds), "base-engine"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		if r[col["session_type"]] != "" {
			got[r[col["target"]]+" "+r[col["repeat"]]] = strings.Join([]string{r[col["op"]], r[col["session_type"]], r[col["sessions"]],
				r[col["statements"]], r[col["total_ms"]], r[col["mean_ms"]], r[col["p99_ms"]], r[col["times_baseline"]]}, ",")
		}
	}
	k := kinds["app@shop php"]
	for _, tr := range []struct {
		target string
		mean   float64
		ratio  string
	}{{"base-engine", k[2], "1.0000"}, {"other-engine", k[3], fmt.Sprintf("%.4f", k[3]/k[2])}} {
		for r := 1; r <= 2; r++ {
			m := tr.mean * (1 + 0.01*float64(r))
			want := fmt.Sprintf(",app@shop php,%d,%d,%.4f,%.4f,%.4f,%s", int(k[0]), int(k[1]), m*k[1], m, 4*m, tr.ratio)
			if key := fmt.Sprintf("%s %d", tr.target, r); got[key] != want {
				t.Errorf("%s: %q, want %q", key, got[key], want)
			}
		}
	}
}

// A kind of session a target ran fewer sessions or statements of (a
// replay the window cut short) is named under the table.
func TestASessionTypeRunOtherwiseIsNamed(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	files := typedFiles(2, map[string][4]float64{"app@shop php": {10, 100, 1, 2}, "cron@shop -": {1, 12, 5, 5}})
	for _, f := range files {
		for i, st := range f.Invariants.SessionTypes {
			if f.Cell.Target == "other-engine" && st.Type == "app@shop php" {
				f.Invariants.SessionTypes[i].Sessions, f.Invariants.SessionTypes[i].Statements.Count = 8, 80
			}
		}
	}
	var b bytes.Buffer
	Terminal(&b, files, "base-engine")
	if want := "#1: other-engine ran 8 sessions, 80 statements; base-engine 10, 100"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q:\n%s", want, b.String())
	}
}
