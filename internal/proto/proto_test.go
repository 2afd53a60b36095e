package proto

import (
	"fmt"
	"strings"
	"testing"
)

// An endpoint carries the server's password to its clients; printed by
// mistake into a log or a note, in any verb, it must not show it.
func TestEndpointNeverPrintsItsPassword(t *testing.T) {
	ep := TCP(SQL, "127.0.0.1", 3306)
	ep.User, ep.Password, ep.Database = "shootout", "s3cr3t-pw", "sbtest"
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if got := fmt.Sprintf(verb, ep); strings.Contains(got, ep.Password) || !strings.Contains(got, "127.0.0.1:3306") {
			t.Errorf("%s: %q, want the address without the password", verb, got)
		}
	}
	if host, port := ep.HostPort(); host != "127.0.0.1" || port != 3306 {
		t.Errorf("HostPort: %s %d", host, port)
	}
}
