package target

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"shootout/internal/dialect"
)

// galeraCutKey schedules the fault of a link cut in the measured window:
// "n3@2s+5s" cuts node n3 off from the other nodes 2 s after the clients
// start and gives its links back 5 s later. A setting of the target, not
// a verb run from outside: the namespaces are shootout's own, the time is
// the window's (a cell's repeats cut at the same moment), and the cell
// records it with the target's other settings.
const galeraCutKey = "cut_link"

// linkCut is a scheduled cut: node (0-based), when and for how long.
type linkCut struct {
	node    int
	at, dur time.Duration
}

func (c *linkCut) String() string {
	return fmt.Sprintf("n%d@%v+%v", c.node+1, c.at, c.dur)
}

func parseLinkCut(v string, nodes int) (*linkCut, error) {
	bad := fmt.Errorf("mariadb-galera setting cut_link=%q: valid: nI@AT+FOR, node nI (n1 to n%d) cut off from the other nodes AT into the run for FOR, both Go durations (n3@2s+5s)", v, nodes)
	name, rest, ok := strings.Cut(v, "@")
	at, dur, ok2 := strings.Cut(rest, "+")
	if !ok || !ok2 || !strings.HasPrefix(name, "n") {
		return nil, bad
	}
	i, err := strconv.Atoi(name[1:])
	if err != nil || i < 1 || i > nodes {
		return nil, bad
	}
	c := &linkCut{node: i - 1}
	if c.at, err = time.ParseDuration(at); err != nil || c.at < 0 {
		return nil, bad
	}
	if c.dur, err = time.ParseDuration(dur); err != nil || c.dur <= 0 {
		return nil, bad
	}
	return c, nil
}

// cutPoll is how often every node is asked whether it is in the primary
// component while a cut lasts.
const cutPoll = 100 * time.Millisecond

// cutRun is a scheduled cut as it happened: when the links were cut and
// given back, when the cut node was in the primary component again, and
// how long each node said it was not (polled every cutPoll from the cut).
type cutRun struct {
	cut      *linkCut
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	mu                            sync.Mutex
	cutAt, restoredAt, rejoinedAt time.Time
	nonPrimary                    []time.Duration
	err                           error
}

// startCut runs the cell's cut, if its settings schedule one, from now:
// the start of the measured window.
func (in *galeraInstance) startCut() {
	if in.conf.cut == nil || in.cut != nil {
		return
	}
	in.cut = &cutRun{cut: in.conf.cut, stop: make(chan struct{}), done: make(chan struct{}), nonPrimary: make([]time.Duration, len(in.nodes))}
	go in.runCut(in.cut)
}

func (in *galeraInstance) runCut(r *cutRun) {
	defer close(r.done)
	select {
	case <-r.stop:
		return
	case <-time.After(r.cut.at):
	}
	if err := in.net.Cut(context.Background(), r.cut.node); err != nil {
		r.fail(err)
		return
	}
	now := time.Now()
	r.mu.Lock()
	r.cutAt = now
	r.mu.Unlock()
	// while a node is out, a connection its clients give back is closed,
	// not kept idle for the next client that reconnects
	in.db.SetMaxIdleConns(0)
	defer in.db.SetMaxIdleConns(dialect.IdleConns)
	defer func() {
		for i := range in.rr.out {
			in.rr.out[i].Store(false)
		}
	}()
	restoreAt := now.Add(r.cut.dur)
	tick := time.NewTicker(cutPoll)
	defer tick.Stop()
	for last := now; ; {
		select {
		case <-r.stop:
			return
		case now = <-tick.C:
		}
		if now.After(restoreAt) && !in.restoreCut(r) {
			return
		}
		if in.pollPrimary(r, now.Sub(last)) {
			return // restored, and every node in the primary component
		}
		last = now
	}
}

// restoreCut gives the cut node its links back, once; false if that
// failed (the error is the cut's).
func (in *galeraInstance) restoreCut(r *cutRun) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cutAt.IsZero() || !r.restoredAt.IsZero() || r.err != nil {
		return r.err == nil
	}
	if err := in.net.Restore(context.Background(), r.cut.node); err != nil {
		r.err = fmt.Errorf("cut_link %s: restore: %w", r.cut, err)
		return false
	}
	r.restoredAt = time.Now()
	return true
}

// pollPrimary adds since to each living node that says it is outside the
// primary component or not ready for its clients; true once the links
// are back and no node says so (the cut node has rejoined).
func (in *galeraInstance) pollPrimary(r *cutRun, since time.Duration) bool {
	allIn := true
	for i, n := range in.nodes {
		if n.gone() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := querySettings(ctx, n.db, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_cluster_status', 'wsrep_ready')")
		cancel()
		out := err != nil || st["wsrep_cluster_status"] != "Primary" || st["wsrep_ready"] != "ON"
		in.rr.out[i].Store(out)
		if out {
			allIn = false
			r.mu.Lock()
			r.nonPrimary[i] += since
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if allIn && !r.restoredAt.IsZero() {
		r.rejoinedAt = time.Now()
		return true
	}
	return false
}

func (r *cutRun) fail(err error) {
	r.mu.Lock()
	r.err = fmt.Errorf("cut_link %s: %w", r.cut, err)
	r.mu.Unlock()
}

// endCut stops the cut's watch and gives the links back if the run ended
// before the cut did: the checks after the run need every node. It
// returns what went wrong with the cut.
func (in *galeraInstance) endCut() error {
	r := in.cut
	if r == nil {
		if in.conf.cut != nil {
			// the cell's figures would read as taken under a cut
			return fmt.Errorf("cut_link %s: never started (the nodes' counters could not be marked at the run's start)", in.conf.cut)
		}
		return nil
	}
	r.stopOnce.Do(func() { close(r.stop) })
	<-r.done
	in.restoreCut(r)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && r.cutAt.IsZero() {
		return fmt.Errorf("cut_link %s: the run ended before the cut was due: no node was cut (a cut must fall inside --duration)", r.cut)
	}
	return r.err
}

// fill adds the cut to each node's figures as it stands now.
func (r *cutRun) fill(out []NodeStats) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range out {
		if i >= len(r.nonPrimary) {
			break
		}
		out[i].NonPrimary = r.nonPrimary[i]
		if i == r.cut.node {
			out[i].CutAt, out[i].RestoredAt, out[i].RejoinedAt = r.cutAt, r.restoredAt, r.rejoinedAt
		}
	}
}
