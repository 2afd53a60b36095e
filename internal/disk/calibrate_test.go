package disk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	requireMechanism(t)
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
			for i, f := range c.Figures {
				logFigure(t, m, f, "")
				// the mechanism answers through the scheduler, so a figure
				// measured while the host was busy (this VM's host took
				// 13% of its time on 2026-11-27; two busy loops here put
				// cloud fsync_4k at 0.72-0.81) says more about the host
				// than the model: such a figure is measured again on a
				// fresh disk, and so is one that is off on a quiet host,
				// once, as a burst can fall between two samples
				quietMisses := 0
				for try := 1; ; try++ {
					if missed(m, f) && !f.HostWasBusy() {
						quietMisses++
					}
					if !missed(m, f) || quietMisses == 2 || try > retries {
						break
					}
					again, err := Calibrate(s, 4, Patterns[i:i+1], nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					f = again.Figures[0]
					logFigure(t, m, f, fmt.Sprintf("(again, %d)", try))
				}
				switch {
				case !missed(m, f):
				case quietMisses < 2:
					// every measurement but at most one was on a busy
					// host: nothing can be said of the model here
					t.Logf("%s %s: inconclusive, off %d times, all but %d of them on a busy host (the last: %s)", m, f.Pattern, retries+1, quietMisses, f.HostLine())
				default:
					t.Errorf("%s %s: measured %.1f/s, the model gives %.1f/s (%.0f%% off, more than %.0f%%) on a quiet host twice (the last: %s)", m, f.Pattern, f.Measured, f.Model, (f.Ratio-1)*100, Tolerance*100, f.HostLine())
				}
			}
			t.Logf("%s: mechanism round trip by idle time %s", m, c.OverheadByIdle)
		})
	}
}

// retries is how often a figure that is off is measured again.
const retries = 3

// missed is true for a figure off the model that the model must answer
// for: on the ssd one beyond this machine's mechanism is not.
func missed(model string, f Figure) bool { return !f.OK && (model != "ssd" || f.Why == "") }

func logFigure(t *testing.T, model string, f Figure, note string) {
	t.Helper()
	t.Logf("%-6s %-18s model %9.1f/s measured %9.1f/s ratio %.2f late %.0f%% host steal %.0f%% others %.0f%% %s %s", model, f.Pattern, f.Model, f.Measured, f.Ratio, f.Late*100, f.Host.Steal*100, f.Host.Others*100, f.Why, note)
}

// TestChildrenDoNotInheritTheDisk: a process shootout starts must not
// hold the FUSE connection, or it keeps a dead shootout's disk alive and
// can wait on itself (fio exiting with IO in flight to the loop device).
func TestChildrenDoNotInheritTheDisk(t *testing.T) {
	requireMechanism(t)
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

// TestSweepEndsADiskStillServed: the sweep of a disk whose FUSE
// connection is still open (as when a child of a killed shootout held
// /dev/fuse) ends the connection instead of waiting on it, and leaves no
// mount, loop device or directory.
func TestSweepEndsADiskStillServed(t *testing.T) {
	requireMechanism(t)
	s, _ := Parse("hdd")
	d, err := Attach(s, "sweep", true)
	if err != nil {
		t.Fatal(err)
	}
	d.Activate(true)
	if err := os.WriteFile(filepath.Join(d.Mount, "data"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	swept := make(chan error, 1)
	go func() { swept <- Sweep(d.Dir) }()
	select {
	case err := <-swept:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the sweep of a served disk did not end in 60 s")
	}
	if isMount(d.Mount) || isMount(filepath.Join(d.Dir, "dev")) {
		t.Error("the sweep left a mount")
	}
	if b, err := os.ReadFile("/sys/block/" + filepath.Base(d.Loop) + "/loop/backing_file"); err == nil && strings.Contains(string(b), d.Dir) {
		t.Errorf("the sweep left %s on %s", d.Loop, b)
	}
	if _, err := os.Stat(d.Dir); !os.IsNotExist(err) {
		t.Errorf("the sweep left %s: %v", d.Dir, err)
	}
	closed := make(chan struct{})
	go func() { d.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(60 * time.Second):
		t.Fatal("closing a swept disk did not end in 60 s")
	}
}

// requireMechanism skips a test where FUSE or loop devices are missing,
// and fails it in CI, which must run it.
func requireMechanism(t *testing.T) {
	t.Helper()
	if err := Check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}
