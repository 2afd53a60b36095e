package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"shootout/internal/result"
)

// A table is made of cells that agree in every recorded identity field
// (result.Cell.Identity) but the ones its rows and columns tell apart. The
// same cell name run twice into one directory under other conditions
// (--duration 10s, then 60s) is two tables whose titles name what differs,
// never one row whose median mixes them.

// rowField tells the rows and columns of one table apart.
func rowField(k string) bool {
	switch k {
	case "target", "variant", "clients", "conditions.neighbour", "conditions.app":
		return true
	}
	return false
}

// targetField is set per target (its server settings, program and
// transport, a cluster's link: a single server has none) or per
// neighbour (the neighbour's file): the columns of one table differ in
// them by design. A target whose own repeats disagree in one is split
// into tables of its own.
func targetField(k string) bool {
	switch k {
	case "conditions.build", "conditions.transport", "conditions.neighbour_file_bytes", "conditions.link":
		return true
	}
	return strings.HasPrefix(k, "conditions.settings.")
}

// partition splits files into tables: cells with equal identity fields,
// those skip leaves out aside. base titles a table from one of its cells;
// tables that share a base title get the fields in which they differ
// appended ("duration 10s" against "duration 60s").
func partition(files []*result.File, skip func(string) bool, base func(result.Cell) string) []*group {
	type rowKey struct{ common, target, label string }
	type tgtKey struct{ common, target string }
	common := make([]string, len(files))
	variant := make([]string, len(files))
	ids := make([]map[string]string, len(files))
	variants := map[rowKey]map[string]bool{}
	for i, f := range files {
		ids[i] = f.Cell.Identity()
		common[i] = fieldsKey(ids[i], func(k string) bool { return !skip(k) && !rowField(k) && !targetField(k) })
		variant[i] = fieldsKey(ids[i], targetField)
		rk := rowKey{common[i], f.Cell.Target, f.Cell.Label()}
		if variants[rk] == nil {
			variants[rk] = map[string]bool{}
		}
		variants[rk][variant[i]] = true
	}
	split := map[tgtKey]bool{}
	for rk, vs := range variants {
		if len(vs) > 1 {
			split[tgtKey{rk.common, rk.target}] = true
		}
	}
	byKey := map[string]*group{}
	fields := map[*group]map[string]string{}
	var out []*group
	for i, f := range files {
		c := f.Cell
		key := common[i]
		keep := func(k string) bool { return !skip(k) && !rowField(k) && !targetField(k) }
		if split[tgtKey{common[i], c.Target}] {
			key += "\x01" + c.Target + "\x01" + variant[i]
			keep = func(k string) bool { return !skip(k) && !rowField(k) }
		}
		g, ok := byKey[key]
		if !ok {
			g = &group{key: key, title: base(c)}
			byKey[key] = g
			fields[g] = map[string]string{}
			for k, v := range ids[i] {
				if keep(k) {
					fields[g][k] = v
				}
			}
			out = append(out, g)
		}
		g.files = append(g.files, f)
		if !contains(g.targets, c.Target) {
			g.targets = append(g.targets, c.Target)
		}
		if !contains(g.labels, c.Label()) {
			g.labels = append(g.labels, c.Label())
		}
	}
	nameDifferences(out, fields)
	for _, g := range out {
		sort.SliceStable(g.labels, func(i, j int) bool { return labelLess(g.labels[i], g.labels[j]) })
	}
	return out
}

// nameDifferences appends to the titles of tables that share one the
// identity fields in which they differ.
func nameDifferences(gs []*group, fields map[*group]map[string]string) {
	byTitle := map[string][]*group{}
	for _, g := range gs {
		byTitle[g.title] = append(byTitle[g.title], g)
	}
	for _, same := range byTitle {
		if len(same) < 2 {
			continue
		}
		keys := map[string]bool{}
		for _, g := range same {
			for k := range fields[g] {
				keys[k] = true
			}
		}
		var differ []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			// a target's own fields are only in the tables of a split
			// target, and differ among those only
			var vals []string
			for _, g := range same {
				if v, ok := fields[g][k]; ok || !targetField(k) || splitTable(g) {
					vals = append(vals, fmt.Sprint(v, ok))
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(vals)))) > 1 {
				differ = append(differ, k)
			}
		}
		for _, g := range same {
			var parts []string
			if splitTable(g) {
				parts = append(parts, "only "+g.targets[0])
			}
			for _, k := range differ {
				if targetField(k) && !splitTable(g) {
					continue
				}
				v, ok := fields[g][k]
				if !ok {
					v = "(unset)"
					if zero, known := omittedMeans[k]; known {
						v = zero
					}
				}
				parts = append(parts, fmt.Sprintf("%s %s", strings.TrimPrefix(k, "conditions."), v))
			}
			if len(parts) > 0 {
				g.title += ", " + strings.Join(parts, ", ")
			}
		}
	}
}

// omittedMeans is what a condition left out of a result file (its JSON
// omits the zero value) stands for in a table's title.
var omittedMeans = map[string]string{"conditions.agents": "0"}

// splitTable is a table of one target whose repeats disagreed in its own
// fields.
func splitTable(g *group) bool { return strings.Contains(g.key, "\x01") }

// fieldsKey is the fields keep selects, in one string.
func fieldsKey(id map[string]string, keep func(string) bool) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(id)) {
		if keep(k) {
			fmt.Fprintf(&b, "%s=%s\x00", k, id[k])
		}
	}
	return b.String()
}

// tableTitle is what a table's title says of every cell in it.
func tableTitle(c result.Cell) string {
	cd := c.Conditions
	title := fmt.Sprintf("%s, dataset %s", c.Workload, c.Dataset)
	if cd.MemoryBytes > 0 {
		title += fmt.Sprintf(", memory %d MiB", cd.MemoryBytes>>20)
	}
	if cd.Disk != "" {
		title += ", disk " + cd.Disk
	}
	if cd.CPUs != "" {
		title += ", cpus " + cd.CPUs
	}
	if p := c.Params["path"]; p != "" {
		title += ", path " + p
	}
	if cd.Allocator != "" {
		title += ", allocator " + cd.Allocator
	}
	return title
}

func noSkip(string) bool { return false }
