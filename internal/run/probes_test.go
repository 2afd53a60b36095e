package run

import (
	"errors"
	"fmt"
	"testing"
)

// fakeProbe logs its start and stop; fail makes its start fail.
type fakeProbe struct {
	name string
	fail bool
	log  *[]string
}

func (p fakeProbe) start(*window) error {
	if p.fail {
		return errors.New(p.name + " failed")
	}
	*p.log = append(*p.log, "start "+p.name)
	return nil
}

func (p fakeProbe) stop(*window) { *p.log = append(*p.log, "stop "+p.name) }

// The window stops its probes in the reverse of their start, and when one
// fails to start, those started stop, in reverse, and no later one starts.
func TestWindowStopsItsProbesInReverse(t *testing.T) {
	var log []string
	w := &window{cache: &cacheProbe{}}
	ps := []probe{fakeProbe{"a", false, &log}, fakeProbe{"b", false, &log}, fakeProbe{"c", false, &log}}
	for _, p := range ps {
		if err := p.start(w); err != nil {
			t.Fatal(err)
		}
		w.started = append(w.started, p)
	}
	w.stopProbes()
	if want := "[start a start b start c stop c stop b stop a]"; fmt.Sprint(log) != want {
		t.Errorf("%v, want %s", log, want)
	}

	log = nil
	w = &window{cache: &cacheProbe{}}
	err := w.startThese([]probe{fakeProbe{"a", false, &log}, fakeProbe{"b", false, &log}, fakeProbe{"c", true, &log}, fakeProbe{"d", false, &log}})
	if err == nil || err.Error() != "c failed" {
		t.Fatalf("err %v, want c's", err)
	}
	if want := "[start a start b stop b stop a]"; fmt.Sprint(log) != want {
		t.Errorf("%v, want %s", log, want)
	}
}

// The order of the window's probes is what their readings need: the
// page-cache window writes and syncs its control file before the
// neighbour and the disk window start; the cgroup window starts after the
// neighbour laid out its file; the samplers span the write-back, inside
// which only a cluster's nodes are read, as the clients stop.
func TestWindowProbeOrder(t *testing.T) {
	w := &window{}
	w.makeProbes()
	at := map[probe]int{}
	for i, p := range w.probes() {
		at[p] = i
	}
	before := func(a, b probe, why string) {
		if at[a] >= at[b] {
			t.Errorf("%T starts at %d, %T at %d: %s", a, at[a], b, at[b], why)
		}
	}
	before(w.state, w.preConnect, "the workload's state is read before its clients connect")
	before(w.agents, w.preConnect, "with agents, no client connects in shootout's process")
	before(w.agents, w.sampler, "the agents' start is no part of the sampled window")
	before(w.preConnect, w.cache, "clients connect before the page-cache window")
	before(w.cache, w.neighbour, "the control file is written before the neighbour runs")
	before(w.neighbour, w.group, "the neighbour's start is no part of the cgroup's window")
	before(w.group, w.disk, "the cgroup's window holds the device's")
	before(w.disk, w.sampler, "the device window holds the sampled one")
	before(w.sampler, w.app, "the server's sampler holds the application's")
	ps := w.probes()
	if last := ps[len(ps)-1]; last != probe(w.nodes) {
		t.Errorf("the innermost probe is %T, want the cluster's nodes: their counters are of the clients' run alone", last)
	}
	if next := ps[len(ps)-2]; next != probe(w.writeBack) {
		t.Errorf("the probe around the nodes' is %T, want the write-back: every other probe's reading spans it", next)
	}
}
