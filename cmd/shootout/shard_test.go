package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"shootout/internal/result"
	"shootout/internal/testenv"
)

// cellsByID reads a results directory's cells by id.
func cellsByID(t *testing.T, dir string) map[string]result.Cell {
	t.Helper()
	files, err := result.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]result.Cell{}
	for _, f := range files {
		if !f.OK() {
			t.Errorf("%s: %s", f.Cell.ID, f.Status)
		}
		out[f.Cell.ID] = f.Cell
	}
	return out
}

// The shards of a plan, run as separate processes (as the pods of the
// Job run them) and merged, hold exactly the cells one unsharded run of
// the plan holds, under the same conditions, and merge reports them.
func TestShardsMergedHoldTheCellsOfOneRun(t *testing.T) {
	work := testenv.WorkDir(t)
	plan := []string{"run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "100",
		"--clients", "1,2", "--ops", "200", "--interval", "0s", "--repeat", "2"}
	const n = 3
	var dirs []string
	seen := map[string]string{}
	for i := 0; i < n; i++ {
		dir := filepath.Join(work, fmt.Sprintf("shard-%d", i))
		_, stderr, code := shootout(t, nil, append(plan, "--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir)...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d\n%s", i, n, code, stderr)
		}
		dirs = append(dirs, dir)
		if _, err := os.Stat(filepath.Join(dir, "cells")); err != nil {
			continue // a shard with no cells (more shards than rows x repeats)
		}
		for id := range cellsByID(t, dir) {
			if d, ok := seen[id]; ok {
				t.Errorf("%s ran in %s and %s", id, d, dir)
			}
			seen[id] = dir
		}
	}
	merged := filepath.Join(work, "merged")
	// part of the plan is not the plan
	_, stderr, code := shootout(t, nil, "merge", merged, dirs[0], dirs[2])
	if code != 2 || !strings.Contains(stderr, "shard 1/3: no directory given ran it") {
		t.Fatalf("merge of 2 shards of 3: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := shootout(t, nil, append([]string{"merge", merged}, dirs...)...)
	if code != 0 || !strings.Contains(stdout, "report: "+filepath.Join(merged, "report.html")) {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(merged, "report.html")); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(work, "single")
	if _, stderr, code := shootout(t, nil, append(plan, "--out", single)...); code != 0 {
		t.Fatalf("single run: exit %d\n%s", code, stderr)
	}
	got, want := cellsByID(t, merged), cellsByID(t, single)
	if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)); !slices.Equal(g, w) || len(w) != 4 {
		t.Fatalf("merged cells %v\none run's %v", g, w)
	}
	for id, c := range want {
		if d := c.ConditionDiff(got[id]); len(d) > 0 {
			t.Errorf("%s: %v", id, d)
		}
	}
	m, err := result.ReadManifest(merged)
	if err != nil || m.Cells != 4 || len(m.Merged) != n || m.Shootout == nil || !strings.Contains(m.Shootout.BuildID, "/") {
		t.Errorf("merged run.json: %+v %v", m, err)
	}
}

// A bad --shard is one line naming the flag and what is valid, before
// anything starts; so is a merge without directories.
func TestShardAndMergeRefuseBadValuesInOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--dry-run", "--targets", "sqlite", "--workload", "kv", "--shard", "2/2"}, `--shard: "2/2" is not I/N: this machine's share, I from 0 to N-1`},
		{[]string{"merge", "out"}, "merge: want OUT and at least one results directory"},
	} {
		_, stderr, code := shootout(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, want one line with %q:\n%s", c.args, code, c.want, stderr)
		}
	}
}
