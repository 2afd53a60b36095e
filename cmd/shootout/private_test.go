package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestRunFromAPrivateDirectory: a clone in a home directory or mktemp -d
// is mode 0700, which the postgres user cannot enter. Every server must
// still start, and nothing may be left in the fallback directory.
func TestRunFromAPrivateDirectory(t *testing.T) {
	t.Parallel() // its own shootout process, results and 0700 directory (TestMain says why)
	pg, _ := target.Lookup("postgres")
	testenv.RequireTarget(t, pg)
	my, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, my)
	home, err := os.MkdirTemp("", "shootout-home-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "clone", "results")
	before, _ := os.ReadDir(target.ReachableWorkDir)
	stdout, stderr, code := shootout(t, nil, "run", "--targets", "postgres,mariadb-innodb", "--workload", "oltp_point_select",
		"--dataset", "2000", "--clients", "2", "--duration", "1s", "--out", out)
	if code != 0 {
		t.Fatalf("run with --out under a 0700 directory: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, err := result.ReadDir(out)
	if err != nil || len(files) != 2 {
		t.Fatalf("want 2 cells: %v %d", err, len(files))
	}
	for _, f := range files {
		if !f.OK() {
			t.Errorf("%s: %s", f.Cell.Target, f.Status)
		}
	}
	if !strings.Contains(stdout+stderr, "postgres's directory is "+target.ReachableWorkDir) {
		t.Errorf("the run must say where postgres's directory went:\n%s", stderr)
	}
	if after, _ := os.ReadDir(target.ReachableWorkDir); len(after) != len(before) {
		t.Errorf("server directories left in %s: %d before, %d after", target.ReachableWorkDir, len(before), len(after))
	}
}
