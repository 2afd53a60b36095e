package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"shootout/internal/hist"
	"shootout/internal/result"
)

// timedRepeats are repeats of one target's cell at 1/0 with the given mean
// times of op "q".
func timedRepeats(target string, ms ...float64) []*result.File {
	var fs []*result.File
	for i, m := range ms {
		f := &result.File{Cell: result.Cell{ID: target + "__r" + string(rune('1'+i)), Target: target, Workload: "w", Dataset: "d", Clients: 1,
			Conditions: result.Conditions{Neighbour: "0"}, Repeat: i + 1}, Status: "ok"}
		f.Ops = map[string]result.Op{"q": {Snapshot: hist.Snapshot{Count: 100, MeanMs: m}}}
		f.Throughput = result.Throughput{Seconds: 10, Events: 1000, TPS: 1000 / m, Latency: hist.Snapshot{Count: 100, P95Ms: 2 * m}}
		f.Target = result.Target{Name: target, Flavor: "mysql"}
		fs = append(fs, f)
	}
	return fs
}

func TestMedianOverAnEvenNumberOfRepeatsIsTheMeanOfTheMiddleTwo(t *testing.T) {
	fs := timedRepeats("a", 1, 2, 3, 10)
	if m, ok, _ := meanMs(fs, "a", "1/0", "q"); !ok || m != 2.5 {
		t.Fatalf("median of 1, 2, 3, 10 = %v, want 2.5", m)
	}
	if tps := median(fs, func(f *result.File) float64 { return f.Throughput.TPS }); math.Abs(tps-(1000.0/2+1000.0/3)/2) > 1e-9 {
		t.Fatalf("median tps %v", tps)
	}
}

func TestRatiosSayWhenTheyAreWithinTheNoise(t *testing.T) {
	var out bytes.Buffer
	overlap := append(timedRepeats("a", 1.0, 1.1, 0.9, 1.05, 0.95), timedRepeats("b", 1.02, 0.92, 1.08, 0.98, 1.03)...)
	Terminal(&out, overlap, "a")
	if !strings.Contains(out.String(), "1.02~") && !strings.Contains(out.String(), "0.98~") && !strings.Contains(out.String(), "1.00~") {
		t.Fatalf("overlapping repeats must be marked ~:\n%s", out.String())
	}
	out.Reset()
	apart := append(timedRepeats("a", 1.0, 1.1, 0.9, 1.05, 0.95), timedRepeats("b", 2.0, 2.1, 1.9, 2.05, 1.95)...)
	Terminal(&out, apart, "a")
	if !strings.Contains(out.String(), " 2.00 ") {
		t.Fatalf("repeats that never overlap: a plain ratio, no mark:\n%s", out.String())
	}
	if !strings.Contains(out.String(), Wrap(noiseLegend, "  ", Width())) {
		t.Fatal("the marks must be explained under the table")
	}
}

func TestUnmeasuredFiguresAreEmptyNotZero(t *testing.T) {
	fs := timedRepeats("ext", 1, 1.1)
	failed := timedRepeats("b", 1)[0]
	failed.Status = "failed: start: no such binary"
	failed.Ops = nil
	fs = append(fs, failed)
	var b bytes.Buffer
	if err := CSV(&b, fs, "ext"); err != nil {
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
	for _, r := range rows[1:] {
		if v := r[col["server_cpu_ms_per_op"]]; v != "" {
			t.Errorf("%s: server CPU of an unmeasured server is %q, want empty", r[col["target"]], v)
		}
		if v := r[col["space_bytes"]]; v != "" {
			t.Errorf("%s: unmeasured space is %q, want empty", r[col["target"]], v)
		}
		if r[col["target"]] == "b" && (r[col["tps"]] != "" || r[col["mean_ms"]] != "") {
			t.Errorf("a failed cell's figures must be empty: tps %q mean %q", r[col["tps"]], r[col["mean_ms"]])
		}
		if r[col["target"]] == "ext" && r[col["tps"]] == "" {
			t.Error("a measured tps is missing")
		}
	}
	var out bytes.Buffer
	Terminal(&out, fs, "ext")
	// at 100 columns the header is on two lines: "srv CPU" over "ms/tx"
	if !strings.Contains(out.String(), "srv CPU") || !strings.Contains(out.String(), "n/a") || strings.Contains(out.String(), " MB") {
		t.Fatalf("the cost table must show n/a for what was not measured, in MiB:\n%s", out.String())
	}
}

func TestEmbeddedTargetIsNeverNamedFastestAmongServers(t *testing.T) {
	lite := timedRepeats("sqlite", 0.1, 0.11, 0.09, 0.1, 0.1)
	for _, f := range lite {
		f.Target.Flavor, f.Target.Embedded = "sqlite", true
	}
	fs := append(append(timedRepeats("a", 1.0, 1.1, 0.9, 1.05, 0.95), timedRepeats("b", 2.0, 2.1, 1.9, 2.05, 1.95)...), lite...)
	v := strings.Join(verdict(groups(fs), "a", fs), " ")
	if strings.Contains(v, "sqlite was fastest") || !strings.Contains(v, "a was fastest") && !strings.Contains(v, "a was 2.0× faster than b") {
		t.Fatalf("servers must be ranked among themselves:\n%s", v)
	}
	if !strings.Contains(v, "embedded sqlite (inside the shootout process: no network hop, CPU shared with the client) took 0.100 ms, 0.1× the time of the fastest server") {
		t.Fatalf("the embedded target must be reported apart:\n%s", v)
	}
	overlap := append(timedRepeats("a", 1.0, 1.1, 0.9, 1.05, 0.95), timedRepeats("b", 1.02, 0.92, 1.08, 0.98, 1.03)...)
	if v := strings.Join(verdict(groups(overlap), "a", overlap), " "); !strings.Contains(v, "were within the noise of their repeats") {
		t.Fatalf("overlapping repeats must not be ranked:\n%s", v)
	}
}

// A repeat that did not measure a figure is left out of the chart's
// median, not counted as 0.
func TestChartLeavesOutARepeatWithoutTheFigure(t *testing.T) {
	fs := timedRepeats("mariadb-innodb", 1, 1)
	perOp := 0.002
	fs[0].Server.Measured, fs[0].Server.CPUSecondsPerOp = true, &perOp
	fs[1].Server.Measured = false
	v := figureOf(fs, "mariadb-innodb", fs[0].Cell.Label(), func(f *result.File) (float64, bool) {
		cpu, ok := f.Server.CPUPerOp()
		return cpu * 1000, ok
	})
	if v.State != measured || v.V != 2 {
		t.Fatalf("server CPU %+v, want 2 ms from the one repeat that measured it", v)
	}
	fs[0].Server.Measured = false
	if v := figureOf(fs, "mariadb-innodb", fs[0].Cell.Label(), func(f *result.File) (float64, bool) {
		cpu, ok := f.Server.CPUPerOp()
		return cpu * 1000, ok
	}); v.State == measured {
		t.Fatalf("no repeat measured it, yet it reads %+v", v)
	}
}

// The verdict's figures are medians (the mean of the middle two of an
// even count) of one row's repeats, never the rows of other loads pooled.
func TestVerdictMediansAreOneRowsRepeats(t *testing.T) {
	wrote := func(target string, clients int, bytes ...float64) []*result.File {
		fs := timedRepeats(target, make([]float64, len(bytes))...)
		for i, f := range fs {
			f.Cell.Clients = clients
			f.Ops["q"] = result.Op{Snapshot: hist.Snapshot{Count: 100, MeanMs: 1}}
			f.Server.Measured, f.Server.WriteBytesPerOp = true, bytes[i]
		}
		return fs
	}
	var fs []*result.File
	fs = append(fs, wrote("a", 1, 1000, 3000)...)
	fs = append(fs, wrote("b", 1, 2050)...)
	fs = append(fs, wrote("a", 4, 10000)...)
	fs = append(fs, wrote("b", 4, 2000)...)
	v := strings.Join(verdict(groups(fs), "a", fs), " ")
	for _, want := range []string{
		"At 1 client without neighbours, a and b wrote about the same bytes per transaction (2.0 KiB and 2.0 KiB)",
		"at 4 clients without neighbours, b wrote 5.0× fewer bytes per transaction than a",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict lacks %q:\n%s", want, v)
		}
	}
}

// "The slowest was N× slower" is said only when the repeats put it beyond
// their noise.
func TestVerdictTestsTheSlowestAgainstTheNoise(t *testing.T) {
	var fs []*result.File
	fs = append(fs, timedRepeats("a", 1, 1.1, 0.9, 1.05, 0.95)...)
	fs = append(fs, timedRepeats("b", 1.3, 1.31, 1.29, 1.32, 1.28)...)
	fs = append(fs, timedRepeats("c", 0.5, 3, 0.8, 2.5, 1.6)...)
	v := strings.Join(verdict(groups(fs), "a", fs), " ")
	if !strings.Contains(v, "c was within the noise of a (~, 1.6× apart)") {
		t.Fatalf("a noisy slowest target was called slower:\n%s", v)
	}
}

// Space is compared in one kind of size: one target's tables against
// another's whole directory is not a comparison; the chart's caption
// names the kind its bars are.
func TestSpaceIsComparedLikeWithLike(t *testing.T) {
	fs := append(timedRepeats("a", 1), timedRepeats("b", 1)...)
	fs[0].Space = result.Space{TableBytes: 100 << 20, SettledBytes: 300 << 20, Bytes: 310 << 20}
	fs[1].Space = result.Space{SettledBytes: 150 << 20, Bytes: 160 << 20}
	v := strings.Join(verdict(groups(fs), "a", fs), " ")
	if !strings.Contains(v, "b took 2.0× less space on disk (settled data directory) than a (150.0 MiB against 300.0 MiB)") {
		t.Fatalf("space not compared in the kind both measured:\n%s", v)
	}
	figs := spaceFigures(groups(fs), "a", map[string]string{})
	if c := figs[0].Caption; !strings.Contains(c, "settled data directory") {
		t.Fatalf("caption %q does not name the settled directory its bars are", c)
	}
	fs[1].Space.TableBytes = 50 << 20
	figs = spaceFigures(groups(fs), "a", map[string]string{})
	if c := figs[0].Caption; !strings.HasPrefix(c, "Bars: tables and indexes") || strings.Contains(c, "data directory after the run") {
		t.Fatalf("caption %q: the bars are tables and indexes", c)
	}
}
