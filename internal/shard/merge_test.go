package shard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"shootout/internal/result"
)

// writeShard writes what run --shard s writes of the plan's cells.
func writeShard(t *testing.T, dir string, all []result.Cell, s Spec, build string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := Select(all, s)
	for _, c := range mine {
		if err := result.Write(dir, &result.File{Cell: c, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	m := &result.Manifest{Name: "p", Targets: []string{"a", "b"}, Cells: len(mine), Shard: s.String(), PlanCells: len(all),
		Shootout: &result.Build{Version: "(devel)", BuildID: build}, ShardCells: IDs(mine), PlanDigest: Digest(IDs(all))}
	if err := result.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

func ids(t *testing.T, dir string) []string {
	t.Helper()
	files, err := result.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Cell.ID)
	}
	return out
}

// Merging every shard gives the plan's cells, each once, and a run.json
// that counts them and names the shards.
func TestMergeJoinsShardsIntoThePlansCells(t *testing.T) {
	tmp := t.TempDir()
	all := cells(2, 3, "a", "b")
	var dirs []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(tmp, "shard", string(rune('0'+i)))
		writeShard(t, d, all, Spec{I: i, N: 3}, "b1")
		dirs = append(dirs, d)
	}
	out := filepath.Join(tmp, "merged")
	m, err := Merge(out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range all {
		want = append(want, c.ID)
	}
	slices.Sort(want)
	if got := ids(t, out); !slices.Equal(got, want) {
		t.Fatalf("merged cells %v, want %v", got, want)
	}
	back, err := result.ReadManifest(out)
	if err != nil || back.Cells != len(all) || back.Shard != "" || len(back.Merged) != 3 || m.Cells != len(all) {
		t.Fatalf("merged run.json %+v (%v)", back, err)
	}
	if back.Merged[0] != "0 (shard 0/3)" || back.ShardCells != nil || back.PlanDigest != "" {
		t.Errorf("merged records %q (base names, not this host's paths), shard_cells %v", back.Merged, back.ShardCells)
	}
	if notes := MachineNotes(dirs); len(notes) != 0 {
		t.Errorf("twin machines noted as different: %v", notes)
	}
	m2, _ := result.ReadManifest(dirs[2])
	m2.Machine.Cores = 8
	result.WriteManifest(dirs[2], m2)
	if notes := MachineNotes(dirs); len(notes) != 1 || !strings.Contains(notes[0], "8 cores") {
		t.Errorf("a machine of 8 cores among 0-core ones: %v", notes)
	}
	if _, err := Merge(out, dirs); err == nil || !strings.Contains(err.Error(), "already holds cells/") {
		t.Fatalf("a second merge into the same directory: %v", err)
	}
}

// Merge refuses, naming each cell and field: cells of one name measured
// under other conditions, another shootout build, a cell held twice, a
// shard missing.
func TestMergeRefusesCellsThatDidNotMeasureTheSameThing(t *testing.T) {
	all := cells(2, 2, "a", "b")
	cases := map[string]struct {
		change func(t *testing.T, dirs []string)
		want   []string
	}{
		"another server build": {func(t *testing.T, dirs []string) {
			f, _ := result.Read(result.Path(dirs[1], all[4].ID))
			f.Cell.Conditions.Build = "mariadbd 11.9"
			os.Remove(result.Path(dirs[1], all[4].ID))
			f.Cell.ID += "x"
			result.Write(dirs[1], f)
		}, []string{all[4].ID + "x", "conditions.build: (unset) vs mariadbd 11.9"}},
		"another shootout build": {func(t *testing.T, dirs []string) {
			m, _ := result.ReadManifest(dirs[1])
			m.Shootout.BuildID = "b2"
			result.WriteManifest(dirs[1], m)
		}, []string{"shootout build: (devel) build b2 vs (devel) build b1"}},
		"a shard missing": {func(t *testing.T, dirs []string) {
			m, _ := result.ReadManifest(dirs[1])
			m.Shard = "0/2"
			result.WriteManifest(dirs[1], m)
		}, []string{"shard 0/2 again", "shard 1/2: no directory given ran it"}},
		// a shard killed before its last cell: its run.json says which it was to run
		"a shard that did not finish": {func(t *testing.T, dirs []string) {
			m, _ := result.ReadManifest(dirs[1])
			os.Remove(result.Path(dirs[1], m.ShardCells[1]))
		}, []string{"missing: shard 1/2 was to run it", "__r"}},
		"a cell not in the plan": {func(t *testing.T, dirs []string) {
			result.Write(dirs[0], &result.File{Cell: result.Cell{ID: "z_c9__r1", Target: "z", Repeat: 1}, Status: "ok"})
		}, []string{"z_c9__r1 (", "not a cell shard 0/2 of the plan was to run"}},
		// two flag-built plans are both "custom", with as many cells
		"another plan of as many cells": {func(t *testing.T, dirs []string) {
			m, _ := result.ReadManifest(dirs[1])
			m.PlanDigest = Digest([]string{"other"})
			result.WriteManifest(dirs[1], m)
		}, []string{"run.json: plan_digest: "}},
		// shares of one digest that do not add up to the plan
		"shard cells not adding up to the plan": {func(t *testing.T, dirs []string) {
			m, _ := result.ReadManifest(dirs[1])
			os.Remove(result.Path(dirs[1], m.ShardCells[0]))
			m.ShardCells = m.ShardCells[1:]
			result.WriteManifest(dirs[1], m)
		}, []string{"shard_cells: the shards' 7 cells are not their plan's"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			dirs := []string{filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1")}
			for i, d := range dirs {
				writeShard(t, d, all, Spec{I: i, N: 2}, "b1")
			}
			tc.change(t, dirs)
			_, err := Merge(filepath.Join(tmp, "out"), dirs)
			var r *Refused
			if !errors.As(err, &r) {
				t.Fatalf("merged: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal lacks %q:\n%v", w, err)
				}
			}
			if _, err := os.Stat(filepath.Join(tmp, "out", "cells")); err == nil {
				t.Errorf("a refused merge wrote cells")
			}
		})
	}
}

// With --repeat auto a shard's run.json lists each cell's first repeat;
// the later ones, up to the maximum, are its own too.
func TestMergeTakesAutoRepeatsOfTheShardsCells(t *testing.T) {
	tmp := t.TempDir()
	all := cells(1, 2, "a")
	dirs := []string{filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1")}
	for i, d := range dirs {
		writeShard(t, d, all, Spec{I: i, N: 2}, "b1")
		m, _ := result.ReadManifest(d)
		m.ShardRepeatMax = 3
		result.WriteManifest(d, m)
	}
	again := func(c result.Cell, r int) *result.File {
		c.Repeat, c.ID = r, strings.TrimSuffix(c.ID, "__r1")+fmt.Sprintf("__r%d", r)
		return &result.File{Cell: c, Status: "ok"}
	}
	result.Write(dirs[0], again(all[0], 2))
	if _, err := Merge(filepath.Join(tmp, "out"), dirs); err != nil {
		t.Fatalf("a second repeat of --repeat auto refused: %v", err)
	}
	result.Write(dirs[0], again(all[0], 4))
	if _, err := Merge(filepath.Join(tmp, "out2"), dirs); err == nil || !strings.Contains(err.Error(), "a_c1__r4 (") {
		t.Fatalf("a 4th repeat of at most 3: %v", err)
	}
}

// OUT must be a directory of its own: as one of the inputs, merge
// would write over its run.json; inside one, into its cells.
func TestMergeRefusesAnOutInsideAnInput(t *testing.T) {
	tmp := t.TempDir()
	all := cells(1, 2, "a")
	dirs := []string{filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1")}
	for i, d := range dirs {
		writeShard(t, d, all, Spec{I: i, N: 2}, "b1")
	}
	before, _ := os.ReadFile(filepath.Join(dirs[0], "run.json"))
	for _, out := range []string{dirs[0], filepath.Join(dirs[1], "cells", "m"), dirs[0] + "/."} {
		_, err := Merge(out, dirs)
		if !IsBadInput(err) || !strings.Contains(err.Error(), "or inside it") {
			t.Errorf("OUT %s: %v", out, err)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dirs[0], "run.json")); string(after) != string(before) {
		t.Errorf("an input's run.json was written over")
	}
}

// A copy that fails partway leaves no cells/ in OUT (the same merge
// run again completes it), and is an I/O error, not bad input.
func TestMergeFailingPartwayLeavesNoCells(t *testing.T) {
	tmp := t.TempDir()
	all := cells(1, 2, "a")
	dirs := []string{filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1")}
	for i, d := range dirs {
		writeShard(t, d, all, Spec{I: i, N: 2}, "b1")
	}
	// a directory where a server log would be: it opens, but cannot be read
	unreadable := filepath.Join(dirs[1], "cells", "x.log")
	os.Mkdir(unreadable, 0o755)
	out := filepath.Join(tmp, "out")
	if _, err := Merge(out, dirs); err == nil || IsBadInput(err) {
		t.Fatalf("a failed copy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "cells")); err == nil {
		t.Fatalf("a failed merge left cells/")
	}
	os.Remove(unreadable)
	if _, err := Merge(out, dirs); err != nil {
		t.Fatalf("the same merge again: %v", err)
	}
}

// Twin nodes whose memory differs by the kernel's reservations (under
// 1%) are not noted; more is, and only the field that differs is named.
func TestMachineNotesAllowTwinsMemory(t *testing.T) {
	tmp := t.TempDir()
	all := cells(1, 2, "a")
	dirs := []string{filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1")}
	for i, d := range dirs {
		writeShard(t, d, all, Spec{I: i, N: 2}, "b1")
		m, _ := result.ReadManifest(d)
		m.Machine = result.Machine{Cores: 4, MemBytes: 8000 << 20, Kernel: "6.1", GoVersion: "go1.24"}
		if i == 1 {
			m.Machine.MemBytes = 7950 << 20
		}
		result.WriteManifest(d, m)
	}
	if notes := MachineNotes(dirs); len(notes) != 0 {
		t.Errorf("twins 50 MiB apart: %v", notes)
	}
	m, _ := result.ReadManifest(dirs[1])
	m.Machine.MemBytes = 7900 << 20
	result.WriteManifest(dirs[1], m)
	if notes := MachineNotes(dirs); len(notes) != 1 || !strings.HasSuffix(notes[0], ": 7900 MiB of memory vs 8000") {
		t.Errorf("100 MiB of 8000 apart: %v", notes)
	}
}
