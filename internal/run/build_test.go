package run

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/testenv"
)

// mariadbBuild is the second build the tests compare with Debian's:
// MariaDB 11.4.5 from Maven Central, which `make deps-builds` unpacks.
func mariadbBuild() string {
	if d := os.Getenv("SHOOTOUT_MARIADB_BUILD"); d != "" {
		return d
	}
	return plan.MariaDBBuild
}

// TestTheSameCellOnTwoBuilds runs one shop cell on Debian's MariaDB 10.11
// and on MariaDB 11.4.5's own binaries, each initialised by its own
// mariadb-install-db, and finds each version recorded: in the cell's
// target and in its build, which makes the two cells different cells.
func TestTheSameCellOnTwoBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	dir := mariadbBuild()
	if _, err := os.Stat(dir); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true and no MariaDB 11.4.5 build at %s (make deps-builds puts it there): %v", dir, err)
		}
		t.Skipf("no second build at %s: make deps-builds", dir)
	}
	names := []string{"mariadb-innodb", "mariadb-innodb@" + dir}
	requireTargets(t, names...)
	// the two builds side by side, each server on every core (--cpus
	// all: a cell placed on its own CPUs moves the whole test process,
	// which two cells cannot share); no figure is asserted
	files := make([]*result.File, len(names))
	t.Run("builds", func(t *testing.T) {
		for i, name := range names {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				p := &plan.Plan{Name: "it", Targets: []string{name}, Workloads: []string{"shop"}, Datasets: []string{"1000"},
					Clients: []int{2}, Reps: 10, Interval: "0s", Trim: new(float64), CPUs: "all"}
				files[i] = runPlan(t, p, &Runner{}, 1)[0]
			})
		}
	})
	if t.Failed() {
		return
	}
	versions := map[string]string{}
	for _, f := range files {
		if !f.OK() {
			t.Fatalf("%s: %s", f.Cell.Target, f.Status)
		}
		versions[f.Cell.Target] = f.Target.Version
		if !strings.Contains(f.Cell.Conditions.Build, f.Target.Version[:5]) {
			t.Errorf("%s: build %q does not carry the version %q", f.Cell.Target, f.Cell.Conditions.Build, f.Target.Version)
		}
	}
	if !strings.HasPrefix(versions["mariadb-innodb"], "10.11") || !strings.HasPrefix(versions["mariadb-innodb@"+dir], "11.4.5") {
		t.Fatalf("versions %v: want Debian's 10.11 and the build's 11.4.5", versions)
	}
	if files[0].Cell.ID == files[1].Cell.ID || len(files[0].Cell.ConditionDiff(files[1].Cell)) == 0 {
		t.Fatal("the two builds' cells are the same cell")
	}
}
