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
		q = `SELECT CASE WHEN state LIKE 'idle in transaction%' THEN state ELSE COALESCE(wait_event_type || ': ' || wait_event, state) END,
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
