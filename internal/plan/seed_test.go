package plan_test

import (
	. "shootout/internal/plan"
	_ "shootout/internal/run"
	"slices"
	"strings"
	"testing"

	"shootout/internal/stats"
)

// The seeds' studies run on the seeds' own set-ups: seed 004 in a 3G VM
// with 1G caches on the ssd model, seeds 000/002 on the hdd model whose
// flushes are acknowledged, as their VM's were.
func TestSeedStudiesReproduceTheSeedsSetUp(t *testing.T) {
	s, err := LookupStudy("sysbench")
	if err != nil {
		t.Fatal(err)
	}
	caches := map[string][2]string{"mariadb-innodb": {"innodb_buffer_pool_size", "1G"},
		"mariadb-rocksdb": {"rocksdb_block_cache_size", "1G"}}
	for _, p := range []Plan{s.Plan, *s.Quick} {
		r, err := p.Resolve(Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cells {
			want := caches[c.Target]
			if c.Conditions.MemoryBytes != 3<<30 || c.Conditions.Disk != "ssd" || c.Clients != 50 ||
				c.Conditions.Settings[want[0]] != want[1] {
				t.Errorf("%s %s: memory %d, disk %q, clients %d, settings %v; want the seed's 3G, ssd, 50, %s=%s",
					p.Name, c.Target, c.Conditions.MemoryBytes, c.Conditions.Disk, c.Clients, c.Conditions.Settings, want[0], want[1])
			}
		}
		if p.Name == "sysbench" && r.Duration.Seconds() != 120 {
			t.Errorf("duration %v, want the seed's 120 s", r.Duration)
		}
	}
	rm, err := LookupStudy("redmine")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Plan{rm.Plan, *rm.Quick} {
		r, err := p.Resolve(Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cells {
			if c.Conditions.Disk != "hdd:flush=ignore" || c.Conditions.IOPS != 0 {
				t.Fatalf("%s: disk %q iops %d, want the hdd model with flushes acknowledged and no IOPS cap",
					c.ID, c.Conditions.Disk, c.Conditions.IOPS)
			}
		}
	}
	for _, st := range Studies {
		if (st.Seed != "") != (st.Setup != nil) {
			t.Errorf("study %s: seed %q without its set-up, or a set-up without a seed", st.Name, st.Seed)
		}
	}
}

// A run's differences from its seed are what the study cannot reproduce
// plus whatever the run changed: the quick variant's cuts, a flag.
func TestDifferencesNameWhatTheRunChanged(t *testing.T) {
	s, err := LookupStudy("sysbench")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Differences(&s.Plan, s.Setup.CPUs); !slices.Equal(got, s.Setup.Differs) {
		t.Errorf("the study as it is: %q, want only what it cannot reproduce %q", got, s.Setup.Differs)
	}
	p := *s.Quick
	p.Memory, p.Disk = "1G", "hdd"
	got := strings.Join(s.Differences(&p, s.Setup.CPUs+2), "\n")
	for _, want := range []string{"datasets: 1000000 here, 10000000 in the seed", "duration: 30s here, 2m0s in the seed",
		"memory: 1G here, 3G in the seed", "disk: hdd here, ssd in the seed", "CPUs: 4 here, 2 in the seed"} {
		if !strings.Contains(got, want) {
			t.Errorf("differences lack %q:\n%s", want, got)
		}
	}
	p = s.Plan
	p.Memory, p.Duration = "3072M", "2m"
	if got := s.Differences(&p, s.Setup.CPUs); len(got) != len(s.Setup.Differs) {
		t.Errorf("the same memory and duration spelled otherwise are no difference: %q", got)
	}
}

// The default study decides its own headline: every target as many
// times as the report's test needs, taken in turns (A B C D A B C D …).
func TestDefaultStudyTakesEnoughRepeatsInTurns(t *testing.T) {
	s, err := LookupStudy("default")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Plan.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, k := stats.LeastRepeats(DefaultAlpha), len(r.Targets)
	if len(r.Cells) != n*k {
		t.Fatalf("%d cells, want %d targets x %d repeats", len(r.Cells), k, n)
	}
	for i, c := range r.Cells {
		if c.Repeat != i/k+1 || c.Target != r.Targets[i%k].Name() {
			t.Fatalf("cell %d is %s repeat %d: the repeats do not take turns", i, c.Target, c.Repeat)
		}
	}
}
