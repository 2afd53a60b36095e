package disk

import (
	"os"
	"testing"
)

// TestModelsMatchTheirFigures runs fio on each model through the real
// mechanism (FUSE, loop device) and fails when a pattern is more than 20%
// off the model's own figure. The ssd's speeds may be beyond what the
// mechanism carries on a small machine: there a figure that is off must
// be put down to the mechanism, with the late commands to show for it.
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
	for _, m := range []string{"hdd", "cloud", "ssd"} {
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
