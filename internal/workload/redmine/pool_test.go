package redmine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// process10 is lent only users with a full list, each once until their
// cycle ends; without one, the turn waits.
func TestNewIssuesLendOnlyFullLists(t *testing.T) {
	p := &newIssues{count: map[int]int{5: 22, 6: 9, 7: 10, 8: 0}, busy: map[int]bool{}}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	for i := 0; i < 2; i++ {
		u, ok := p.take(rng)
		if !ok || (u != 5 && u != 7) || seen[u] {
			t.Fatalf("take %d: user %d (ok %v), want 5 and 7 once each", i, u, ok)
		}
		seen[u] = true
	}
	if p.count[5] != 12 || p.count[7] != 0 {
		t.Fatalf("supply after two full lists: %v", p.count)
	}
	// user 5 has twelve left, but their cycle runs; user 6 has nine
	if u, ok := p.take(rng); ok {
		t.Fatalf("lent user %d: a busy user or a short list", u)
	}
	p.release(5)
	if u, ok := p.take(rng); !ok || u != 5 {
		t.Fatalf("after release, user 5's next ten: user %d (ok %v)", u, ok)
	}
	p.assigned(6)
	if u, ok := p.take(rng); !ok || u != 6 {
		t.Fatalf("a created issue completes user 6's list: user %d (ok %v)", u, ok)
	}
}

// A create assigns to the member closest to a full list, never its author.
func TestCreatesFeedTheFullestShortList(t *testing.T) {
	p := &newIssues{count: map[int]int{1: 9, 2: 10, 3: 7, 4: 8}, busy: map[int]bool{}}
	rng := rand.New(rand.NewPCG(3, 4))
	ms := []int{1, 2, 3, 4}
	if got := p.feed(rng, ms, 1); got != 1 {
		t.Fatalf("assignee %d, want user 1 (nine New issues)", got)
	}
	// the author (user 1) is never their own assignee; user 2 is full
	if got := p.feed(rng, ms, 0); got != 4 {
		t.Fatalf("assignee %d, want user 4 (eight)", got)
	}
	full := &newIssues{count: map[int]int{1: 10, 2: 10}, busy: map[int]bool{}}
	for i := 0; i < 20; i++ {
		if got := full.feed(rng, []int{1, 2}, 0); got != 2 {
			t.Fatalf("with every list full: assignee %d, want the other member", got)
		}
	}
	// and the turns: process10 waits for a full list, then alternates
	cs := cycles{nextKind: opProcess10, pool: &newIssues{count: map[int]int{4: 9}, busy: map[int]bool{}}}
	if kind, _ := cs.turn(rng, 10); kind != opCreate || cs.process10Waits != 1 {
		t.Fatalf("turn %d with no full list (waits %d), want a create", kind, cs.process10Waits)
	}
	cs.pool.assigned(4)
	if kind, user := cs.turn(rng, 10); kind != opProcess10 || user != 4 {
		t.Fatalf("turn %d user %d, want process10 for user 4", kind, user)
	}
	if kind, _ := cs.turn(rng, 10); kind != opCreate {
		t.Fatalf("turn %d after process10, want a create", kind)
	}
}

func TestDriftIsReported(t *testing.T) {
	if d := drift(map[string]int64{"process10_lists": 20, "issues_listed": 200}); len(d) != 0 {
		t.Fatalf("full lists drifted: %v", d)
	}
	d := drift(map[string]int64{"process10_lists": 20, "issues_listed": 50, "short_lists": 15, "unchanged_updates": 2, "process10_waits": 7})
	if len(d) != 3 || !strings.Contains(d[0], "2.5 issues per cycle") || !strings.Contains(d[0], "15 of 20") ||
		!strings.Contains(d[1], "7 process10 turns") || !strings.Contains(d[2], "2 issue updates") {
		t.Fatalf("drift: %q", d)
	}
}
