package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/result"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// outline reduces a page to its structure: headings, the verdict, and per
// chart and table the counts of what they draw, so the golden file shows
// what changed without the noise of every coordinate.
func outline(t *testing.T, page []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var out []string
	type counts struct {
		id                                  string
		bars, failed, glyphs, lines, dots   int
		cats                                int
		rows, cols, failedCells, groupCells int
	}
	var chart, tbl *counts
	var text strings.Builder
	capture := ""
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page does not parse: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			cls := attr(e, "class")
			switch name := e.Name.Local; {
			case name == "svg" && strings.Contains(cls, "chart"):
				chart = &counts{id: attr(e, "id")}
			case chart != nil && name == "rect" && strings.Contains(cls, "bar"):
				chart.bars++
				if strings.Contains(cls, "failed") {
					chart.failed++
				}
			case chart != nil && name == "g" && strings.HasPrefix(cls, "pctl"):
				chart.glyphs++
				if strings.Contains(cls, "failed") {
					chart.failed++
				}
			case chart != nil && name == "polyline":
				chart.lines++
			case chart != nil && name == "circle":
				chart.dots++
			case chart != nil && name == "text" && cls == "category":
				chart.cats++
			case name == "table":
				tbl = &counts{}
			case tbl != nil && name == "tr":
				tbl.rows++
			case tbl != nil && name == "th" && strings.Contains(cls, "tgroup"):
				tbl.groupCells++
			case tbl != nil && name == "th" && tbl.rows == 1+min(tbl.groupCells, 1):
				tbl.cols++
			case tbl != nil && name == "td" && strings.Contains(cls, "failed"):
				tbl.failedCells++
			case capture == "" && (name == "h1" || name == "h2" || name == "h3" || name == "h4" || (name == "p" && cls == "verdict")):
				capture, depth = name, 0
				if cls == "verdict" {
					capture = "verdict"
				}
				text.Reset()
			}
			if capture != "" {
				depth++
			}
		case xml.CharData:
			if capture != "" {
				text.Write(e)
			}
		case xml.EndElement:
			if capture != "" {
				depth--
				if depth == 0 {
					out = append(out, capture+": "+strings.Join(strings.Fields(text.String()), " "))
					capture = ""
				}
			}
			switch {
			case e.Name.Local == "svg" && chart != nil:
				out = append(out, fmt.Sprintf("  chart %s: %d categories, %d bars (%d failed), %d glyphs, %d lines, %d dots",
					chart.id, chart.cats, chart.bars, chart.failed, chart.glyphs, chart.lines, chart.dots))
				chart = nil
			case e.Name.Local == "table" && tbl != nil:
				head := 1 + min(tbl.groupCells, 1)
				out = append(out, fmt.Sprintf("  table: %d columns, %d rows, %d failed cells", tbl.cols, tbl.rows-head, tbl.failedCells))
				tbl = nil
			}
		}
	}
	return strings.Join(out, "\n") + "\n"
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func render(t *testing.T, p *Page) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := HTML(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHTMLStructureGolden compares the page's outline with
// testdata/html.golden (go test -run Golden -update rewrites it).
func TestHTMLStructureGolden(t *testing.T) {
	got := outline(t, render(t, fixturePage()))
	path := filepath.Join("testdata", "html.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("outline differs from %s (rerun with -update if the change is meant):\n%s", path, diffLines(string(want), got))
	}
}

func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			out = append(out, fmt.Sprintf("line %d\n  want %q\n  got  %q", i+1, a, b))
		}
	}
	return strings.Join(out, "\n")
}

// TestHTMLCountsFollowTheCells checks the counts the golden file holds
// against the fixture's shape, so the golden file cannot drift into
// accepting a dropped bar.
func TestHTMLCountsFollowTheCells(t *testing.T) {
	page := render(t, fixturePage())
	o := outline(t, page)
	for _, want := range []string{
		// 3 targets × 4 labels, the failed cell drawn as failed, 2 ratio lines (1 broken at the failure)
		"chart g1-mean-1: 4 categories, 12 bars (1 failed), 0 glyphs, 2 lines, 7 dots",
		"chart g1-pct-1: 4 categories, 0 bars (1 failed), 12 glyphs",
		// the seed's table: a row per label, baseline + 2 × (ms, ×)
		"table: 6 columns, 4 rows, 1 failed cells",
		// point_select: 2 targets × 1 label
		"chart g2-mean-1: 1 categories, 2 bars (0 failed)",
		"chart g1-wa: 4 categories, 9 bars (1 failed)", // the external server is not measured, but its failure shows
		// space: the external server reports no space; its failed cell does not hide the others
		"chart space-1: 1 categories, 2 bars (0 failed)",
		"h2: Failed cells",
	} {
		if !strings.Contains(o, want) {
			t.Errorf("outline lacks %q:\n%s", want, o)
		}
	}
	if n := strings.Count(o, "  chart "); n != 15 {
		t.Errorf("%d charts, want 15 (group 1: mean, percentiles, 4 throughput, CPU, written, WA; group 2: mean, percentiles, CPU, written; 2 space)", n)
	}
	if strings.Contains(o, "chart g2-tps") {
		t.Error("throughput charts for a group without intervals")
	}
}

func TestHTMLEscapesUserTextAndFetchesNothing(t *testing.T) {
	page := string(render(t, fixturePage()))
	for _, bad := range []string{"<script", "<quick>", `alert("x")`, "<fixture>", "<link", " src=", "@import", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	for _, good := range []string{"&lt;script&gt;", "sysbench &lt;quick&gt; &amp; &#34;co&#34;", "engine=innodb&amp;tls=false", "root:***@"} {
		if !strings.Contains(page, good) {
			t.Errorf("page lacks %q", good)
		}
	}
	// the only links are to the page's own sections
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if e, ok := tok.(xml.StartElement); ok {
			if h := attr(e, "href"); h != "" && !strings.HasPrefix(h, "#") {
				t.Errorf("<%s href=%q> leaves the page", e.Name.Local, h)
			}
		}
	}
}

func TestVerdictIsComputedFromTheData(t *testing.T) {
	p := fixturePage()
	v := strings.Join(verdict(groups(p.Files), p.Baseline, p.Files), " ")
	for _, want := range []string{
		// innodb 0.8 vs rocksdb 1.0 vs ext 1.3 at 1/0 (oltp_read_write)
		// one repeat each: the ranking is given, flagged as untested
		"On oltp_read_write, dataset 100000: at 1 client without neighbours, mariadb-innodb was fastest, 1.2× faster than mariadb-rocksdb (too few repeats to tell this from noise: run with --repeat 4); " + fxExt + " took 1.6× the time of mariadb-innodb (?: 1 against 1 repeats cannot decide whether that is more than noise)",
		// at 4/x1 the external server failed: two remain
		"at 4 clients beside 1 full-speed neighbour job, mariadb-innodb was 1.2× faster than mariadb-rocksdb",
		"At 1 client without neighbours, mariadb-rocksdb wrote 4.5× fewer bytes per transaction than mariadb-innodb (3.7 KiB against 16.6 KiB); write amplification mariadb-rocksdb 5.1, mariadb-innodb 22.6",
		"At 1 client without neighbours, mariadb-rocksdb took 1.3× less space on disk (settled data directory) than mariadb-innodb (197.4 MiB against 251.8 MiB)",
		"1 of 14 cells failed (" + fxExt + ")",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
	// one target alone: nothing to compare, said so
	one := []*result.File{p.Files[0]}
	if v := verdict(groups(one), fxRocks, one); !strings.Contains(v[0], "Only mariadb-rocksdb ran") {
		t.Errorf("single-target verdict %q", v)
	}
}

func TestSettingsShowOnlyWhatDiffers(t *testing.T) {
	figs := settingsFigures(fixturePage().Files)
	if len(figs) != 2 {
		t.Fatalf("%d settings figures, want 2 (mysql differences, applied)", len(figs))
	}
	var vars []string
	for _, r := range figs[0].Table.Rows {
		vars = append(vars, r[0].Text)
	}
	// port differs between any two servers and datadir is a path: both
	// name a server; version is the same; the block cache exists on
	// MyRocks only; the buffer pool varies on InnoDB but not on MyRocks
	if got := strings.Join(vars, ","); got != "default_storage_engine,innodb_buffer_pool_size" {
		t.Errorf("variables shown: %s", got)
	}
	if !strings.Contains(figs[0].Caption, "1 that exist on one of them only, 2 that name a server") {
		t.Errorf("caption %q", figs[0].Caption)
	}
	if got := figs[0].Table.Rows[1][2].Text; got != "542113792 | … | 551550976 (5 values)" {
		t.Errorf("varying pool shown as %q", got)
	}
}

func TestWriteHTMLFileFromADirectory(t *testing.T) {
	dir := t.TempDir()
	p := fixturePage()
	for _, f := range p.Files {
		if err := result.Write(dir, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := result.WriteManifest(dir, p.Manifest); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calibration.json"), []byte(`{"device":"vda","iops":{"randread_qd1":9000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadPage(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Baseline != fxRocks || loaded.Calibration == nil || loaded.Manifest == nil || len(loaded.Files) != len(p.Files) {
		t.Fatalf("loaded %+v", loaded)
	}
	out := filepath.Join(dir, "report.html")
	if err := WriteHTMLFile(out, loaded); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(b, []byte("randread_qd1 9000")) {
		t.Fatalf("report.html: %v, %d bytes", err, len(b))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".report-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := WriteHTMLFile(filepath.Join(dir, "no", "such", "dir.html"), loaded); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestHeaderGroupsNotesThatDifferByAFigure(t *testing.T) {
	p := fixturePage()
	for i, f := range p.Files {
		f.Limits.Notes = append(f.Limits.Notes, fmt.Sprintf("no --memory: caches sized from the %dM of available memory", 23000+i))
	}
	_, _, lims := header(p)
	var notes []string
	for _, l := range lims {
		if l.Key == "note" {
			notes = append(notes, l.Value)
		}
	}
	want := []string{"server on CPUs 1, shootout (the client) on CPUs 0 (13 of 14 cells)",
		"no --memory: caches sized from the 23000M of available memory (the figure varies) (14 of 14 cells)"}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s", strings.Join(notes, "\n"))
	}
}

// TestHTMLOfOnlyFailedCells: a run where nothing worked still gets a page
// that says so, with every cell drawn as failed.
func TestHTMLOfOnlyFailedCells(t *testing.T) {
	var files []*result.File
	for _, tg := range []string{"mariadb-innodb", "postgres"} {
		files = append(files, &result.File{Cell: result.Cell{ID: tg, Target: tg, Workload: "oltp_read_write", Dataset: "1000", Clients: 1,
			Conditions: result.Conditions{Neighbour: "0"}}, Status: "failed: start " + tg + ": mariadbd exited"})
	}
	o := outline(t, render(t, &Page{Files: files, Baseline: "mariadb-innodb"}))
	for _, want := range []string{"No two targets have figures to compare.", "2 of 2 cells failed (mariadb-innodb, postgres)",
		"chart g1-mean-1: 1 categories, 2 bars (2 failed)", "chart g1-pct-1: 1 categories, 0 bars (2 failed)",
		"chart space-1: 1 categories, 2 bars (2 failed)", "h2: Failed cells"} {
		if !strings.Contains(o, want) {
			t.Errorf("outline lacks %q:\n%s", want, o)
		}
	}
}
