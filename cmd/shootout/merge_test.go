package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/result"
	"shootout/internal/shard"
)

// shardDirs writes what the two shards of a plan of four cells write,
// on machines that differ in memory and kernel.
func shardDirs(t *testing.T) []string {
	t.Helper()
	tmp := t.TempDir()
	var all []result.Cell
	for k, c := range []string{"1", "2"} {
		for _, tg := range []string{"a", "b"} {
			all = append(all, result.Cell{ID: tg + "_c" + c + "__r1", Target: tg, Workload: "w", Dataset: "d", Clients: k + 1, Repeat: 1})
		}
	}
	var dirs []string
	for i := 0; i < 2; i++ {
		d := filepath.Join(tmp, "shard-"+string(rune('0'+i)))
		os.MkdirAll(d, 0o755)
		s := shard.Spec{I: i, N: 2}
		mine := shard.Select(all, s)
		for _, c := range mine {
			if err := result.Write(d, &result.File{Cell: c, Status: "ok"}); err != nil {
				t.Fatal(err)
			}
		}
		m := &result.Manifest{Name: "p", Targets: []string{"a", "b"}, Cells: len(mine), Shard: s.String(), PlanCells: len(all),
			ShardCells: shard.IDs(mine), PlanDigest: shard.Digest(shard.IDs(all)),
			Machine: result.Machine{Cores: 4, MemBytes: int64(8000+i*900) << 20, Kernel: "6.1.0-" + strings.Repeat("x", 30*i) + "-amd64", GoVersion: "go1.24"}}
		if err := result.WriteManifest(d, m); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// merge's notes of machines that differ fit 100 columns; an OUT that is
// an input is bad input (2), a copy that fails an I/O error (1).
func TestMergeNotesFitAndExitCodes(t *testing.T) {
	dirs := shardDirs(t)
	out := filepath.Join(filepath.Dir(dirs[0]), "merged")
	stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, "merge", out, dirs[0], dirs[1])
	if long := linesOver(stdout+stderr, 100); code != 0 || !strings.Contains(stderr, "note:") || len(long) > 0 {
		t.Errorf("exit %d, %d lines over 100 columns: %q\n%s", code, len(long), long, stderr)
	}
	_, stderr, code = shootout(t, nil, "merge", dirs[0], dirs[0], dirs[1])
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "or inside it") {
		t.Errorf("OUT an input: exit %d\n%s", code, stderr)
	}
	if err := os.Mkdir(filepath.Join(dirs[1], "cells", "x.log"), 0o755); err != nil { // opens, cannot be read
		t.Fatal(err)
	}
	_, stderr, code = shootout(t, nil, "merge", filepath.Join(filepath.Dir(out), "merged2"), dirs[0], dirs[1])
	if code != 1 || !strings.Contains(stderr, "is a directory") {
		t.Errorf("a copy failing: exit %d\n%s", code, stderr)
	}
}
