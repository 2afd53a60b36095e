package run

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"shootout/internal/plan"
	"shootout/internal/workload"
)

// OwnFlag is a run flag a workload declares for the user's own files
// (workload.Own: the dump's --dump and --queries).
type OwnFlag struct{ Workload, Flag, Help string }

// OwnFlags are every workload's own run flags, by workload name, each
// workload's in its declared order.
func OwnFlags() []OwnFlag {
	all := workload.OwnFlags()
	var out []OwnFlag
	for _, wl := range slices.Sorted(func(yield func(string) bool) {
		for n := range all {
			if !yield(n) {
				return
			}
		}
	}) {
		for _, f := range all[wl].Flags {
			out = append(out, OwnFlag{Workload: wl, Flag: f.Flag, Help: f.Help})
		}
	}
	return out
}

// UseOwn puts the workload whose own flags were given (flag → value, the
// flags the command line had) in place of the plan's workloads, on the
// targets it loads into; log hears of the targets left out. With none
// given the plan is unchanged.
func UseOwn(p *plan.Plan, given map[string]string, log io.Writer) error {
	for wl, own := range workload.OwnFlags() {
		if !slices.ContainsFunc(own.Flags, func(f workload.OwnFlag) bool { _, ok := given[f.Flag]; return ok }) {
			continue
		}
		if err := useOwn(p, wl, own, given, log); err != nil {
			return err
		}
	}
	return nil
}

func useOwn(p *plan.Plan, wl string, own *workload.Own, given map[string]string, log io.Writer) error {
	var names []string
	for _, f := range own.Flags {
		names = append(names, "--"+f.Flag)
	}
	for _, f := range own.Flags {
		if given[f.Flag] == "" {
			return fmt.Errorf("%s go together: %s", strings.Join(names, " and "), own.Together)
		}
	}
	first := given[own.Flags[0].Flag]
	p.Workloads, p.Datasets = []string{wl}, []string{filepath.Base(first)}
	if p.Params == nil {
		p.Params = map[string]string{}
	}
	for _, f := range own.Flags {
		p.Params[f.Param] = given[f.Flag]
	}
	kept, left := loadsInto(wl, p.Targets)
	if len(kept) == 0 {
		return fmt.Errorf("%s loads into %s (%s); none of %s is one", names[0], own.Into, own.IntoExamples, strings.Join(p.Targets, ", "))
	}
	if len(left) > 0 {
		fmt.Fprintf(log, "%s: %s left out (%s loads into %s)\n", names[0], strings.Join(left, ", "), own.What, own.Into)
		p.Targets = kept
		if name, _, _ := strings.Cut(p.Baseline, " "); !slices.Contains(kept, name) { // a variant's baseline names its target first
			p.Baseline = ""
		}
	}
	return nil
}
