package redmine

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
)

// newIssues is, for the cell in progress, how many New issues each user
// has assigned that no process10 cycle has taken yet: the loaded ones,
// plus those the create cycles assign. It keeps the work of every cycle
// the seed's on every target: process10 runs only for a user with a full
// list of ten (a client whose turn it is runs a create instead, counted as
// process10_waits), and a create assigns its issue to the member of the
// project closest to a full list, so the creates feed the lists. A faster
// target then runs more creates per process10 once the set's own supply
// is used, but never a shorter list.
type newIssues struct {
	mu    sync.Mutex
	count map[int]int
	// busy are the users whose process10 cycle runs: another cycle for
	// them would list the same issues and move them twice
	busy map[int]bool
}

// readNewIssues counts the New issues per assignee in the database.
func readNewIssues(ctx context.Context, db *sql.DB, bind func(string) string) (*newIssues, error) {
	rows, err := db.QueryContext(ctx, bind("SELECT assigned_to_id, COUNT(*) FROM issues WHERE status_id = ? AND assigned_to_id IS NOT NULL GROUP BY assigned_to_id"), statusNew)
	if err != nil {
		return nil, fmt.Errorf("count the New issues per user: %w", err)
	}
	defer rows.Close()
	p := &newIssues{count: map[int]int{}, busy: map[int]bool{}}
	for rows.Next() {
		var user, n int
		if err := rows.Scan(&user, &n); err != nil {
			return nil, err
		}
		p.count[user] = n
	}
	return p, rows.Err()
}

// assigned records a committed New issue for user.
func (p *newIssues) assigned(user int) {
	p.mu.Lock()
	p.count[user]++
	p.mu.Unlock()
}

// take lends process10 a free user with ten New issues or more (drawn
// at random among them) and takes ten out of the supply; ok is false when
// no free user has a full list.
func (p *newIssues) take(rng *rand.Rand) (user int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var full []int
	for u, n := range p.count {
		if n >= listLength && !p.busy[u] {
			full = append(full, u)
		}
	}
	if len(full) == 0 {
		return 0, false
	}
	// map order is random; the draw must depend on the client's rng only
	sort.Ints(full)
	user = full[rng.IntN(len(full))]
	p.count[user] -= listLength
	p.busy[user] = true
	return user, true
}

// feed is the member of ms, other than ms[author], that a create assigns
// its issue to: the one with the most New issues short of a full list
// (ties drawn by rng), or any other member when all have full lists.
func (p *newIssues) feed(rng *rand.Rand, ms []int, author int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	best, most, ties := -1, -1, 0
	for i, u := range ms {
		if i == author {
			continue
		}
		switch n := p.count[u]; {
		case n >= listLength:
		case n > most:
			best, most, ties = u, n, 1
		case n == most:
			ties++
			if rng.IntN(ties) == 0 {
				best = u
			}
		}
	}
	if best < 0 {
		return ms[(author+1+rng.IntN(len(ms)-1))%len(ms)]
	}
	return best
}

// release ends user's process10 cycle.
func (p *newIssues) release(user int) {
	p.mu.Lock()
	delete(p.busy, user)
	p.mu.Unlock()
}

// listLength is the page of process10's list: the seed's ten issues.
const listLength = 10
