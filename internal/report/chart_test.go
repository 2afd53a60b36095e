package report

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestNiceTicksAreRoundAndCoverTheMaximum(t *testing.T) {
	for _, c := range []struct {
		max  float64
		n    int
		want []float64
	}{
		{7.3, 5, []float64{0, 2, 4, 6, 8}},
		{10, 5, []float64{0, 2, 4, 6, 8, 10}},
		{0.33, 5, []float64{0, 0.1, 0.2, 0.3, 0.4}},
		{0.3, 3, []float64{0, 0.1, 0.2, 0.3}},
		{2328.685, 5, []float64{0, 500, 1000, 1500, 2000, 2500}},
		{1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{1.32, 5, []float64{0, 0.5, 1, 1.5}},
		{0, 5, []float64{0, 1}},  // nothing measured
		{-3, 5, []float64{0, 1}}, // never a negative axis
	} {
		got := niceTicks(c.max, c.n)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("niceTicks(%v, %d) = %v, want %v", c.max, c.n, got, c.want)
		}
		if len(got) > c.n+2 {
			t.Errorf("niceTicks(%v, %d): %d ticks", c.max, c.n, len(got))
		}
	}
}

func TestNiceStepIsOneTwoOrFiveTimesAPowerOfTen(t *testing.T) {
	for raw, want := range map[float64]float64{0.03: 0.05, 0.1: 0.1, 0.11: 0.2, 1.9: 2, 2.1: 5, 7: 10, 465: 500, 0: 1} {
		if got := niceStep(raw); math.Abs(got-want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", raw, got, want)
		}
	}
}

func TestTickTextHasTheStepsPrecision(t *testing.T) {
	for _, c := range []struct {
		v, step float64
		want    string
	}{
		{0.30000000000000004, 0.1, "0.3"}, {0, 0.1, "0.0"}, {1500, 500, "1500"}, {0.05, 0.05, "0.05"}, {2, 0.5, "2.0"},
	} {
		if got := tickText(c.v, c.step); got != c.want {
			t.Errorf("tickText(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{11.6, 88, []float64{10, 20, 50, 100}},
		{4.01, 4112, []float64{1, 10, 100, 1000, 10000}}, // four decades: powers only
		{0.2, 3, []float64{0.1, 0.2, 0.5, 1, 2, 5, 10}},
		{5, 5, []float64{1, 2, 5, 10}},
		{0, 5, []float64{1, 10}},
	} {
		if got := logTicks(c.lo, c.hi); !reflect.DeepEqual(got, c.want) {
			t.Errorf("logTicks(%v, %v) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

func TestScalesMapDomainToPixels(t *testing.T) {
	y := linear{0, 2500, 260, 34} // pixels grow downwards
	for v, want := range map[float64]float64{0: 260, 2500: 34, 1250: 147} {
		if got := y.at(v); math.Abs(got-want) > 1e-9 {
			t.Errorf("linear.at(%v) = %v, want %v", v, got, want)
		}
	}
	l := logarithmic{1, 10000, 260, 40}
	for v, want := range map[float64]float64{1: 260, 100: 150, 10000: 40, 0: 260} {
		if got := l.at(v); math.Abs(got-want) > 1e-9 {
			t.Errorf("logarithmic.at(%v) = %v, want %v", v, got, want)
		}
	}
}

// TestBarChartGeometry checks the seed's chart on a known case: two
// labels, a baseline and two others, one failed cell and one missing.
func TestBarChartGeometry(t *testing.T) {
	cats := []string{"1/0", "4/x2"}
	ss := []series{
		{Name: "base", Color: "#1", Values: []value{{V: 10, State: measured}, {V: 20, State: measured}}},
		{Name: "other", Color: "#2", Values: []value{{V: 15, State: measured}, {State: failed, Why: "failed: start: boom"}}},
		{Name: "third", Color: "#3", Values: []value{{V: 5, State: measured}, {}}},
	}
	c := barChart("t", cats, ss, "ms", "%.1f", true)

	// left axis: 0..20 in steps of 5 (20/5 = 4 → 5), top tick on the plot top
	if got := tickTexts(c.YTicks); got != "0 5 10 15 20" {
		t.Errorf("left ticks %q", got)
	}
	if c.YTicks[0].Pos != c.Bottom || c.YTicks[len(c.YTicks)-1].Pos != c.Top {
		t.Errorf("ticks span %v..%v, plot %v..%v", c.YTicks[0].Pos, c.YTicks[len(c.YTicks)-1].Pos, c.Bottom, c.Top)
	}
	// category labels centred in their bands
	band := (c.Right - c.Left) / 2
	for i, l := range c.Categories {
		if l.Text != cats[i] || math.Abs(l.X-(c.Left+(float64(i)+0.5)*band)) > 1e-9 {
			t.Errorf("category %d: %+v", i, l)
		}
	}
	// five bars: the missing value draws nothing, the failed one a full-height hatch
	if len(c.Bars) != 5 {
		t.Fatalf("%d bars, want 5: %+v", len(c.Bars), c.Bars)
	}
	slot := band * 0.8 / 3
	first := c.Bars[0]
	if math.Abs(first.X-(c.Left+band*0.1)) > 1e-9 || math.Abs(first.W-slot*0.92) > 1e-9 {
		t.Errorf("first bar x %v w %v, want %v %v", first.X, first.W, c.Left+band*0.1, slot*0.92)
	}
	tallest := c.Bars[1] // base at 4/x2: 20 ms, the axis top
	if tallest.Y != c.Top || tallest.H != c.Bottom-c.Top {
		t.Errorf("20 ms bar at y %v h %v", tallest.Y, tallest.H)
	}
	half := c.Bars[0] // 10 ms: half the height
	if math.Abs(half.H-(c.Bottom-c.Top)/2) > 1e-9 {
		t.Errorf("10 ms bar height %v", half.H)
	}
	var failedBars []bar
	for _, b := range c.Bars {
		if b.Failed {
			failedBars = append(failedBars, b)
		}
	}
	if len(failedBars) != 1 || !strings.Contains(failedBars[0].Title, "failed: start: boom") || failedBars[0].H != c.Bottom-c.Top {
		t.Errorf("failed bars %+v", failedBars)
	}
	// second series' bar sits one slot right of the first's
	if d := c.Bars[2].X - c.Bars[0].X; math.Abs(d-slot) > 1e-9 {
		t.Errorf("series offset %v, want %v", d, slot)
	}

	// right axis: ratios 1.5 and 0.5 at 1/0; it starts at 0 and shows 1×
	if got := tickTexts(c.RTicks); got != "0.0× 0.5× 1.0× 1.5×" {
		t.Errorf("right ticks %q", got)
	}
	wantRef := c.Bottom - (c.Bottom-c.Top)/1.5
	if math.Abs(c.RefY-wantRef) > 1e-9 {
		t.Errorf("1× line at %v, want %v", c.RefY, wantRef)
	}
	// one point each (the other label is failed or missing): dots, no line
	if len(c.Dots) != 2 || len(c.Lines) != 0 {
		t.Fatalf("dots %+v lines %+v", c.Dots, c.Lines)
	}
	if d := c.Dots[0]; math.Abs(d.X-(c.Left+0.5*band)) > 1e-9 || math.Abs(d.Y-c.Top) > 1e-9 || !strings.Contains(d.Title, "1.50× base") {
		t.Errorf("ratio dot %+v", d)
	}
	// the legend names every target, then the dashed ratio entry
	if len(c.Legend) != 4 || !c.Legend[3].Dashed || c.Legend[3].Text != "× base (right axis)" {
		t.Errorf("legend %+v", c.Legend)
	}
}

func TestRatioLinesBreakAtGaps(t *testing.T) {
	cats := []string{"1/0", "1/x1", "2/0", "2/x1", "4/0"}
	ok := func(v float64) value { return value{V: v, State: measured} }
	ss := []series{
		{Name: "base", Values: []value{ok(1), ok(1), ok(1), ok(1), ok(1)}},
		{Name: "b", Values: []value{ok(2), ok(3), {State: failed, Why: "x"}, ok(1), ok(4)}},
	}
	c := barChart("t", cats, ss, "ms", "%.1f", true)
	if len(c.Lines) != 2 {
		t.Fatalf("%d line segments, want 2: %+v", len(c.Lines), c.Lines)
	}
	if n := len(strings.Fields(c.Lines[0].Points)); n != 2 {
		t.Errorf("first segment has %d points", n)
	}
	if len(c.Dots) != 4 {
		t.Errorf("%d dots, want 4", len(c.Dots))
	}
	// without ratios there is no right axis and the plot widens
	plain := barChart("p", cats, ss, "ms", "%.1f", false)
	if len(plain.RTicks) != 0 || plain.Right <= c.Right || len(plain.Lines) != 0 {
		t.Errorf("plain chart: right %v ticks %v lines %v", plain.Right, plain.RTicks, plain.Lines)
	}
}

func TestPercentileGlyphsOrderTheirMarks(t *testing.T) {
	vals := [][]percentiles{
		{{P50: 1, P95: 10, P99: 100, Max: 1000, State: measured}, {State: failed, Why: "failed: boom"}},
	}
	c := percentileChart("p", []string{"1/0", "2/0"}, []string{"a"}, []string{"#1"}, vals)
	if len(c.Glyphs) != 2 {
		t.Fatalf("%d glyphs", len(c.Glyphs))
	}
	g := c.Glyphs[0]
	// higher latency is higher on the page: smaller y; 1..1000 spans the axis's three decades
	if !(g.P50 > g.P95 && g.P95 > g.P99 && g.P99 > g.Max) {
		t.Errorf("marks out of order: %+v", g)
	}
	step := (c.Bottom - c.Top) / 3
	if math.Abs(g.P50-c.Bottom) > 1e-9 || math.Abs(g.P95-(c.Bottom-step)) > 1e-9 || math.Abs(g.Max-c.Top) > 1e-9 {
		t.Errorf("log positions p50 %v p95 %v max %v (plot %v..%v)", g.P50, g.P95, g.Max, c.Top, c.Bottom)
	}
	if g.BoxY != g.P95 || math.Abs(g.BoxH-(g.P50-g.P95)) > 1e-9 || g.Cx != g.X+g.W/2 {
		t.Errorf("box %+v", g)
	}
	if f := c.Glyphs[1]; !f.Failed || !strings.Contains(f.Title, "failed: boom") {
		t.Errorf("failed glyph %+v", f)
	}
}

func TestLineChartPlacesSamplesInTime(t *testing.T) {
	lines := []timeLine{{Name: "a", Color: "#1", Points: []timePoint{{1, 100}, {2, 200}, {3, 150}}}, {Name: "b", Points: []timePoint{{1, 50}}}}
	c := lineChart("l", "tps", lines, []string{"a", "b"}, []string{"#1", "#2"}, "tps")
	if len(c.Lines) != 1 || len(c.Dots) != 4 {
		t.Fatalf("lines %d dots %d", len(c.Lines), len(c.Dots))
	}
	if got := tickTexts(c.XTicks); got != "0 1 2 3" {
		t.Errorf("time ticks %q", got)
	}
	// 2 s at 200 tps, the highest sample: two thirds across, at the top
	x := c.Left + (c.Right-c.Left)*2/3
	if got, want := strings.Fields(c.Lines[0].Points)[1], fmt.Sprintf("%.1f,%.1f", x, c.Top); got != want {
		t.Errorf("second point %s, want %s", got, want)
	}
	if empty := lineChart("e", "tps", nil, nil, nil, "tps"); empty.EmptyNote == "" {
		t.Error("an empty chart says so")
	}
}

func tickTexts(ts []tick) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Text)
	}
	return strings.Join(out, " ")
}

func TestLegendWrapsAndMovesThePlotDown(t *testing.T) {
	long := strings.Repeat("x", 60) // an external server's masked URL is this long
	ss := []series{{Name: long, Values: []value{{V: 1, State: measured}}}, {Name: long, Values: []value{{V: 2, State: measured}}}}
	c := barChart("w", []string{"1/0"}, ss, "ms", "%.1f", true)
	if len(c.Legend) != 3 || c.Legend[1].Y <= c.Legend[0].Y || c.Legend[2].X != c.Left {
		t.Fatalf("legend %+v", c.Legend)
	}
	rows := 1 + (c.Legend[2].Y-c.Legend[0].Y)/15
	if c.Top != marginTop+15*(rows-1) || c.YTicks[len(c.YTicks)-1].Pos != c.Top {
		t.Errorf("plot top %v with %v legend rows", c.Top, rows)
	}
	for _, it := range c.Legend {
		if it.X+6.5*float64(len(it.Text)) > c.W+40 {
			t.Errorf("legend entry at x %v runs off the chart", it.X)
		}
	}
}
