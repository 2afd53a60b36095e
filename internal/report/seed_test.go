package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"shootout/internal/result"
)

// The report's header names the seed and every difference from it, in
// lines under 100 columns; a run without a seed has no such header.
func TestSeedHeaderNamesEveryDifference(t *testing.T) {
	differs := []string{"memory: 1G here, 3G in the seed", strings.Repeat("a long reason ", 12) + "end"}
	var b strings.Builder
	SeedHeader(&b, &result.Manifest{Seed: &result.SeedSetup{Study: "sysbench", Seed: "004",
		Machine: "a VMware VM: 2 vCPU, 3 GB, an SSD", Servers: "caches 1G", Differs: differs}})
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range append([]string{"reproduces seed 004: a VMware VM", "seed's servers: caches 1G"}, differs...) {
		if !strings.Contains(flat, want) {
			t.Errorf("header lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(line) >= 100 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(line), line)
		}
	}
	b.Reset()
	SeedHeader(&b, &result.Manifest{Name: "custom"})
	if b.Len() != 0 {
		t.Errorf("a run without a seed got a seed header: %q", b.String())
	}
}
