package report

import (
	"strings"
	"testing"

	"shootout/internal/result"
)

// TestNodesPanel: a cluster's cell with node samples gets, under the
// clients' p95 latency, each node's CPU and the counters that moved
// (most often first), per second of each interval, a line per node;
// cells without samples get no panel.
func TestNodesPanel(t *testing.T) {
	f := &result.File{Cell: result.Cell{Target: "c", Clients: 4},
		Intervals: []result.Interval{{AtS: 1, P95Ms: 5}, {AtS: 2, P95Ms: 50}}}
	f.Nodes = []result.Node{
		{Name: "n1", Levels: []string{"paused"}, Samples: []result.NodeSample{
			{AtS: 0.5, CPUSeconds: 0, Counters: map[string]float64{"paused": 0, "sent": 10, "same": 3}},
			{AtS: 1.5, CPUSeconds: 0.5, Counters: map[string]float64{"paused": 0, "sent": 30, "same": 3}},
			{AtS: 2.5, CPUSeconds: 1.5, Counters: map[string]float64{"paused": 2, "sent": 40, "same": 3}}}},
		{Name: "n2", Samples: []result.NodeSample{
			{AtS: 0.5, Counters: map[string]float64{"paused": 0, "sent": 0}},
			{AtS: 1.5, Counters: map[string]float64{"paused": 0, "sent": 5}},
			{AtS: 2.5, Counters: map[string]float64{"paused": 0, "sent": 5}}}},
	}
	plain := &result.File{Cell: result.Cell{Target: "single", Clients: 4}, Intervals: f.Intervals}
	g := &group{files: []*result.File{f, plain}, labels: []string{f.Cell.Label()}}
	sec := nodesSection("g", g, []string{"c", "single"})
	if sec == nil || len(sec.Figures) != 1 {
		t.Fatalf("want one figure (the cluster's cell), got %+v", sec)
	}
	var got []string
	for _, c := range sec.Figures[0].Charts {
		got = append(got, c.Desc)
	}
	want := "the clients' p95 latency|each node's CPU|sent per second, by node|paused as read, by node"
	if strings.Join(got, "|") != want {
		t.Errorf("charts %q, want %q", strings.Join(got, "|"), want)
	}
	for _, c := range sec.Figures[0].Charts {
		if x := c.XTicks[len(c.XTicks)-1].Text; x != sec.Figures[0].Charts[0].XTicks[len(sec.Figures[0].Charts[0].XTicks)-1].Text {
			t.Errorf("chart %q ends at %s s, the latency's elsewhere: the charts one above the other share their seconds", c.Desc, x)
		}
	}
	if r := rates(f.Nodes[0].Samples, func(s result.NodeSample) float64 { return s.CPUSeconds }); len(r) != 3 || r[0].V != 0 || r[1].V != 0.5 || r[2].V != 1 || r[2].T != 2.5 {
		t.Errorf("n1's CPU per second %v, want 0 (from the start), 0.5 then 1 core", r)
	}
	if nodesSection("g", &group{files: []*result.File{plain}, labels: g.labels}, []string{"single"}) != nil {
		t.Error("a panel for a cell without nodes")
	}
}
