package target_test

import (
	"strings"
	"testing"

	"shootout/internal/target"
)

// A password in the URL's query (libpq's password= and sslpassword=) is
// masked in the target's name, which goes into results, logs and reports.
func TestExternalNameMasksQueryPasswords(t *testing.T) {
	for _, raw := range []string{
		"postgres://u@127.0.0.1/db?password=s3cret",
		"postgres://u:s3cret@127.0.0.1/db?sslmode=disable&sslpassword=k3ypass",
		"postgresql://u@127.0.0.1/db?PASSWORD=s3cret#frag",
		"postgres://u@127.0.0.1/db?pass%77ord=s3cret",
		"mysql://u:s3cret@127.0.0.1/db?engine=innodb&password=k3ypass",
		"redis://:s3cret@127.0.0.1:6379/0?password=k3ypass",
	} {
		tg, err := target.ParseExternal(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		name := tg.Name()
		if strings.Contains(name, "s3cret") || strings.Contains(name, "k3ypass") || !strings.Contains(name, "***") || !strings.Contains(name, "127.0.0.1") {
			t.Errorf("%s: name %q still holds a password", raw, name)
		}
	}
}

// pgx is given the whole URL, so a host in its query, a second host or a
// fallback is where it connects: each one must be on this machine.
func TestExternalPostgresQueryHostIsLoopbackChecked(t *testing.T) {
	t.Setenv("PGHOST", "")
	t.Setenv("PGSERVICE", "")
	for raw, want := range map[string]string{
		"postgres://u@127.0.0.1:5432/db?host=10.1.2.3&port=5433&password=s3cret": `host "10.1.2.3"`,
		"postgres://u:s3cret@127.0.0.1/db?host=localhost,10.1.2.4":               `host "10.1.2.4"`,
		"postgres://u@127.0.0.1/db?host=db.example.com":                          `host "db.example.com"`,
	} {
		_, err := target.ParseExternal(raw)
		if err == nil {
			t.Errorf("%s: accepted", raw)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, want) || !strings.Contains(msg, "not a loopback address") || strings.Contains(msg, "\n") || strings.Contains(msg, "s3cret") {
			t.Errorf("%s: %q, want one line naming %s without the password", raw, msg, want)
		}
	}
	for _, raw := range []string{
		"postgres://u@127.0.0.1/db?host=/var/run/postgresql",
		"postgres://u@127.0.0.1:5432/db?host=localhost&port=5433",
	} {
		if _, err := target.ParseExternal(raw); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
