package target

import (
	"strings"
	"testing"
)

// TestPgSyncSettings: synchronous_commit takes the values that wait for
// the standby (on by default), a value that would not wait is refused
// naming the valid ones, and the standby's name is shootout's to set.
func TestPgSyncSettings(t *testing.T) {
	s, err := pgSyncConfig(map[string]string{"synchronous_commit": "remote_apply", "work_mem": "8MB"})
	if err != nil || s["synchronous_commit"] != "remote_apply" || s["work_mem"] != "8MB" {
		t.Errorf("parsed %v, %v", s, err)
	}
	if s, _ := pgSyncConfig(nil); s["synchronous_commit"] != "on" {
		t.Errorf("default %v", s)
	}
	for _, bad := range []map[string]string{{"synchronous_commit": "local"}, {"synchronous_commit": "off"}, {"synchronous_standby_names": "x"}} {
		if _, err := pgSyncConfig(bad); err == nil || !strings.Contains(err.Error(), "valid:") {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if (PgSync{}).CheckSettings(map[string]string{"synchronous_commit": "off"}) == nil {
		t.Error("synchronous_commit=off passes the plan's check")
	}
	if got := StartsWhat(PgSync{}, map[string]string{"synchronous_commit": "remote_write"}); !strings.Contains(got, "synchronous_commit=remote_write") || NodesOf(PgSync{}, nil) != 2 {
		t.Errorf("StartsWhat %q, nodes %d", got, NodesOf(PgSync{}, nil))
	}
}
