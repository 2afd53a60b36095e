package report

import (
	"slices"

	"shootout/internal/result"
)

// named gives the cells of a target's variants (a setting the plan gave
// a list, --link: result.Cell.Variant) the variant's name as their
// target, "mariadb-galera writers=all link=1ms": each is a row of its
// own, compared with the baseline as another target would be. The files
// given are left as they are.
func named(files []*result.File) []*result.File {
	if !slices.ContainsFunc(files, func(f *result.File) bool { return f.Cell.Variant != "" }) {
		return files
	}
	out := slices.Clone(files)
	for i, f := range files {
		if f.Cell.Variant == "" {
			continue
		}
		g := *f
		g.Cell.Target += " " + f.Cell.Variant
		out[i] = &g
	}
	return out
}

// variantBaseline is the baseline among files already named: the name as
// given where a cell bears it, else, for a target run in variants (the
// report command's --baseline, a results directory without a manifest),
// its first variant, as the run takes it; files is in the run's order.
func variantBaseline(files []*result.File, baseline string) string {
	for _, f := range files {
		if f.Cell.Target == baseline {
			return baseline
		}
	}
	for _, f := range files {
		if f.Cell.Variant != "" && f.Cell.Target == baseline+" "+f.Cell.Variant {
			return f.Cell.Target
		}
	}
	return baseline
}
