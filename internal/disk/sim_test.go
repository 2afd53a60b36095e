package disk

import (
	"math"
	"strings"
	"testing"
	"time"

	"shootout/internal/metrics"
)

// documented are the figures docs/disks.md gives for each model (per
// second, in the order of Patterns); the simulation must give them.
var documented = map[string][]float64{
	"hdd":   {79, 147, 156, 147, 143, 143, 120},
	"ssd":   {9720, 13720, 40000, 40000, 474, 480, 1730},
	"cloud": {1250, 1250, 3000, 3000, 119, 119, 625},
}

func TestSimulationGivesTheDocumentedFigures(t *testing.T) {
	for m, want := range documented {
		s, err := Parse(m)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range Patterns {
			got, err := Simulate(s, p, 20*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got/want[i]-1) > 0.05 {
				t.Errorf("%s %s: the model gives %.1f/s, docs/disks.md says %.0f/s", m, p.Name, got, want[i])
			}
		}
	}
}

// The HDD's behaviour, by the physics it models: NCQ helps random reads,
// a write-through drive pays a seek per write, a flush that drains the
// cache costs a revolution, and one a controller acknowledges does not.
func TestHDDVariants(t *testing.T) {
	rate := func(spec, pattern string) float64 {
		s, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range Patterns {
			if p.Name == pattern {
				v, err := Simulate(s, p, 10*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
		}
		t.Fatalf("no pattern %s", pattern)
		return 0
	}
	if q1, q16 := rate("hdd:queue=1", "randread_4k_qd16"), rate("hdd", "randread_4k_qd16"); q16 < 1.5*q1 {
		t.Errorf("NCQ: %.0f/s at QD16 with a queue of 32, %.0f/s without", q16, q1)
	}
	if wt := rate("hdd:cache=0", "randwrite_4k_qd1"); math.Abs(wt-rate("hdd", "randread_4k_qd1")) > 5 {
		t.Errorf("write-through random writes at %.0f/s, not the random read rate", wt)
	}
	if ign := rate("hdd:flush=ignore", "fsync_4k"); ign < 1000 {
		t.Errorf("flushes acknowledged by the controller still give only %.0f fsyncs/s", ign)
	}
	if rpm := rate("hdd:rpm=15000", "fsync_4k"); math.Abs(rpm-250) > 12 {
		t.Errorf("a 15k rpm drive's fsync rate is %.0f/s, want one per revolution (250/s)", rpm)
	}
}

func TestParseNamesWhatWouldBeRight(t *testing.T) {
	for in, want := range map[string]string{
		"floppy":            "want one of hdd, ssd, cloud, none",
		"hdd:rpm":           `"rpm" is not key=value`,
		"hdd:speed=1":       `no parameter "speed"`,
		"hdd:flush=maybe":   "flush=\"maybe\": want one of drain, ignore",
		"cloud:iops=lots":   "want a number",
		"ssd:size=12 bytes": "want a size",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", in, err, want)
		}
	}
	s, err := Parse("hdd:rpm=5400,flush=ignore")
	if err != nil || s.String() != "hdd:flush=ignore,rpm=5400" || s.Settings()["cache"] != "32M" {
		t.Errorf("Parse(hdd:rpm=5400,flush=ignore) = %v %v %v", s, err, s.Settings())
	}
}

// TestRandomIOPSIsTheQD16Figure: the neighbour "25%" on a model takes a
// quarter of the table's randread_4k_qd16.
func TestRandomIOPSIsTheQD16Figure(t *testing.T) {
	for model, want := range map[string]int{"hdd": 156, "cloud": 3000, "none": 0} {
		s, err := Parse(model)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.RandomIOPS(); got < want*9/10 || got > want*11/10 {
			t.Errorf("%s: RandomIOPS %d, documented %d", model, got, want)
		}
	}
}

// TestVerdictSaysTheHostWasBusy: a figure off on a busy host is still off,
// and says so; one beyond the machine is not the model's.
func TestVerdictSaysTheHostWasBusy(t *testing.T) {
	busy := Figure{Ratio: 0.7, Host: metrics.HostLoad{Steal: 0.04, Others: 0.03}}
	if v, off := busy.Verdict(); !off || !strings.Contains(v, "the host was busy (steal 4%, other processes 3% of the CPUs)") {
		t.Errorf("busy host: %q off=%v", v, off)
	}
	quiet := Figure{Ratio: 0.7, Host: metrics.HostLoad{Steal: 0.02, Others: 0.02}}
	if v, off := quiet.Verdict(); !off || strings.Contains(v, "busy") {
		t.Errorf("quiet host: %q off=%v", v, off)
	}
	beyond := Figure{Ratio: 0.7, Why: "beyond this machine"}
	if v, off := beyond.Verdict(); off || v != "beyond this machine" {
		t.Errorf("beyond the machine: %q off=%v", v, off)
	}
	if v, off := (Figure{OK: true, Host: busy.Host}).Verdict(); off || v != "ok" {
		t.Errorf("ok: %q off=%v", v, off)
	}
}
