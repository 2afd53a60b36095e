package redmine

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// process10 takes users with a full list first, takes their issues out of
// the supply, then the users with the most, and reports when none is left.
func TestNewIssuesFeedFullListsFirst(t *testing.T) {
	p := &newIssues{count: map[int]int{5: 12, 6: 3, 7: 10, 8: 0}, busy: map[int]bool{}}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	for i := 0; i < 2; i++ {
		u, ok := p.take(rng, 0)
		if !ok || (u != 5 && u != 7) || seen[u] {
			t.Fatalf("take %d: user %d (ok %v), want 5 and 7 once each", i, u, ok)
		}
		seen[u] = true
	}
	if p.count[5] != 2 || p.count[7] != 0 {
		t.Fatalf("supply after two full lists: %v", p.count)
	}
	// user 5 still has two, but their cycle runs: not again until released
	if u, ok := p.take(rng, 0); !ok || u != 6 {
		t.Fatalf("then the most: user %d (ok %v), want 6", u, ok)
	}
	if _, ok := p.take(rng, 0); ok {
		t.Fatal("a busy user was taken again")
	}
	p.release(5)
	if u, ok := p.take(rng, 0); !ok || u != 5 {
		t.Fatalf("then user 5's two: user %d (ok %v)", u, ok)
	}
	if _, ok := p.take(rng, 0); ok {
		t.Fatalf("an empty supply gave a user: %v", p.count)
	}
	// users 5, 6, 7 are busy: of the set's four, 8 is the free one
	if u, ok := p.take(rng, 4); !ok || u != 8 {
		t.Fatalf("with none left, a free user of the set: %d (ok %v); busy %v", u, ok, p.busy)
	}
	p.assigned(9)
	if u, ok := p.take(rng, 0); !ok || u != 9 {
		t.Fatalf("a created issue feeds its assignee: user %d (ok %v)", u, ok)
	}
}

func TestDriftIsReported(t *testing.T) {
	if d := drift(map[string]int64{"process10_lists": 20, "issues_listed": 200}); len(d) != 0 {
		t.Fatalf("full lists drifted: %v", d)
	}
	d := drift(map[string]int64{"process10_lists": 20, "issues_listed": 50, "short_lists": 15, "unchanged_updates": 2})
	if len(d) != 2 || !strings.Contains(d[0], "2.5 issues per cycle") || !strings.Contains(d[0], "15 of 20") || !strings.Contains(d[1], "2 issue updates") {
		t.Fatalf("drift: %q", d)
	}
}
