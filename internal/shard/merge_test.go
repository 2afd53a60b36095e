package shard

import (
	"errors"
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
		Shootout: &result.Build{Version: "(devel)", BuildID: build}}
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
