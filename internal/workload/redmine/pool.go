package redmine

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sync"
)

// newIssues is, for the cell in progress, how many New issues each user
// has assigned that no process10 cycle has taken yet: the loaded ones,
// plus those the create cycles assign. process10 takes a user who has a
// full list of ten when there is one, so every cycle does the seed's work
// while the supply lasts; after that a cycle moves what the creates fed
// (about one issue, as the cycles alternate), the same on every target for
// the same number of cycles. The run's lists are counted (short_lists,
// issues_listed) and reported as drift.
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

// take picks process10's user among those with ten New issues or more,
// else the one with the most (ties broken by rng), and takes their issues
// out of the supply so parallel cycles work on other users; when no free
// user has any, a free one of the set's users at random. ok is false only
// when every user drawn was busy.
func (p *newIssues) take(rng *rand.Rand, users int) (user int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var full []int
	best, most, ties := 0, 0, 0
	for u, n := range p.count {
		if p.busy[u] {
			continue
		}
		switch {
		case n >= listLength:
			full = append(full, u)
		case n > most:
			best, most, ties = u, n, 1
		case n == most && n > 0:
			// reservoir choice among equals, independent of map order
			ties++
			if rng.IntN(ties) == 0 {
				best = u
			}
		}
	}
	if len(full) > 0 {
		best = full[rng.IntN(len(full))]
		most = p.count[best]
	}
	if most == 0 && len(full) == 0 {
		for try := 0; try < 20 && users > 0; try++ {
			if u := userID(rng.IntN(users)); !p.busy[u] {
				p.busy[u] = true
				return u, true
			}
		}
		return 0, false
	}
	p.count[best] -= min(p.count[best], listLength)
	p.busy[best] = true
	return best, true
}

// release ends user's process10 cycle.
func (p *newIssues) release(user int) {
	p.mu.Lock()
	delete(p.busy, user)
	p.mu.Unlock()
}

// listLength is the page of process10's list: the seed's ten issues.
const listLength = 10
