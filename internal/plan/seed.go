package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"shootout/internal/units"
)

// Setup is what a seed study ran on, as its text states it, and what the
// preset still cannot reproduce here. The rest of the seed's set-up
// (memory, caches, disk model, clients, duration) is the study's Plan.
type Setup struct {
	// Machine is the seed's machine: memory, disk, CPUs.
	Machine string
	// CPUs is the seed machine's CPU count: a machine with another
	// count is a difference.
	CPUs int
	// Servers is the servers and the settings the seed used.
	Servers string
	// Differs names what the preset does not reproduce, and why.
	Differs []string
}

// Differences names how a run of the study differs from its seed: what
// the preset cannot reproduce, this machine's CPUs, and every set-up
// field the run changed from the seed's plan (the quick variant's cuts
// or the user's flags). Nil for a study without a seed.
func (s *Study) Differences(p *Plan, cores int) []string {
	if s.Setup == nil {
		return nil
	}
	out := slices.Clone(s.Setup.Differs)
	if cores > 0 && cores != s.Setup.CPUs {
		out = append(out, fmt.Sprintf("CPUs: %d here, %d in the seed", cores, s.Setup.CPUs))
	}
	seed := s.Plan
	for _, f := range setupFields {
		if here, there := f.of(p), f.of(&seed); here != there {
			out = append(out, fmt.Sprintf("%s: %s here, %s in the seed", f.name, here, there))
		}
	}
	return out
}

// setupFields are the parts of a plan that make up a seed's set-up.
var setupFields = []struct {
	name string
	of   func(*Plan) string
}{
	{"datasets", func(p *Plan) string { return strings.Join(p.Datasets, ",") }},
	{"memory", memoryOf},
	{"disk", func(p *Plan) string { return orNone(p.Disk, "the machine's own") }},
	{"iops cap", func(p *Plan) string { return orNone(fmt.Sprint(p.IOPS), "none") }},
	{"bandwidth cap", func(p *Plan) string { return orNone(p.BPS, "none") }},
	{"server CPUs", func(p *Plan) string { return orNone(p.CPUs, "the default placement") }},
	{"clients", func(p *Plan) string { return fmt.Sprint(p.Clients) }},
	{"neighbours", func(p *Plan) string { return orNone(strings.Join(p.Neighbour, ","), "0") }},
	{"duration", func(p *Plan) string {
		d := p.Duration
		if v, err := time.ParseDuration(d); err == nil {
			d = v.String()
		}
		return orNone(strings.TrimSpace(fmt.Sprintf("%s %s %s", d, countOf(p.Ops, "ops"), countOf(p.Reps, "reps"))), "none")
	}},
	{"settings", settingsText},
	{"params", func(p *Plan) string { return orNone(mapText(p.Params), "none") }},
}

func orNone(s, none string) string {
	if s == "" || s == "0" {
		return none
	}
	return s
}

func countOf(n int64, what string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s", n, what)
}

// memoryOf is each dataset's memory cap, as the seed paired them.
func memoryOf(p *Plan) string {
	var parts []string
	for _, ds := range p.Datasets {
		m := p.Memory
		if v, ok := p.DatasetMemory[ds]; ok {
			m = v
		}
		if n, err := ParseBytes(m); err == nil {
			m = units.FormatBytes(n)
		}
		parts = append(parts, orNone(m, "uncapped"))
	}
	if len(slices.Compact(slices.Clone(parts))) == 1 {
		return parts[0]
	}
	return strings.Join(parts, ",")
}

func settingsText(p *Plan) string {
	var parts []string
	for _, t := range slices.Sorted(maps.Keys(p.Settings)) {
		if kv := mapText(p.Settings[t]); kv != "" {
			parts = append(parts, t+" "+kv)
		}
	}
	return orNone(strings.Join(parts, "; "), "the servers' defaults with shootout's sizing")
}

func mapText(m map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+m[k])
	}
	return strings.Join(kv, ",")
}
