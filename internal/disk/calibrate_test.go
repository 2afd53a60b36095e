package disk

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestModelsMatchTheirFigures runs fio on each model through the real
// mechanism (FUSE, loop device) and fails when a pattern is more than 20%
// off the model's own figure. With SHOOTOUT_TEST_SSD=1 the ssd too, whose
// speeds may be beyond what the mechanism carries on a small machine:
// there a figure that is off must be put down to the mechanism.
func TestModelsMatchTheirFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("three minutes of fio through the models")
	}
	if err := Check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	models := []string{"hdd", "cloud"}
	// the ssd's figures are at the edge of what FUSE and a loop device
	// can time on two cores (docs/disks.md): a run there misses a figure
	// by a few points one time in three, so it is checked on request
	if os.Getenv("SHOOTOUT_TEST_SSD") == "1" {
		models = append(models, "ssd")
	}
	for _, m := range models {
		t.Run(m, func(t *testing.T) {
			s, err := Parse(m)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Calibrate(s, 4, Patterns, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.Figures {
				t.Logf("%-6s %-18s model %9.1f/s measured %9.1f/s ratio %.2f late %.0f%% %s", m, f.Pattern, f.Model, f.Measured, f.Ratio, f.Late*100, f.Why)
				if !f.OK && (m != "ssd" || f.Why == "") {
					t.Errorf("%s %s: measured %.1f/s, the model gives %.1f/s (%.0f%% off, more than %.0f%%)", m, f.Pattern, f.Measured, f.Model, (f.Ratio-1)*100, Tolerance*100)
				}
			}
			t.Logf("%s: mechanism overhead %.1f µs", m, c.OverheadUS)
		})
	}
}

// TestChildrenDoNotInheritTheDisk: a process shootout starts must not
// hold the FUSE connection, or it keeps a dead shootout's disk alive and
// can wait on itself (fio exiting with IO in flight to the loop device).
func TestChildrenDoNotInheritTheDisk(t *testing.T) {
	if err := Check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	s, _ := Parse("cloud")
	d, err := Attach(s, "inherit", false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := exec.Command("sh", "-c", "ls -l /proc/$$/fd").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "/dev/fuse") {
		t.Fatalf("a child holds /dev/fuse:\n%s", out)
	}
}
