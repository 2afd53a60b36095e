package report

import (
	"fmt"
	"maps"
	"slices"

	"shootout/internal/result"
)

// maxNodeCounters bounds the counters drawn per cell: a node keeps
// dozens, and those that moved most often come first.
const maxNodeCounters = 6

// nodesSection is the per-node panel of a cluster's cells: for each cell
// with node samples, the clients' p95 latency over time and, under it on
// the same time axis, each node's CPU and each counter that moved, per
// second in each interval, a line per node: a node's flow-control pause
// or replay lag sits under the latency it caused. Nil without samples.
func nodesSection(id string, g *group, targets []string) *section {
	sec := section{Title: "Nodes over time", Small: true,
		Note: "Per cluster cell (its first repeat): the clients' p95 latency in each interval, then each node's CPU (cores) and each of its counters that changed, per second of each interval (a line per node); nodes are read at every --interval (ten times in a run of fewer than five) from just before the clients start (results.md: nodes[].samples)."}
	for li, l := range g.labels {
		for ti, tg := range targets {
			files := pick(g.files, tg, l)
			if len(files) == 0 || !sampled(files[0]) {
				continue
			}
			f := files[0]
			cid := fmt.Sprintf("%s-nodes-%d-%d", id, li+1, ti+1)
			sec.Figures = append(sec.Figures, figure{Heading: tg + " at clients/load " + l, Charts: nodeCharts(cid, f)})
		}
	}
	if len(sec.Figures) == 0 {
		return nil
	}
	return &sec
}

func sampled(f *result.File) bool {
	for _, n := range f.Nodes {
		if len(n.Samples) > 1 {
			return true
		}
	}
	return false
}

// nodeCharts are the cell's latency chart and one chart per node figure.
func nodeCharts(id string, f *result.File) []*svgChart {
	var lat []timePoint
	tmax := 0.0
	for _, iv := range f.Intervals {
		lat = append(lat, timePoint{T: iv.AtS, V: iv.P95Ms})
		tmax = max(tmax, iv.AtS)
	}
	for _, n := range f.Nodes {
		for _, s := range n.Samples {
			tmax = max(tmax, s.AtS)
		}
	}
	lineChart := func(id, title string, lines []timeLine, names []string, colors []string, unit string) *svgChart {
		return lineChartTo(id, title, lines, names, colors, unit, tmax)
	}
	charts := []*svgChart{lineChart(id+"-p95", "the clients' p95 latency", []timeLine{{Name: "clients p95", Color: palette[0], Points: lat}}, []string{"clients p95"}, []string{palette[0]}, "p95 ms")}
	var names, colors []string
	for i, n := range f.Nodes {
		names, colors = append(names, n.Name), append(colors, palette[(i+1)%len(palette)])
	}
	per := func(get func(result.NodeSample) float64) []timeLine {
		var lines []timeLine
		for i, n := range f.Nodes {
			lines = append(lines, timeLine{Name: n.Name, Color: colors[i], Points: rates(n.Samples, get)})
		}
		return lines
	}
	charts = append(charts, lineChart(id+"-cpu", "each node's CPU", per(func(s result.NodeSample) float64 { return s.CPUSeconds }), names, colors, "CPU cores"))
	levels := map[string]bool{}
	for _, n := range f.Nodes {
		for _, l := range n.Levels {
			levels[l] = true
		}
	}
	for k, name := range movedCounters(f.Nodes) {
		get := func(s result.NodeSample) float64 { return s.Counters[name] }
		cid := fmt.Sprintf("%s-c%d", id, k+1)
		if levels[name] {
			charts = append(charts, lineChart(cid, name+" as read, by node", values(f.Nodes, colors, get), names, colors, name))
			continue
		}
		charts = append(charts, lineChart(cid, name+" per second, by node", per(get), names, colors, name+"/s"))
	}
	return charts
}

// values are a level's readings as they are (a lag, a queue's mean).
func values(nodes []result.Node, colors []string, get func(result.NodeSample) float64) []timeLine {
	var lines []timeLine
	for i, n := range nodes {
		var pts []timePoint
		for _, s := range n.Samples {
			pts = append(pts, timePoint{T: s.AtS, V: get(s)})
		}
		lines = append(lines, timeLine{Name: n.Name, Color: colors[i], Points: pts})
	}
	return lines
}

// rates are a figure's change per second between successive samples,
// at each interval's end; the first from the window's start, where every
// figure of a sample is 0 (they are since then).
func rates(samples []result.NodeSample, get func(result.NodeSample) float64) []timePoint {
	var out []timePoint
	prev := result.NodeSample{}
	for _, s := range samples {
		if dt := s.AtS - prev.AtS; dt > 0 {
			out = append(out, timePoint{T: s.AtS, V: max(0, (get(s)-get(prev))/dt)})
		}
		prev = s
	}
	return out
}

// movedCounters are the counters that changed between samples on any
// node, those that changed in the most intervals first (then by name),
// at most maxNodeCounters.
func movedCounters(nodes []result.Node) []string {
	moved := map[string]int{}
	for _, n := range nodes {
		for i := 1; i < len(n.Samples); i++ {
			for k, v := range n.Samples[i].Counters {
				if v != n.Samples[i-1].Counters[k] {
					moved[k]++
				}
			}
		}
	}
	names := slices.SortedFunc(maps.Keys(moved), func(a, b string) int {
		if moved[a] != moved[b] {
			return moved[b] - moved[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	return names[:min(len(names), maxNodeCounters)]
}
