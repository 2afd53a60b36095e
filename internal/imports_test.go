package internal_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection keeps the layers honest: workloads never reach the
// runner, driver, targets or report; targets never know workloads; the
// report reads results only.
func TestImportDirection(t *testing.T) {
	forbidden := map[string][]string{
		"shootout/internal/workload/oltp": {"internal/run", "internal/driver", "internal/target", "internal/report", "internal/plan"},
		"shootout/internal/workload":      {"internal/run", "internal/driver", "internal/target", "internal/report", "internal/plan"},
		"shootout/internal/target":        {"internal/workload", "internal/run", "internal/driver", "internal/report"},
		"shootout/internal/report":        {"internal/run", "internal/target", "internal/workload", "internal/driver"},
		"shootout/internal/driver":        {"internal/target", "internal/run", "internal/plan"},
		"shootout/internal/plan":          {"internal/run", "internal/driver", "internal/target", "internal/app", "internal/disk", "internal/limits"},
		"shootout/internal/disk":          {"internal/limits", "internal/target", "internal/workload", "internal/run", "internal/driver", "internal/plan", "internal/report"},
		"shootout/internal/limits":        {"internal/target", "internal/workload", "internal/run", "internal/driver", "internal/plan", "internal/report"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if strings.HasSuffix(dep, b) || strings.Contains(dep, b+"/") {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
