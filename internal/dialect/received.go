package dialect

import (
	"context"
	"database/sql"
)

// StatementsReceived is the server's own count of the statements it has
// received (MariaDB's Questions), for statements per request of an
// application in the loop; -1 where the server keeps none or db is nil.
func (d Dialect) StatementsReceived(ctx context.Context, db *sql.DB) int64 {
	if d.Flavor != MySQL || db == nil {
		return -1
	}
	var name string
	var n int64
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Questions'").Scan(&name, &n); err != nil {
		return -1
	}
	return n
}
