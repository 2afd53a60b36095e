package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The primary's WAL positions (bytes since 0/0) and pg_stat_replication's
// view of the standby: how far it was sent, and replayed there, and the
// lags the primary last measured (seconds; 0 once the standby caught up
// and nothing is written, as PostgreSQL reports NULL then); and the
// deadlocks PostgreSQL broke in the benchmark database, which tell the
// clients' 40P01s from nothing else here but keep the cell's split of
// deadlocks from conflicts between nodes (a Galera figure) at zero.
const pgPrimaryCounters = `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8,
	COALESCE(pg_wal_lsn_diff(r.sent_lsn, '0/0'), 0)::float8,
	COALESCE(pg_wal_lsn_diff(r.replay_lsn, '0/0'), 0)::float8,
	COALESCE(EXTRACT(epoch FROM r.write_lag), 0)::float8,
	COALESCE(EXTRACT(epoch FROM r.flush_lag), 0)::float8,
	COALESCE(EXTRACT(epoch FROM r.replay_lag), 0)::float8,
	COALESCE((SELECT deadlocks FROM pg_stat_database WHERE datname = 'sbtest'), 0)::float8
	FROM (SELECT 1) one LEFT JOIN pg_stat_replication r ON r.application_name = '` + pgStandbyName + `'`

// The standby's own positions: what it received, what it replayed.
const pgStandbyCounters = `SELECT COALESCE(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0'), 0)::float8,
	COALESCE(pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0'), 0)::float8`

const pgDeadlocks = "deadlocks"

// pgSyncCounted grow: the window's figure is the difference. The rest
// are as at the end of the window.
var pgSyncCounted = map[string]bool{pgDeadlocks: true, "wal_bytes": true, "wal_sent_bytes": true, "wal_replayed_bytes": true, "wal_received_bytes": true}

func (in *pgSyncInstance) counters(ctx context.Context, i int) (map[string]float64, error) {
	db := in.nodes[i].db
	if i == 0 {
		var wal, sent, replayed, wl, fl, rl, dl float64
		if err := db.QueryRowContext(ctx, pgPrimaryCounters).Scan(&wal, &sent, &replayed, &wl, &fl, &rl, &dl); err != nil {
			return nil, err
		}
		return map[string]float64{"wal_bytes": wal, "wal_sent_bytes": sent, "wal_replayed_bytes": replayed,
			"write_lag_s": wl, "flush_lag_s": fl, "replay_lag_s": rl, pgDeadlocks: dl}, nil
	}
	var received, replayed float64
	if err := db.QueryRowContext(ctx, pgStandbyCounters).Scan(&received, &replayed); err != nil {
		return nil, err
	}
	return map[string]float64{"wal_received_bytes": received, "wal_replayed_bytes": replayed, "replay_lag_bytes": received - replayed}, nil
}

func (in *pgSyncInstance) MarkNodes(ctx context.Context) error {
	return in.markAll(func(i int) (map[string]float64, error) { return in.counters(ctx, i) }, procTreeCPU)
}

func (in *pgSyncInstance) NodeStats(ctx context.Context) ([]NodeStats, error) {
	if err := in.windowStarted(); err != nil {
		return nil, err
	}
	var out []NodeStats
	var errs []error
	for i, n := range in.nodes {
		ns := NodeStats{Name: n.name, Address: n.addr, PID: n.proc.PID()}
		if !n.proc.running() {
			ns.DiedAt = time.Now() // the node's exit is not timed: at the latest now
			ns.Unread = "it died in the run"
			out = append(out, ns)
			continue
		}
		now, err := in.counters(ctx, i)
		if err != nil {
			ns.Unread = err.Error()
			errs = append(errs, fmt.Errorf("node %s: %w", n.name, err))
			out = append(out, ns)
			continue
		}
		ns.CPUSeconds = procTreeCPU(n.proc.PID()) - in.marks[i].cpu
		ns.Counters = map[string]float64{}
		for k, v := range now {
			if pgSyncCounted[k] {
				v -= in.marks[i].counters[k]
			}
			ns.Counters[k] = v
		}
		ns.Deadlocks = ns.Counters[pgDeadlocks]
		delete(ns.Counters, pgDeadlocks)
		for k := range ns.Counters {
			if !pgSyncCounted[k] {
				ns.Levels = append(ns.Levels, k)
			}
		}
		slices.Sort(ns.Levels)
		out = append(out, ns)
	}
	in.addLinks(out)
	return out, errors.Join(errs...)
}

// caughtUp waits until the standby replayed the primary's WAL as it
// stood when asked: the clients stopped, what they committed is there.
func (in *pgSyncInstance) caughtUp(ctx context.Context, limit time.Duration) (string, error) {
	var lsn string
	if err := in.nodes[0].db.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		return "", fmt.Errorf("primary: %w", err)
	}
	deadline := time.Now().Add(limit)
	for {
		var behind float64
		err := in.nodes[1].db.QueryRowContext(ctx, "SELECT COALESCE(pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()), 1)::float8", lsn).Scan(&behind)
		if err != nil {
			return lsn, fmt.Errorf("standby: %w", err)
		}
		if behind <= 0 {
			return lsn, nil
		}
		if time.Now().After(deadline) {
			return lsn, fmt.Errorf("the standby had not replayed the primary's WAL up to %s after %v (%.0f bytes behind)", lsn, limit, behind)
		}
		select {
		case <-ctx.Done():
			return lsn, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// CheckNodes: the standby replays the primary's WAL up to where it stood
// after the run, then holds the same rows in every table.
func (in *pgSyncInstance) CheckNodes(ctx context.Context) (checked, failures []string, err error) {
	lsn, err := in.caughtUp(ctx, time.Minute)
	if err != nil {
		return nil, nil, err
	}
	checked = append(checked, "the standby replayed the primary's WAL up to "+lsn)
	dbs := make([]*sql.DB, len(in.nodes))
	for i, n := range in.nodes {
		if dbs[i], err = openSQL("pgx", fmt.Sprintf("host=%s port=5432 user=shootout password=%s dbname=sbtest", n.dir, in.pw)); err != nil {
			return checked, nil, err
		}
		defer dbs[i].Close()
	}
	tables, err := columnOf(ctx, dbs[0], "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
	if err != nil {
		return checked, nil, err
	}
	for _, t := range tables {
		counts := make([]int64, len(dbs))
		var each []string
		for i, db := range dbs {
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+t+`"`).Scan(&counts[i]); err != nil {
				return checked, failures, fmt.Errorf("node %s: %w", in.nodes[i].name, err)
			}
			each = append(each, fmt.Sprintf("%s %d", in.nodes[i].name, counts[i]))
		}
		line := fmt.Sprintf("%s rows on every node: %s", t, strings.Join(each, ", "))
		if same(counts) {
			checked = append(checked, line)
		} else {
			failures = append(failures, line)
		}
	}
	return checked, failures, nil
}

func columnOf(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// waitUntil polls ok for a minute, or until dead names a death.
func waitUntil(ctx context.Context, what string, dead func() string, ok func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		try, cancel := context.WithTimeout(ctx, 5*time.Second)
		done, err := ok(try)
		cancel()
		if done && err == nil {
			return nil
		}
		last = err
		if why := dead(); why != "" {
			return fmt.Errorf("waiting for %s: %s", what, why)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not reached in 60s (last error: %v)", what, last)
}

// procTreeCPU is the user+system seconds of a process and of every
// process under it: a postmaster's work is done by its backends. Those
// that exited count through the parent's cutime/cstime (the postmaster
// waits for each of its children).
func procTreeCPU(pid int) float64 {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(p); len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			children[pp] = append(children[pp], p)
		}
	}
	total := 0.0
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		if f := procStat(p); len(f) >= 15 {
			for _, k := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime
				v, _ := strconv.ParseFloat(f[k], 64)
				total += v / 100
			}
		}
	}
	return total
}

// procStat is /proc/PID/stat's fields after the command's name: [0] is
// the state, [1] the parent's pid, [11] utime.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil
	}
	return strings.Fields(s[i+2:])
}
