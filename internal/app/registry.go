package app

import (
	"fmt"

	"shootout/internal/dialect"
)

// available are the applications shootout can put in front of a
// database, each saying why it cannot run against a SQL flavour here.
var available = map[string]func(dialect.Flavor) error{"redmine": RedmineAvailable}

// Available says why the application name cannot run against flavor
// here; nil when it can.
func Available(name string, flavor dialect.Flavor) error {
	f, ok := available[name]
	if !ok {
		return fmt.Errorf("no application %q", name)
	}
	return f(flavor)
}
