package disk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		t.Skip("a minute of fio through the models")
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
			patterns := mechanismPatterns(t, m)
			c, err := Calibrate(s, mechanismSeconds, patterns, nil, nil)
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
					again, err := Calibrate(s, mechanismSeconds, patterns[i:i+1], nil, nil)
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

// mechanismSeconds is each pattern's measured run, after the 2 s Ramp.
// The fewest IOs a run counts are hdd randread_4k_qd1's (79/s: 158 in
// 2 s; cloud's seqread_1m 238, hdd fsync_4k 240, every other pattern
// more): one IO cut at either end is 0.6% of the count, and the spread
// of a random read's seek and rotation (a coefficient of variation of
// about 0.3 per IO) leaves the mean of 158 within ~2.4% (one standard
// deviation), the simulation's own figure over the same 2 s as much:
// the 20% Tolerance is some six standard deviations of the two together.
// The figures are rates, so a longer run only narrows that spread.
const mechanismSeconds = 2

// mechanismPatterns are the patterns each model is measured with through
// the mechanism: the ones that each prove a path of the model that no
// other pattern proves (the simulation test checks every figure of every
// model in virtual time). The ssd, on request, runs them all.
func mechanismPatterns(t *testing.T, model string) []Pattern {
	t.Helper()
	names := map[string][]string{
		// hdd: a seek and a rotational wait per read (randread_4k_qd1);
		// the drive reordering its queue (randread_4k_qd16, NCQ); a full
		// write cache destaged in the head's order (randwrite_4k_qd1:
		// writes wait for room in the cache, so the host's queue depth
		// does not change the sustained rate, and randwrite_4k_qd16 gives
		// the same 147/s by the same destage); the media rate into the
		// read-ahead segment (seqread_1m) and out of the cache
		// (seqwrite_1m, destages that stream without losing a revolution);
		// a flush draining the cache, a revolution each (fsync_4k).
		"hdd": {"randread_4k_qd1", "randread_4k_qd16", "randwrite_4k_qd1", "seqread_1m", "seqwrite_1m", "fsync_4k"},
		// cloud: one latency for reads and writes alike and the same
		// two rate limits on both (engine.go's flash), so the reads
		// prove the latency (randread_4k_qd1), the IOPS limit
		// (randread_4k_qd16) and the throughput limit (seqread_1m), and
		// fsync_4k the write path and the flush after it; the writing
		// twins of the three reads gave the same figures by the same
		// code.
		"cloud": {"randread_4k_qd1", "randread_4k_qd16", "seqread_1m", "fsync_4k"},
	}[model]
	if names == nil {
		return Patterns
	}
	var out []Pattern
	for _, n := range names {
		i := slices.IndexFunc(Patterns, func(p Pattern) bool { return p.Name == n })
		if i < 0 {
			t.Fatalf("no pattern %s", n)
		}
		out = append(out, Patterns[i])
	}
	return out
}

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
