package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster's own settings are refused with the plan, in the dry run
// too, not by each cell's start once the matrix runs.
func TestBadClusterSettingIsRefusedBeforeAnythingStarts(t *testing.T) {
	dir := t.TempDir()
	for setting, want := range map[string]string{"nodes: 12": `nodes="12": valid: 2 to 9`, "writers: some": `writers="some": valid: one, all`} {
		planFile := filepath.Join(dir, "plan.yaml")
		body := "targets: [mariadb-galera]\nworkloads: [oltp_point_select]\ndatasets: [\"1000\"]\nduration: 1s\nsettings:\n  mariadb-galera:\n    " + setting + "\n"
		if err := os.WriteFile(planFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := shootout(t, nil, "run", planFile, "--dry-run")
		if code != 2 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, want 2 and one line saying %q:\n%s", setting, code, want, stderr)
		}
	}
}
