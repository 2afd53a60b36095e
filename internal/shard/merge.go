package shard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"shootout/internal/result"
)

// run is one result directory to merge: its manifest and its cells.
type run struct {
	dir   string
	m     *result.Manifest
	cells []*result.File
}

// Refused is a merge that would have joined cells that did not measure
// the same thing: each line names a cell (or run.json) and the field.
type Refused struct{ Lines []string }

func (r *Refused) Error() string {
	return fmt.Sprintf("%d difference(s), nothing merged: the directories did not measure the same thing\n  %s",
		len(r.Lines), strings.Join(r.Lines, "\n  "))
}

// Merge joins result directories (the shards of one plan, or runs of
// several) into out, which must hold no cells yet: their cells/ files
// side by side and one run.json. It refuses, naming each cell and field,
// cells of one name whose conditions differ between directories, cells
// a different shootout build measured, a cell two directories both
// hold, and shards of one plan that are missing or given twice.
func Merge(out string, dirs []string) (*result.Manifest, error) {
	runs, err := readRuns(dirs)
	if err != nil {
		return nil, err
	}
	var lines []string
	lines = append(lines, manifestDiffs(runs)...)
	lines = append(lines, cellDiffs(runs)...)
	lines = append(lines, coverage(runs)...)
	if len(lines) > 0 {
		return nil, &Refused{Lines: lines}
	}
	if old, _ := filepath.Glob(filepath.Join(out, "cells", "*")); len(old) > 0 {
		return nil, fmt.Errorf("%s already holds cells/: give merge a new or empty directory", out)
	}
	if err := os.MkdirAll(filepath.Join(out, "cells"), 0o755); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if err := copyCells(r.dir, out); err != nil {
			return nil, err
		}
	}
	m := merged(runs)
	return m, result.WriteManifest(out, m)
}

// MachineNotes say where the directories' machines differ (cores,
// memory, kernel, Go): not refused, since twin nodes' memory can differ
// by the kernel's reservations, but said, since the report reads as one
// machine's.
func MachineNotes(dirs []string) []string {
	var out []string
	var first *result.Manifest
	for _, d := range dirs {
		m, err := result.ReadManifest(d)
		if err != nil {
			continue
		}
		if first == nil {
			first = m
			continue
		}
		if a, b := first.Machine, m.Machine; a != b {
			out = append(out, fmt.Sprintf("%s ran on another machine than %s: %d cores, %d MiB, kernel %s, %s vs %d cores, %d MiB, kernel %s, %s",
				d, dirs[0], b.Cores, b.MemBytes>>20, b.Kernel, b.GoVersion, a.Cores, a.MemBytes>>20, a.Kernel, a.GoVersion))
		}
	}
	return out
}

func readRuns(dirs []string) ([]run, error) {
	var runs []run
	for _, d := range dirs {
		m, err := result.ReadManifest(d)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s has no run.json: is it the --out of a shootout run?", d)
		}
		if err != nil {
			return nil, err
		}
		var cells []*result.File
		if _, err := os.Stat(filepath.Join(d, "cells")); err == nil {
			// a shard the plan gave no cells has run.json and no cells
			if cells, err = result.ReadDir(d); err != nil {
				return nil, err
			}
		}
		runs = append(runs, run{dir: d, m: m, cells: cells})
	}
	return runs, nil
}

// manifestDiffs are the differences between each run's program and
// plan and the first's. Another build's cells are named one by one: a
// changed driver or workload changes figures under equal conditions.
func manifestDiffs(runs []run) []string {
	var out []string
	first := runs[0]
	for _, r := range runs[1:] {
		if a, b := buildOf(first.m), buildOf(r.m); a != b {
			for _, c := range r.cells {
				out = append(out, fmt.Sprintf("%s (%s): shootout build: %s vs %s (%s)", c.Cell.ID, r.dir, b, a, first.dir))
			}
			if len(r.cells) == 0 {
				out = append(out, fmt.Sprintf("%s/run.json: shootout build: %s vs %s (%s)", r.dir, b, a, first.dir))
			}
		}
		if first.m.Shard != "" && r.m.Shard != "" {
			for _, d := range planDiffs(first.m, r.m) {
				out = append(out, fmt.Sprintf("%s/run.json: %s (%s); shards of one plan agree on it", r.dir, d, first.dir))
			}
		}
	}
	return out
}

func buildOf(m *result.Manifest) string {
	if m.Shootout == nil {
		return "(not recorded)"
	}
	return m.Shootout.Version + " build " + m.Shootout.BuildID
}

// planDiffs are what two shards of one plan must share: the plan's
// name, targets, what was skipped (a machine without a target would
// number the rows of the plan otherwise) and its cells in all.
func planDiffs(a, b *result.Manifest) []string {
	var out []string
	add := func(field string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s: %v vs %v", field, y, x))
		}
	}
	add("name", a.Name, b.Name)
	add("targets", a.Targets, b.Targets)
	add("skipped", a.Skipped, b.Skipped)
	add("plan_cells", a.PlanCells, b.PlanCells)
	return out
}

// cellDiffs refuses a cell id two directories hold, and cells of one
// name (target, workload, dataset, clients, limits) whose recorded
// conditions differ between directories: their repeats would be joined
// into one sample.
func cellDiffs(runs []run) []string {
	var out []string
	seen := map[string]string{}        // cell id -> its directory
	first := map[string]*result.File{} // name key -> first cell
	firstDir := map[string]string{}    // name key -> its directory
	for _, r := range runs {
		for _, f := range r.cells {
			c := f.Cell
			if d, ok := seen[c.ID]; ok {
				out = append(out, fmt.Sprintf("%s: in both %s and %s", c.ID, d, r.dir))
				continue
			}
			seen[c.ID] = r.dir
			k := c.NameKey()
			f0, ok := first[k]
			if !ok {
				first[k], firstDir[k] = f, r.dir
				continue
			}
			if firstDir[k] == r.dir {
				continue
			}
			for _, d := range f0.Cell.ConditionDiff(c) {
				out = append(out, fmt.Sprintf("%s (%s) vs %s (%s): %s", c.ID, r.dir, f0.Cell.ID, firstDir[k], d))
			}
		}
	}
	return out
}

// coverage refuses shards of one plan given twice or missing: a merge
// of part of a plan would report it as if it were all of it.
func coverage(runs []run) []string {
	var out []string
	byIndex := map[int]string{}
	n := 0
	for _, r := range runs {
		if r.m.Shard == "" {
			continue
		}
		s, err := Parse(r.m.Shard)
		if err != nil {
			out = append(out, fmt.Sprintf("%s/run.json: shard %v", r.dir, err))
			continue
		}
		if n != 0 && s.N != n {
			out = append(out, fmt.Sprintf("%s/run.json: shard %s of %d machines, the others' of %d", r.dir, s, s.N, n))
			continue
		}
		n = s.N
		if d, ok := byIndex[s.I]; ok {
			out = append(out, fmt.Sprintf("%s/run.json: shard %s again (%s ran it)", r.dir, s, d))
		}
		byIndex[s.I] = r.dir
	}
	for i := 0; i < n; i++ {
		if _, ok := byIndex[i]; !ok {
			out = append(out, fmt.Sprintf("shard %d/%d: no directory given ran it", i, n))
		}
	}
	return out
}

// merged is the joined run's manifest: the first's, with the cells of
// all, the earliest start, and where each part came from.
func merged(runs []run) *result.Manifest {
	m := *runs[0].m
	m.Shard, m.PlanCells, m.Cells, m.Merged = "", 0, 0, nil
	skipped := map[string]string{}
	for _, r := range runs {
		m.Cells += len(r.cells)
		if r.m.Started.Before(m.Started) {
			m.Started = r.m.Started
		}
		for _, t := range r.m.Targets {
			if !slices.Contains(m.Targets, t) {
				m.Targets = append(m.Targets, t)
			}
		}
		for t, why := range r.m.Skipped {
			skipped[t] = why
		}
		part := r.dir
		if r.m.Shard != "" {
			part += " (shard " + r.m.Shard + ")"
		}
		m.Merged = append(m.Merged, part)
	}
	for _, t := range m.Targets {
		delete(skipped, t)
	}
	m.Skipped = skipped
	if len(skipped) == 0 {
		m.Skipped = nil
	}
	return &m
}

// copyCells copies every file of dir's cells/ (cell files and the
// server logs kept beside them) into out's.
func copyCells(dir, out string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "cells", "*"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), ".") {
			continue // a temporary file a killed run left
		}
		if err := copyFile(p, filepath.Join(out, "cells", filepath.Base(p))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
