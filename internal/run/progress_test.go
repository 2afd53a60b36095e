package run

import (
	"strings"
	"testing"
	"time"
)

// A dump's load counts the bytes it has read (its rows are not known
// before): its progress must say MiB, never call bytes rows.
func TestLoadProgressSaysItsUnit(t *testing.T) {
	dump := progressLine("loading mydb.sql.gz", "bytes", 3<<20, 12<<20, 2*time.Second)
	if want := "loading mydb.sql.gz: 3.0/12.0 MiB read (25%, 1.5 MiB/s)"; dump != want {
		t.Errorf("dump progress:\n got %q\nwant %q", dump, want)
	}
	if strings.Contains(dump, "rows") {
		t.Errorf("a dump's bytes are called rows: %q", dump)
	}
	rows := progressLine("loading 10000", "rows", 2500, 10000, time.Second)
	if want := "loading 10000 rows: 2500/10000 (25%, 2500 rows/s)"; rows != want {
		t.Errorf("row progress:\n got %q\nwant %q", rows, want)
	}
}
