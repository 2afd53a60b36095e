package plan

import (
	"maps"
	"slices"
	"strings"

	"shootout/internal/workload"
)

// variantKey is a workload on a target.
type variantKey struct{ workload, target string }

// variant is one cell's place on the path and allocator axes, and on
// its target's own.
type variant struct {
	params    map[string]string
	allocator string
	targetVariant
}

// variantsOf expands the path and allocator axes per workload and
// target: a target runs the paths it speaks and the allocators it can
// take. The path axis sets the parameter a workload declares as its
// axis. A protocol or path no target of the plan speaks is bad input,
// found here before anything starts.
func (rs *resolver) variantsOf() (map[variantKey][]variant, error) {
	allocs, err := rs.allocators()
	if err != nil {
		return nil, err
	}
	out := map[variantKey][]variant{}
	for _, wl := range rs.p.Workloads {
		if err := rs.workloadVariants(wl, allocs, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (rs *resolver) workloadVariants(wl string, allocs map[string][]string, out map[variantKey][]variant) error {
	p := rs.p
	axis := workload.AxisParam(wl)
	if len(p.Paths) > 0 && axis == "" {
		var with []string
		for _, n := range workload.Names() {
			if workload.AxisParam(n) != "" {
				with = append(with, n)
			}
		}
		return p.errAt("paths", "%s has no access paths (%s has)", wl, strings.Join(with, ", "))
	}
	if len(p.Paths) > 0 && p.Params[axis] != "" {
		return p.errAt("paths", "the %s is given twice: in paths and in params", axis)
	}
	paths := []string{""}
	if len(p.Paths) > 0 {
		paths = p.Paths
	}
	spoken := map[string]bool{}
	for _, t := range rs.r.Targets {
		key := variantKey{wl, t.Name()}
		var why error
		for _, path := range paths {
			params, w, err := rs.onPath(wl, axis, path)
			if err != nil {
				return p.errAt("paths", "%v", err)
			}
			d, _ := rs.env.Dialect(t)
			if err := workload.Speaks(w, t.Protocol(), d); err != nil {
				why = err
				continue
			}
			spoken[path] = true
			for _, a := range allocs[t.Name()] {
				for _, tv := range rs.tvs[t.Name()] {
					out[key] = append(out[key], variant{params: params, allocator: a, targetVariant: tv})
				}
			}
		}
		if len(out[key]) == 0 {
			key := "targets"
			if len(p.Paths) > 0 {
				key = "paths"
			} else if axis != "" && p.Params[axis] != "" {
				key = "params"
			}
			return p.errAt(key, "%s on %s: %v", wl, t.Name(), why)
		}
	}
	for _, path := range paths {
		if !spoken[path] {
			return p.errAt("paths", "no target of the plan speaks %s path %s", wl, path)
		}
	}
	return nil
}

// onPath is workload wl's parameters and workload with its axis set to
// path; "" is the plan's own.
func (rs *resolver) onPath(wl, axis, path string) (map[string]string, workload.Workload, error) {
	if path == "" {
		return rs.p.Params, rs.wls[wl], nil
	}
	params := maps.Clone(rs.p.Params)
	if params == nil {
		params = map[string]string{}
	}
	params[axis] = path
	w, err := workload.New(wl, params)
	if err == nil {
		rs.made(wl, params, w)
	}
	return params, w, err
}

// allocatorNames are the allocators a plan can ask for.
var allocatorNames = []string{"glibc", "jemalloc", "tcmalloc"}

// allocators are the allocator axis's values per target: "" (the
// target's own) for one that takes none.
func (rs *resolver) allocators() (map[string][]string, error) {
	p := rs.p
	out := map[string][]string{}
	for _, a := range p.Allocators {
		if !slices.Contains(allocatorNames, a) {
			return nil, p.errAt("allocators", "%q is not an allocator: use %s", a, strings.Join(allocatorNames, ", "))
		}
	}
	only := map[string]bool{}
	for _, name := range p.AllocatorTargets {
		t, err := rs.env.Lookup(name)
		if err != nil {
			return nil, p.errAt("allocator_targets", "%v", err)
		}
		only[t.Name()] = true
	}
	for _, t := range rs.r.Targets {
		out[t.Name()] = []string{""}
		if len(p.Allocators) == 0 || (len(only) > 0 && !only[t.Name()]) {
			continue
		}
		var takes []string
		var why error
		for _, a := range p.Allocators {
			if err := rs.env.TakesAllocator(t, a); err != nil {
				why = err
				continue
			}
			takes = append(takes, a)
		}
		switch {
		case len(takes) > 0:
			out[t.Name()] = takes
		case only[t.Name()]:
			return nil, p.errAt("allocator_targets", "%s: %v", t.Name(), why)
		}
	}
	return out, nil
}
