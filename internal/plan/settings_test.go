package plan_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	. "shootout/internal/plan"
	_ "shootout/internal/run"
	"shootout/internal/workload"
)

// A misspelt key's hint and the list of valid keys come from the table
// of settings: every key of it, the nearest named.
func TestUnknownKeyHintComesFromTheTable(t *testing.T) {
	for bad, near := range map[string]string{"duraton": "duration", "allocator": "allocators", "path": "paths", "neighbor": "neighbour", "max_retry": "max_retries"} {
		_, err := Parse("p.yaml", []byte("targets: [sqlite]\n"+bad+": x\n"))
		if err == nil {
			t.Fatalf("%s: accepted", bad)
		}
		msg := err.Error()
		if !strings.Contains(msg, "line 2: field "+bad+" not found") || !strings.Contains(msg, "did you mean "+near+"?") ||
			!strings.Contains(msg, "(valid: "+strings.Join(Keys(), ", ")+")") {
			t.Errorf("%s: %s", bad, msg)
		}
	}
	if _, err := Parse("p.yaml", []byte("zzzzzzzz: 1\n")); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a key near none gets no hint: %v", err)
	}
}

// The defaults Resolve gives are the table's (the rsd default was 3 in
// the flag and 0.03 in the plan).
func TestDefaultsComeFromTheTable(t *testing.T) {
	p := &Plan{Targets: []string{"sqlite"}, Workloads: []string{"oltp_read_only"}, Datasets: []string{"1000"}, Duration: "1s", Repeat: "auto"}
	r, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	def := func(key string) string { return SettingByKey(key).Default }
	if r.AutoRepeat.RSD*100 != 3 || def("rsd") != "3" || r.AutoRepeat.Max != 10 || def("max_repeat") != "10" ||
		r.Trim != 0.1 || def("trim") != "0.1" || r.Interval.String() != def("interval") || r.Seed != 1 || def("data_seed") != "1" ||
		r.NeighbourFileBytes != 256<<20 || def("neighbour_file") != "256M" || r.Cells[0].Conditions.Neighbour != def("neighbour") {
		t.Fatalf("defaults %+v %+v", r, r.AutoRepeat)
	}
}

// Every workload's declared parameters are sound: each default passes
// its own check, and an unknown or bad value is refused in one line that
// names the parameter and what is valid.
func TestWorkloadParamsAreRefusedFromTheirDeclaration(t *testing.T) {
	for _, name := range workload.Names() {
		decl := workload.Params(name)
		for _, prm := range decl {
			if prm.Help == "" {
				t.Errorf("%s: parameter %s has no help", name, prm.Name)
			}
			bad := "not-a-value"
			if prm.Kind == workload.Text && prm.Valid == nil {
				continue // a file name or free text: the workload reads it
			}
			_, err := workload.New(name, map[string]string{prm.Name: bad})
			want := "parameter " + prm.Name + `="not-a-value": want ` + prm.Want()
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s %s=%s: %v, want %q", name, prm.Name, bad, err, want)
			}
		}
		_, err := workload.New(name, map[string]string{"no_such": "1"})
		want := name + `: unknown parameter "no_such" (valid: `
		if len(decl) == 0 {
			// ping: the refusal says there is nothing to give
			want = name + `: unknown parameter "no_such": this workload takes none`
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: an unknown parameter: %v", name, err)
		}
	}
	if _, err := workload.New("shop", map[string]string{"load_parallel": "65"}); err == nil ||
		!strings.Contains(err.Error(), `parameter load_parallel="65": want a whole number from 1 to 64`) {
		t.Errorf("out of range: %v", err)
	}
	if _, err := workload.New("oltp_read_write", map[string]string{"tables": "1.5"}); err == nil {
		t.Errorf("a fraction for a whole number accepted")
	}
}

// A workload whose making reads a file (kv's ids, a user's dump) is made
// once per plan: each cell gets a fresh one without reading it again.
func TestACellsWorkloadIsMadeOncePerPlan(t *testing.T) {
	ids := filepath.Join(t.TempDir(), "ids.txt")
	os.WriteFile(ids, []byte("1\n2\n3\n"), 0o644)
	p := &Plan{Targets: []string{"sqlite"}, Workloads: []string{"kv"}, Datasets: []string{"1000"}, Clients: []int{1, 2},
		Duration: "1s", Params: map[string]string{"ids": ids}}
	res, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ids) // a second reading would fail
	a, err := res.Workload(res.Cells[0])
	if err != nil {
		t.Fatalf("the cell's workload was made again: %v", err)
	}
	b, err := res.Workload(res.Cells[1])
	if err != nil || a == b {
		t.Fatalf("each cell needs its own workload: %v, %p %p", err, a, b)
	}
}

// The table's Identity column is what a cell's id holds: a setting
// marked part of a cell's identity changes the id when it changes, and
// one not marked leaves it as it is (--resume and compare rest on it).
func TestIdentityColumnIsWhatTheCellIDHolds(t *testing.T) {
	samples := map[string]string{
		"name": "name: x", "targets": "targets: [postgres]", "baseline": "baseline: sqlite", "workloads": "workloads: [oltp_point_select]",
		"params": "params: {rounds: '5'}", "datasets": "datasets: ['2000']", "clients": "clients: [2]", "duration": "duration: 2s",
		"ops": "ops: 5", "reps": "reps: 5", "rate": "rate: 10", "agents": "agents: 1", "agent_cpu": "agents: 1\nagent_cpu: 0.25", "repeat": "repeat: '2'", "rsd": "rsd: 5", "max_repeat": "max_repeat: 6",
		"alpha": "alpha: 0.1", "memory": "memory: 1G", "iops": "iops: 100", "bps": "bps: 20M", "disk": "disk: hdd", "cpus": "cpus: '0.5'",
		"neighbour": "neighbour: [x2]", "paths": "paths: [text]", "trim": "trim: 0.2", "interval": "interval: 5s",
		"data_seed": "data_seed: 7", "seed": "seed: 7", "settings": "settings: {sqlite: {cache_size: '1'}}", "max_retries": "max_retries: 3",
		"neighbour_file": "neighbour_file: 64M", "dataset_memory": "dataset_memory: {'1000': 1G}",
		"link":  "link: 1ms,1gbit", // fails when Link is not in the conditions
		"shard": "shard: 0/1",
		// the link axis's cells say their link; which clusters it is for
		// changes no cell of those
		"link_targets": "link_targets: [mariadb-galera]",
	}
	// a link lies between a cluster's nodes: these are set on one
	bases := map[string]string{
		"link":         "targets: [mariadb-galera]",
		"link_targets": "targets: [mariadb-galera]\nlink: 1ms",
	}
	// these need a server's package installed to resolve at all; their
	// cells' conditions say them (allocator, app, the my.cnf's settings)
	needInstalled := map[string]bool{"allocators": true, "allocator_targets": true, "app": true, "settings_file": true}
	base := func() *Plan {
		return &Plan{Targets: []string{"sqlite"}, Workloads: []string{"kv"}, Datasets: []string{"1000"}, Duration: "1s",
			Neighbour: []string{"x1"}, Repeat: "auto"}
	}
	idOf := func(p *Plan) string {
		r, err := p.Resolve(Options{})
		if err != nil {
			t.Fatalf("%v", err)
		}
		return r.Cells[0].ID
	}
	for _, s := range Settings {
		sample, ok := samples[s.Key]
		if !ok {
			if !needInstalled[s.Key] {
				t.Errorf("setting %s: give it a sample here", s.Key)
			}
			continue
		}
		p := base()
		if err := yaml.Unmarshal([]byte(bases[s.Key]), p); err != nil {
			t.Fatalf("%s: %v", s.Key, err)
		}
		want := idOf(p)
		if err := yaml.Unmarshal([]byte(sample), p); err != nil {
			t.Fatalf("%s: %v", s.Key, err)
		}
		if changed := idOf(p) != want; changed != s.Identity {
			t.Errorf("setting %s (identity %v): %q changed the id: %v", s.Key, s.Identity, sample, changed)
		}
	}
}
