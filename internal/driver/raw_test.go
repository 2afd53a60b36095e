package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two agents, one with fast and one with slow operations, start on one
// barrier; what they send, merged, counts every operation of both, and
// its extremes and interval lines are those of all of them.
func TestMergeAddsAgentsUp(t *testing.T) {
	cfg := base()
	cfg.Duration, cfg.Interval, cfg.Trim = 400*time.Millisecond, 100*time.Millisecond, 0
	cfg.Start = time.Now().Add(50 * time.Millisecond)
	var parts [2]*Raw
	var got [2]*Result
	var wg sync.WaitGroup
	for i, d := range []time.Duration{200 * time.Microsecond, 3 * time.Millisecond} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			connect, _, _, _ := connector(func(int64) (time.Duration, error) { return d, nil })
			res, err := Run(context.Background(), cfg, connect)
			if err != nil {
				t.Error(err)
				return
			}
			raw, _ := res.Raw(err)
			b, _ := json.Marshal(raw) // as it travels
			parts[i], got[i] = &Raw{}, res
			_ = json.Unmarshal(b, parts[i])
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var out bytes.Buffer
	all := cfg
	all.Clients, all.Out = 4, &out
	m, err := Merge(all, parts[:])
	if err != nil {
		t.Fatal(err)
	}
	if want := got[0].Events + got[1].Events; m.Events != want || m.All.Count != want || m.Ops["op"].Count != want {
		t.Errorf("merged events %d, histogram %d, op %d; want %d", m.Events, m.All.Count, m.Ops["op"].Count, want)
	}
	// the extremes of the two, whichever agent had them: on a busy host
	// the fast agent's worst wait can pass the slow one's
	wantMin := min(got[0].All.MinMs, got[1].All.MinMs)
	wantMax := max(got[0].All.MaxMs, got[1].All.MaxMs)
	if m.All.MinMs != wantMin || m.All.MaxMs != wantMax {
		t.Errorf("merged min/max %v/%v, want %v/%v", m.All.MinMs, m.All.MaxMs, wantMin, wantMax)
	}
	if len(m.PerClientEvents) != 4 || !strings.Contains(out.String(), "thds: 4 tps:") || len(m.Intervals) < 3 {
		t.Errorf("per-client %v, %d intervals, lines:\n%s", m.PerClientEvents, len(m.Intervals), out.String())
	}
}

// An agent whose server stopped answering sends its stall; the merged
// run's error is a stall (errors.Is ErrStalled) as an in-process run's
// is, so the owner bounds its write-back and takes the stall's evidence.
func TestMergeKeepsAnAgentsStall(t *testing.T) {
	answering := make(chan struct{})
	defer close(answering) // lets the abandoned clients finish
	connect, _, _, _ := connector(func(n int64) (time.Duration, error) {
		if n > 20 {
			<-answering
		}
		return time.Millisecond, nil
	})
	cfg := base()
	cfg.Duration, cfg.StallLimit = 2*time.Second, 200*time.Millisecond
	res, runErr := Run(context.Background(), cfg, connect)
	if !errors.Is(runErr, ErrStalled) {
		t.Fatalf("agent's run: err = %v, want ErrStalled", runErr)
	}
	raw, err := res.Raw(runErr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(raw) // as it travels
	var got Raw
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(cfg, []*Raw{&got})
	if !errors.Is(err, ErrStalled) || m == nil || !strings.Contains(err.Error(), "went unanswered for") {
		t.Fatalf("merged err = %v, want ErrStalled with the agent's words", err)
	}
}
