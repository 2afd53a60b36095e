package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The HTML report's charts are laid out here, in Go, and only drawn by the
// template: every coordinate is a number a test can check, and the page
// needs no script.

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten, so
// that axis labels are round numbers a reader can interpolate between.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		// a relative tolerance keeps 0.3/3 from becoming 0.2
		if raw <= m*pow*(1+1e-9) {
			return m * pow
		}
	}
	return 10 * pow
}

// niceTicks covers [0, max] with at most n+1 round ticks, the last at or
// above max. A max of zero or less (nothing measured) gives [0, 1].
func niceTicks(max float64, n int) []float64 {
	if n < 1 {
		n = 1
	}
	if !(max > 0) || math.IsInf(max, 0) {
		return []float64{0, 1}
	}
	step := niceStep(max / float64(n))
	var ticks []float64
	for i := 0; ; i++ {
		v := float64(i) * step
		ticks = append(ticks, roundTo(v, step))
		if v >= max*(1-1e-9) {
			return ticks
		}
	}
}

// logTicks are the 1-2-5 ticks of a log axis from the decade at or below lo
// to the one at or above hi; spans wider than three decades keep powers of
// ten only, so labels do not collide.
func logTicks(lo, hi float64) []float64 {
	if !(lo > 0) || !(hi > 0) {
		return []float64{1, 10}
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if e1 == e0 {
		e1++
	}
	mults := []float64{1, 2, 5}
	if e1-e0 > 3 {
		mults = []float64{1}
	}
	var ticks []float64
	for e := e0; e <= e1; e++ {
		for _, m := range mults {
			v := m * math.Pow(10, e)
			if e == e1 && m > 1 {
				break
			}
			ticks = append(ticks, roundTo(v, math.Pow(10, e)))
		}
	}
	return ticks
}

// roundTo removes float noise (0.30000000000000004) at the step's precision.
func roundTo(v, step float64) float64 {
	d := decimals(step) + 2
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// decimals is how many digits after the point a tick step needs.
func decimals(step float64) int {
	if step <= 0 || step >= 1 {
		return 0
	}
	return int(math.Ceil(-math.Log10(step) - 1e-9))
}

// tickText writes a tick at its step's precision: 0, 0.5, 1 or 1000.
func tickText(v, step float64) string {
	return strconv.FormatFloat(v, 'f', decimals(step), 64)
}

// linear maps the domain [d0, d1] onto the pixel range [r0, r1]; an empty
// domain maps everything to r0.
type linear struct{ d0, d1, r0, r1 float64 }

func (s linear) at(v float64) float64 {
	if s.d1 == s.d0 {
		return s.r0
	}
	return s.r0 + (v-s.d0)/(s.d1-s.d0)*(s.r1-s.r0)
}

// logarithmic maps [d0, d1] (both > 0) onto [r0, r1] by their logarithms;
// values at or below zero land on r0.
type logarithmic struct{ d0, d1, r0, r1 float64 }

func (s logarithmic) at(v float64) float64 {
	if v <= 0 || s.d0 <= 0 || s.d1 <= s.d0 {
		return s.r0
	}
	return s.r0 + (math.Log10(v)-math.Log10(s.d0))/(math.Log10(s.d1)-math.Log10(s.d0))*(s.r1-s.r0)
}

// palette is Okabe and Ito's colour-blind safe set, yellow last because it
// is hard to see on white.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// state of one value in a chart: measured, failed (the cell's status says
// why), or missing (no such cell, e.g. a target not run at that label).
const (
	missing = iota
	measured
	failed
)

// value is one series' figure at one category.
type value struct {
	V     float64
	State int
	Why   string // the failure, for the hover title
}

// series is one target's values over a chart's categories.
type series struct {
	Name   string
	Color  string
	Values []value
}

// Pixel layout shared by the charts: a 760×300 box that CSS scales to the
// page; margins leave room for the left axis, the right (ratio) axis, the
// legend above and the category labels below.
const (
	chartW       = 760.0
	chartH       = 300.0
	marginLeft   = 64.0
	marginRight  = 60.0
	marginTop    = 34.0
	marginBottom = 40.0
	yTicks       = 5
)

type tick struct {
	Pos  float64 // y for vertical axes, x for horizontal ones
	Text string
}

type label struct {
	X, Y float64
	Text string
}

type legendItem struct {
	X, Y   float64
	Color  string
	Text   string
	Dashed bool
}

type bar struct {
	X, Y, W, H float64
	Color      string
	Failed     bool
	Title      string
}

// polyline is a run of points without gaps; a missing value splits a line
// into several.
type polyline struct {
	Color  string
	Points string // "x,y x,y …", the SVG points attribute
}

type dot struct {
	X, Y  float64
	Color string
	Title string
}

// glyph is one latency distribution: a box from p50 to p95, a whisker to
// p99 with a cap, and a dot at the maximum. Ys are pixels.
type glyph struct {
	X, W, Cx           float64
	P50, P95, P99, Max float64
	BoxY, BoxH         float64
	Color              string
	Title              string
	Failed             bool
	FailedY, FailedH   float64
}

// svgChart is everything the template draws for one chart.
type svgChart struct {
	ID            string
	W, H          float64
	Left, Right   float64 // plot area, x
	Top, Bottom   float64 // plot area, y
	YTicks        []tick
	YLabel        string
	RTicks        []tick // right axis (ratios); empty without one
	RLabel        string
	RefY          float64 // the 1× line of the ratio axis
	XTicks        []tick  // for line charts: numeric x axis
	XLabel        string
	Categories    []label
	Legend        []legendItem
	Bars          []bar
	Glyphs        []glyph
	Lines         []polyline // ratio lines or time series
	DashedLines   bool
	Dots          []dot
	Desc          string // a text alternative for screen readers
	EmptyNote     string // drawn instead of data when there is none
	FailedPattern string // id of the hatch pattern, unique per chart
}

func newChart(id string) *svgChart {
	return &svgChart{ID: id, W: chartW, H: chartH, Left: marginLeft, Right: chartW - marginRight,
		Top: marginTop, Bottom: chartH - marginBottom, FailedPattern: id + "-failed"}
}

// legend lays out one entry per series along the top edge, then the
// extra entries (the ratio lines'), wrapping to a new row where the chart
// ends and moving the plot's top down to make room. A name's width is
// estimated at 6.5 px a character of the 11 px font.
func (c *svgChart) legend(ss []series, extra ...legendItem) {
	items := make([]legendItem, 0, len(ss)+len(extra))
	for _, s := range ss {
		items = append(items, legendItem{Color: s.Color, Text: s.Name})
	}
	items = append(items, extra...)
	x, row := c.Left, 0
	for _, it := range items {
		w := 22 + 6.5*float64(len([]rune(it.Text)))
		if it.Dashed {
			w += 10
		}
		if x+w > c.W-8 && x > c.Left {
			x, row = c.Left, row+1
		}
		it.X, it.Y = x, 14+15*float64(row)
		c.Legend = append(c.Legend, it)
		x += w + 12
	}
	c.Top += 15 * float64(row)
}

// categorySlots splits the plot width into one band per category and one
// slot per series inside it, with a gap of a fifth of a band between
// groups. It returns the x of each series' slot and the slot width.
func (c *svgChart) categorySlots(ncat, nser int) (band, slotW float64, slotX func(cat, ser int) float64) {
	band = (c.Right - c.Left) / float64(max(ncat, 1))
	inner := band * 0.8
	slotW = inner / float64(max(nser, 1))
	return band, slotW, func(cat, ser int) float64 {
		return c.Left + float64(cat)*band + band*0.1 + float64(ser)*slotW
	}
}

func (c *svgChart) categoryLabels(cats []string, band float64) {
	for i, t := range cats {
		c.Categories = append(c.Categories, label{X: c.Left + (float64(i)+0.5)*band, Y: c.Bottom + 16, Text: t})
	}
}

// barChart lays out grouped bars: one group per category, one bar per
// series. With ratios, every series after the first also gets a dashed
// line of its value divided by the first series' value on a right axis
// (the seeds' "times slower than the baseline").
func barChart(id string, cats []string, ss []series, unit string, format string, ratios bool) *svgChart {
	c := newChart(id)
	if !ratios || len(ss) < 2 {
		ratios = false
		c.Right = chartW - 16
		c.legend(ss)
	} else {
		c.RLabel = "× " + ss[0].Name
		c.legend(ss, legendItem{Color: "#555", Text: c.RLabel + " (right axis)", Dashed: true})
	}
	top := 0.0
	for _, s := range ss {
		for _, v := range s.Values {
			if v.State == measured && v.V > top {
				top = v.V
			}
		}
	}
	ticks := niceTicks(top, yTicks)
	y := linear{0, ticks[len(ticks)-1], c.Bottom, c.Top}
	step := ticks[1] - ticks[0]
	for _, t := range ticks {
		c.YTicks = append(c.YTicks, tick{Pos: y.at(t), Text: tickText(t, step)})
	}
	c.YLabel = unit
	band, slotW, slotX := c.categorySlots(len(cats), len(ss))
	c.categoryLabels(cats, band)
	for si, s := range ss {
		for ci, v := range s.Values {
			x := slotX(ci, si)
			switch v.State {
			case measured:
				top := y.at(v.V)
				c.Bars = append(c.Bars, bar{X: x, Y: top, W: slotW * 0.92, H: c.Bottom - top, Color: s.Color,
					Title: fmt.Sprintf("%s, %s: "+format+" %s", s.Name, cats[ci], v.V, unit)})
			case failed:
				c.Bars = append(c.Bars, bar{X: x, Y: c.Top, W: slotW * 0.92, H: c.Bottom - c.Top, Color: s.Color, Failed: true,
					Title: fmt.Sprintf("%s, %s: %s", s.Name, cats[ci], v.Why)})
			}
		}
	}
	if ratios {
		c.ratioLines(cats, ss, band)
	}
	c.Desc = fmt.Sprintf("Bar chart of %s for %s over %s", unit, names(ss), strings.Join(cats, ", "))
	return c
}

// ratioLines draws value/baseline for every series after the first, at the
// centre of each category, on a right axis that starts at 0 and shows the
// 1× line: above it the series is slower than the baseline.
func (c *svgChart) ratioLines(cats []string, ss []series, band float64) {
	base := ss[0]
	type pt struct {
		x, r float64
		ok   bool
	}
	rs := make([][]pt, len(ss))
	top := 1.0
	for si := 1; si < len(ss); si++ {
		for ci, v := range ss[si].Values {
			b := base.Values[ci]
			p := pt{x: c.Left + (float64(ci)+0.5)*band}
			if v.State == measured && b.State == measured && b.V > 0 {
				p.r, p.ok = v.V/b.V, true
				top = math.Max(top, p.r)
			}
			rs[si] = append(rs[si], p)
		}
	}
	ticks := niceTicks(top, yTicks)
	r := linear{0, ticks[len(ticks)-1], c.Bottom, c.Top}
	step := ticks[1] - ticks[0]
	for _, t := range ticks {
		c.RTicks = append(c.RTicks, tick{Pos: r.at(t), Text: tickText(t, step) + "×"})
	}
	c.RefY = r.at(1)
	c.DashedLines = true
	for si := 1; si < len(ss); si++ {
		var run []string
		flush := func() {
			if len(run) > 1 {
				c.Lines = append(c.Lines, polyline{Color: ss[si].Color, Points: strings.Join(run, " ")})
			}
			run = nil
		}
		for ci, p := range rs[si] {
			if !p.ok {
				flush()
				continue
			}
			py := r.at(p.r)
			run = append(run, fmt.Sprintf("%.1f,%.1f", p.x, py))
			c.Dots = append(c.Dots, dot{X: p.x, Y: py, Color: ss[si].Color,
				Title: fmt.Sprintf("%s, %s: %.2f× %s", ss[si].Name, cats[ci], p.r, base.Name)})
		}
		flush()
	}
}

// percentiles are one target's latency figures at one category.
type percentiles struct {
	P50, P95, P99, Max float64
	State              int
	Why                string
}

// percentileChart draws, per category and series, the spread of latency
// on a log axis (latencies span decades): a box from p50 to p95, a whisker
// to p99 and a dot at the maximum.
func percentileChart(id string, cats []string, names []string, colors []string, vals [][]percentiles) *svgChart {
	c := newChart(id)
	c.Right = chartW - 16
	lo, hi := math.Inf(1), 0.0
	for _, row := range vals {
		for _, p := range row {
			if p.State != measured {
				continue
			}
			for _, v := range []float64{p.P50, p.P95, p.P99, p.Max} {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if hi == 0 {
		lo, hi = 1, 10
	}
	ss := make([]series, len(names))
	for i := range names {
		ss[i] = series{Name: names[i], Color: colors[i]}
	}
	c.legend(ss)
	ticks := logTicks(lo, hi)
	y := logarithmic{ticks[0], ticks[len(ticks)-1], c.Bottom, c.Top}
	for _, t := range ticks {
		c.YTicks = append(c.YTicks, tick{Pos: y.at(t), Text: strconv.FormatFloat(t, 'g', -1, 64)})
	}
	c.YLabel = "ms (log)"
	band, slotW, slotX := c.categorySlots(len(cats), len(names))
	c.categoryLabels(cats, band)
	for si := range names {
		for ci, p := range vals[si] {
			x := slotX(ci, si)
			w := slotW * 0.8
			g := glyph{X: x, W: w, Cx: x + w/2, Color: colors[si]}
			switch p.State {
			case measured:
				g.P50, g.P95, g.P99, g.Max = y.at(p.P50), y.at(p.P95), y.at(p.P99), y.at(p.Max)
				g.BoxY, g.BoxH = g.P95, math.Max(g.P50-g.P95, 1)
				g.Title = fmt.Sprintf("%s, %s: p50 %s, p95 %s, p99 %s, max %s ms", names[si], cats[ci], ms(p.P50), ms(p.P95), ms(p.P99), ms(p.Max))
				c.Glyphs = append(c.Glyphs, g)
			case failed:
				g.Failed, g.FailedY, g.FailedH = true, c.Top, c.Bottom-c.Top
				g.Title = fmt.Sprintf("%s, %s: %s", names[si], cats[ci], p.Why)
				c.Glyphs = append(c.Glyphs, g)
			}
		}
	}
	c.Desc = fmt.Sprintf("Latency percentiles (p50 to p95 box, p99 whisker, max dot) for %s over %s", strings.Join(names, ", "), strings.Join(cats, ", "))
	return c
}

// timePoint is one interval sample.
type timePoint struct{ T, V float64 }

// timeLine is one cell's samples (a target may have several repeats).
type timeLine struct {
	Name, Color string
	Points      []timePoint
}

// lineChart draws samples over time in a smaller box, for small multiples.
func lineChart(id, title string, lines []timeLine, names []string, colors []string, unit string) *svgChart {
	return lineChartTo(id, title, lines, names, colors, unit, 0)
}

// lineChartTo is lineChart with its time axis reaching tmax at least:
// charts drawn one above the other share their seconds.
func lineChartTo(id, title string, lines []timeLine, names []string, colors []string, unit string, tmax float64) *svgChart {
	c := newChart(id)
	c.W, c.H = 370, 220
	c.Left, c.Right, c.Top, c.Bottom = 52, 370-12, 30, 220-34
	vmax := 0.0
	for _, l := range lines {
		for _, p := range l.Points {
			tmax, vmax = math.Max(tmax, p.T), math.Max(vmax, p.V)
		}
	}
	ss := make([]series, len(names))
	for i := range names {
		ss[i] = series{Name: names[i], Color: colors[i]}
	}
	c.legend(ss)
	yt := niceTicks(vmax, 4)
	xt := niceTicks(tmax, 5)
	y := linear{0, yt[len(yt)-1], c.Bottom, c.Top}
	x := linear{0, xt[len(xt)-1], c.Left, c.Right}
	for _, t := range yt {
		c.YTicks = append(c.YTicks, tick{Pos: y.at(t), Text: tickText(t, yt[1]-yt[0])})
	}
	for _, t := range xt {
		c.XTicks = append(c.XTicks, tick{Pos: x.at(t), Text: tickText(t, xt[1]-xt[0])})
	}
	c.YLabel, c.XLabel = unit, "s"
	for _, l := range lines {
		var pts []string
		for _, p := range l.Points {
			px, py := x.at(p.T), y.at(p.V)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px, py))
			c.Dots = append(c.Dots, dot{X: px, Y: py, Color: l.Color, Title: fmt.Sprintf("%s at %.0f s: %.1f %s", l.Name, p.T, p.V, unit)})
		}
		if len(pts) > 1 {
			c.Lines = append(c.Lines, polyline{Color: l.Color, Points: strings.Join(pts, " ")})
		}
	}
	if len(lines) == 0 {
		c.EmptyNote = "no interval samples"
	}
	c.Desc = title
	return c
}

func names(ss []series) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

// ms writes a latency with three significant digits at least.
func ms(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
