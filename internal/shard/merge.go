package shard

import (
	"encoding/json"
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
// several) into out, which must hold no cells yet and be none of them
// nor inside one: their cells/ files side by side and one run.json. It
// refuses, naming each cell and field, cells of one name whose
// conditions differ between directories, cells a different shootout
// build measured, a cell two directories both hold, shards of one plan
// that are missing or given twice, a shard that did not run all its
// cells or holds one it was not to run, and shards of different plans.
// Bad input is a *Refused or *BadInput; any other error is I/O.
func Merge(out string, dirs []string) (*result.Manifest, error) {
	if err := outside(out, dirs); err != nil {
		return nil, err
	}
	runs, err := readRuns(dirs)
	if err != nil {
		return nil, err
	}
	var lines []string
	lines = append(lines, manifestDiffs(runs)...)
	lines = append(lines, cellDiffs(runs)...)
	lines = append(lines, coverage(runs)...)
	if len(lines) == 0 {
		lines = append(lines, planSum(runs)...)
	}
	if len(lines) > 0 {
		return nil, &Refused{Lines: lines}
	}
	if old, _ := filepath.Glob(filepath.Join(out, "cells", "*")); len(old) > 0 {
		return nil, &BadInput{fmt.Errorf("%s already holds cells/: give merge a new or empty directory", out)}
	}
	// the cells go to a temporary directory renamed cells/ once whole,
	// after run.json: a merge stopped partway leaves no cells/, and the
	// same merge run again completes it
	tmp := filepath.Join(out, ".cells.merging")
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	for _, r := range runs {
		if err := copyCells(r.dir, tmp); err != nil {
			return nil, err
		}
	}
	m := merged(runs)
	if err := result.WriteManifest(out, m); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(out, "cells")) // an empty one, or the rename says why not
	return m, os.Rename(tmp, filepath.Join(out, "cells"))
}

// BadInput is a merge refused for what it was given, not for an I/O
// error: a directory without run.json, an OUT that holds cells.
type BadInput struct{ Err error }

func (b *BadInput) Error() string { return b.Err.Error() }
func (b *BadInput) Unwrap() error { return b.Err }

// IsBadInput says whether err is what merge was given (exit 2) rather
// than a failure to read or write (exit 1).
func IsBadInput(err error) bool {
	var r *Refused
	var b *BadInput
	return errors.As(err, &r) || errors.As(err, &b)
}

// outside refuses an OUT that is one of the directories or inside one:
// merge would write over its run.json, or into its cells.
func outside(out string, dirs []string) error {
	o := realPath(out)
	for _, d := range dirs {
		if rel, err := filepath.Rel(realPath(d), o); err == nil && !strings.HasPrefix(rel, "..") {
			return &BadInput{fmt.Errorf("OUT %s is %s or inside it: give merge a directory of its own", out, d)}
		}
	}
	return nil
}

// realPath is p made absolute with the symbolic links of its longest
// existing part resolved.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// MachineNotes say where the directories' machines differ (cores,
// memory, kernel, Go): not refused, since twin nodes' memory can differ
// by the kernel's reservations, but said, since the report reads as one
// machine's. Memory within 1% is the same: the kernel's reservations
// alone move it that much between twins.
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
		if diffs := machineDiffs(first.Machine, m.Machine); len(diffs) > 0 {
			out = append(out, fmt.Sprintf("%s ran on another machine than %s: %s", d, dirs[0], strings.Join(diffs, ", ")))
		}
	}
	return out
}

func machineDiffs(a, b result.Machine) []string {
	var out []string
	if a.Cores != b.Cores {
		out = append(out, fmt.Sprintf("%d cores vs %d", b.Cores, a.Cores))
	}
	if d := b.MemBytes - a.MemBytes; d*100 > a.MemBytes || -d*100 > a.MemBytes {
		out = append(out, fmt.Sprintf("%d MiB of memory vs %d", b.MemBytes>>20, a.MemBytes>>20))
	}
	if a.Kernel != b.Kernel {
		out = append(out, fmt.Sprintf("kernel %s vs %s", b.Kernel, a.Kernel))
	}
	if a.GoVersion != b.GoVersion {
		out = append(out, fmt.Sprintf("%s vs %s", b.GoVersion, a.GoVersion))
	}
	return out
}

func readRuns(dirs []string) ([]run, error) {
	var runs []run
	for _, d := range dirs {
		m, err := result.ReadManifest(d)
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, &BadInput{fmt.Errorf("%s has no run.json: is it the --out of a shootout run?", d)}
		case errors.As(err, &syntax) || errors.As(err, &typ):
			return nil, &BadInput{err}
		case err != nil:
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
	// flag-built plans are all "custom": the ids tell them apart
	add("plan_digest", a.PlanDigest, b.PlanDigest)
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
		out = append(out, expected(r)...)
	}
	for i := 0; i < n; i++ {
		if _, ok := byIndex[i]; !ok {
			out = append(out, fmt.Sprintf("shard %d/%d: no directory given ran it", i, n))
		}
	}
	return out
}

// expected refuses a shard that did not run every cell it was to run
// (killed, or its node lost) and cells it was not to run: its run.json
// records which, written before its first cell.
func expected(r run) []string {
	if r.m.PlanDigest == "" {
		return []string{fmt.Sprintf("%s/run.json: no plan_digest nor shard_cells (an older shootout's shard): "+
			"run the shard again", r.dir)}
	}
	var out []string
	want := map[string]bool{}
	for _, id := range r.m.ShardCells {
		want[id] = false
	}
	for _, f := range r.cells {
		c := f.Cell
		first := c.GroupKey() + "__r1" // --repeat auto's later repeats
		switch _, ok := want[c.ID]; {
		case ok:
			want[c.ID] = true
		case r.m.ShardRepeatMax > 0 && c.Repeat > 1 && c.Repeat <= r.m.ShardRepeatMax && hasKey(want, first):
		default:
			out = append(out, fmt.Sprintf("%s (%s): not a cell shard %s of the plan was to run", c.ID, r.dir, r.m.Shard))
		}
	}
	var missing []string
	for _, id := range r.m.ShardCells {
		if !want[id] {
			missing = append(missing, id)
		}
	}
	for i, id := range missing {
		if i == 5 {
			out = append(out, fmt.Sprintf("%s: %d more of shard %s's cells missing", r.dir, len(missing)-i, r.m.Shard))
			break
		}
		out = append(out, fmt.Sprintf("%s (%s): missing: shard %s was to run it; did it finish? (run --resume completes it)",
			id, r.dir, r.m.Shard))
	}
	return out
}

func hasKey(m map[string]bool, k string) bool { _, ok := m[k]; return ok }

// planSum refuses shards whose cells to run do not add up to their
// plan's: each shard works out its share from the plan it resolved, so
// this holds unless the shards resolved different plans under one digest.
func planSum(runs []run) []string {
	var ids []string
	digest, total := "", 0
	for _, r := range runs {
		if r.m.Shard != "" {
			ids, digest, total = append(ids, r.m.ShardCells...), r.m.PlanDigest, r.m.PlanCells
		}
	}
	if digest == "" || (Digest(ids) == digest && len(ids) == total) {
		return nil
	}
	return []string{fmt.Sprintf("shard_cells: the shards' %d cells are not their plan's (plan_digest %s)", len(ids), digest)}
}

// merged is the joined run's manifest: the first's, with the cells of
// all, the earliest start, and where each part came from.
func merged(runs []run) *result.Manifest {
	m := *runs[0].m
	m.Shard, m.PlanCells, m.Cells, m.Merged = "", 0, 0, nil
	m.ShardCells, m.ShardRepeatMax, m.PlanDigest = nil, 0, ""
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
		part := filepath.Base(filepath.Clean(r.dir)) // not this host's path
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
// server logs kept beside them) into the directory to.
func copyCells(dir, to string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "cells", "*"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), ".") {
			continue // a temporary file a killed run left
		}
		if err := copyFile(p, filepath.Join(to, filepath.Base(p))); err != nil {
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
