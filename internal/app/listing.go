package app

import (
	"fmt"
	"strings"

	"shootout/internal/dialect"
)

// Footnote says whether the application in the loop (--app redmine) can
// run here, per adapter: a line of `shootout targets`.
func Footnote() string {
	var missing []string
	for _, fl := range []dialect.Flavor{dialect.MySQL, dialect.Postgres, dialect.SQLite} {
		if err := RedmineAvailable(fl); err != nil {
			missing = append(missing, string(fl))
		}
	}
	if len(missing) == 0 {
		return "--app redmine: available (Debian's Redmine under puma, in front of the MariaDB, PostgreSQL and SQLite targets)."
	}
	return fmt.Sprintf("--app redmine: unavailable for %s; fix: %s", strings.Join(missing, ", "), InstallHint)
}

// SweepNotes removes what the application servers of a shootout that is
// gone left behind, a line for each.
func SweepNotes() []string {
	var notes []string
	for _, dir := range Sweep() {
		notes = append(notes, "removed the Redmine instance "+dir+" of a shootout that is gone")
	}
	return notes
}
