package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"shootout/internal/hist"
	"shootout/internal/result"
)

// repeatFile is one repeat of a cell with the given tps; intervals that
// would look very different from run to run are added to prove compare
// never samples them.
func repeatFile(id string, rep int, tps float64) *result.File {
	f := &result.File{Cell: result.Cell{ID: fmt.Sprintf("%s__r%d", id, rep), Target: "t", Workload: "w", Repeat: rep}, Status: "ok"}
	f.Throughput = result.Throughput{TPS: tps, QPS: 10 * tps, Events: int64(tps * 10), Latency: hist.Snapshot{Count: 10, P95Ms: 1000 / tps}}
	for i := 0; i < 20; i++ {
		f.Intervals = append(f.Intervals, result.Interval{TPS: tps*0.9 + float64(i), P95Ms: float64(i)})
	}
	return f
}

func repeats(id string, tps ...float64) []*result.File {
	var fs []*result.File
	for i, v := range tps {
		fs = append(fs, repeatFile(id, i+1, v))
	}
	return fs
}

// rowsOf returns the change column of the rows for one figure.
func rowsOf(out, figure string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "  "+figure+"  ") {
			rows = append(rows, line)
		}
	}
	return rows
}

func TestCompareSamplesRepeatsNotIntervals(t *testing.T) {
	a := repeats("x", 100, 102, 98, 101, 99)
	same := repeats("x", 101, 99, 100, 98, 102)
	var out bytes.Buffer
	Compare(&out, a, same, 0.05)
	rows := rowsOf(out.String(), "tps")
	if len(rows) != 1 || !strings.Contains(rows[0], "~ (p=") || !strings.Contains(rows[0], "5/5") {
		t.Fatalf("repeats from one distribution must be ~ with n 5/5:\n%s", out.String())
	}

	slower := repeats("x", 80, 81, 79, 82, 78)
	out.Reset()
	Compare(&out, a, slower, 0.05)
	rows = rowsOf(out.String(), "tps")
	if len(rows) != 1 || !strings.Contains(rows[0], "-20.0%") || !strings.Contains(rows[0], "p=0.008") || !strings.Contains(rows[0], "(worse)") {
		t.Fatalf("a 20%% loss in every repeat (exact p = 2/252) not reported:\n%s", out.String())
	}
	if p95 := rowsOf(out.String(), "p95 ms (all ops)"); len(p95) != 1 || !strings.Contains(p95[0], "(worse)") {
		t.Fatalf("a longer p95 is worse:\n%s", out.String())
	}
}

func TestCompareSaysHowManyRepeatsAreNeeded(t *testing.T) {
	var out bytes.Buffer
	Compare(&out, repeats("x", 100), repeats("x", 150), 0.05)
	rows := rowsOf(out.String(), "tps")
	if len(rows) != 1 || !strings.Contains(rows[0], "~ (1/1 repeats: p<0.05 needs 4+ a side)") {
		t.Fatalf("one run each cannot tell noise from change, and must say so:\n%s", out.String())
	}
}

func TestCompareRefusesCellsWithOtherConditions(t *testing.T) {
	a := repeats("x", 100, 101, 99, 100)
	b := repeats("x", 100, 101, 99, 100)
	for _, f := range b {
		f.Cell.Duration = "10s"
	}
	for _, f := range a {
		f.Cell.Duration = "30s"
	}
	var out bytes.Buffer
	Compare(&out, a, b, 0.05)
	if len(rowsOf(out.String(), "tps")) != 0 || !strings.Contains(out.String(), "duration: 30s vs 10s") {
		t.Fatalf("cells of another duration were compared, or the refusal does not say why:\n%s", out.String())
	}
}

func TestCompareLeavesUnmeasuredFiguresOut(t *testing.T) {
	a := repeats("x", 100, 101, 99, 100)
	var out bytes.Buffer
	Compare(&out, a, repeats("x", 100, 101, 99, 100), 0.05)
	if strings.Contains(out.String(), "server CPU") {
		t.Fatalf("server CPU was not measured (external server) and must not be compared as 0:\n%s", out.String())
	}
}

// A repeat that ran while the host was busy is named under the
// comparison, with the run it belongs to; quiet repeats are not.
func TestCompareNamesRepeatsOnABusyHost(t *testing.T) {
	a := repeats("x", 100, 102, 98, 101, 99)
	b := repeats("x", 80, 81, 79, 82, 78)
	others := 0.30
	b[2].Server.Host = &result.Host{StealShare: 0.02, OtherProcessesShare: &others}
	little := 0.01
	a[0].Server.Host = &result.Host{StealShare: 0.01, OtherProcessesShare: &little}
	var out bytes.Buffer
	Compare(&out, a, b, 0.05)
	want := "  B: t 0/ repeat 3: others took 32% of the CPUs during the run (steal 2%, other processes 30%)"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("missing %q:\n%s", want, out.String())
	}
	if strings.Contains(out.String(), "  A: ") {
		t.Fatalf("a quiet repeat named:\n%s", out.String())
	}
}

// One directory can hold a cell name run under two durations (a second
// run into the same --out): compare refuses the pair, naming the field,
// though the first repeats of both sides agree.
func TestCompareRefusesRepeatsOfMixedConditions(t *testing.T) {
	a := repeats("x", 100, 101, 99, 100)
	b := repeats("x", 100, 101, 99, 100)
	for _, f := range append(a, b...) {
		f.Cell.Duration = "10s"
	}
	a[2].Cell.Duration, a[3].Cell.Duration = "60s", "60s"
	b[3].Cell.Duration = "60s"
	var out bytes.Buffer
	Compare(&out, a, b, 0.05)
	if len(rowsOf(out.String(), "tps")) != 0 {
		t.Fatalf("repeats of two durations were compared:\n%s", out.String())
	}
	want := "  x: duration: 10s vs 60s (between A's repeats); duration: 10s vs 60s (between B's repeats)\n"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("want the refusal on one line naming duration %q:\n%s", want, out.String())
	}
}

// The change's interval is cut at --alpha: its level is printed as it is,
// not as the medians' 95%.
func TestCompareNamesTheChangeIntervalsLevel(t *testing.T) {
	for alpha, want := range map[float64]string{0.05: "change [95% CI]", 0.01: "change [99% CI]"} {
		var out bytes.Buffer
		Compare(&out, repeats("x", 100, 101, 99, 100, 102), repeats("x", 80, 81, 79, 80, 82), alpha)
		// the sentence is wrapped to the terminal: read it as words
		words := strings.Join(strings.Fields(out.String()), " ")
		if !strings.Contains(out.String(), want) || !strings.Contains(words, "change with its "+strings.TrimSuffix(strings.TrimPrefix(want, "change ["), " CI]")+" interval") {
			t.Errorf("--alpha %v: want %q in the header:\n%s", alpha, want, out.String())
		}
	}
}
