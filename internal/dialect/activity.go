package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Activity says what the server's sessions other than this one are doing,
// by the server's own account, as "n state" pairs, most common first: for
// MariaDB the processlist's states ("Updating", "Waiting for backup
// lock"), for PostgreSQL pg_stat_activity's wait events ("Lock:
// relation"). It asks nothing of SQLite, which has no sessions but
// shootout's.
func (d Dialect) Activity(ctx context.Context, db *sql.DB) (string, error) {
	var q string
	switch d.Flavor {
	case MySQL:
		q = `SELECT COALESCE(NULLIF(STATE, ''), COMMAND), COUNT(*) FROM information_schema.PROCESSLIST
			WHERE COMMAND NOT IN ('Sleep', 'Daemon') AND ID <> CONNECTION_ID() GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5`
	case Postgres:
		// a session idle in a transaction is named so: it may hold the
		// locks the others wait on
		// a commit waiting on SyncRep waits for a synchronous standby
		// (that may be gone), not on this server: named so in words
		q = `SELECT CASE WHEN state LIKE 'idle in transaction%' THEN state
				WHEN wait_event = 'SyncRep' THEN 'waiting for the synchronous standby to confirm the commit (IPC: SyncRep)'
				ELSE COALESCE(wait_event_type || ': ' || wait_event, state) END,
			COUNT(*) FROM pg_stat_activity
			WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5`
	default:
		return "", nil
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, state))
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(parts) == 0 {
		return "no session busy", nil
	}
	return strings.Join(parts, ", "), nil
}

// EngineWaits is what the engine itself has waiting on storage, where it
// says so and something waits: for InnoDB, page writes its page cleaner
// submitted and has not seen complete, and reads in flight (an InnoDB
// whose io_uring writes never completed stood still with 128 pending on
// the flush list while every session showed "Updating" and no thread
// was in D state). "" when nothing waits or the engine does not say.
func (d Dialect) EngineWaits(ctx context.Context, db *sql.DB) (string, error) {
	if d.Flavor != MySQL || d.Engine != "innodb" {
		return "", nil
	}
	var flushList, lru, reads sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT SUM(PENDING_FLUSH_LIST), SUM(PENDING_FLUSH_LRU), SUM(PENDING_READS)
		FROM information_schema.INNODB_BUFFER_POOL_STATS`).Scan(&flushList, &lru, &reads)
	if err != nil {
		return "", err
	}
	if flushList.Int64+lru.Int64+reads.Int64 == 0 {
		return "", nil
	}
	return fmt.Sprintf("InnoDB has %d page writes pending (flush list %d, LRU %d) and %d page reads",
		flushList.Int64+lru.Int64, flushList.Int64, lru.Int64, reads.Int64), nil
}
