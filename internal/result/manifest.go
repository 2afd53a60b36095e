package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Manifest describes a whole run: what was asked, on what machine, and
// which targets were skipped and why. It lives beside cells/ as run.json.
type Manifest struct {
	Schema   string            `json:"schema"`
	Name     string            `json:"name"`
	Baseline string            `json:"baseline"`
	Targets  []string          `json:"targets"`
	Skipped  map[string]string `json:"skipped,omitempty"`
	Cells    int               `json:"cells"`
	Started  time.Time         `json:"started"`
	Machine  Machine           `json:"machine"`
	// Seed is set when the run is a preset that reproduces a seed.
	Seed *SeedSetup `json:"seed,omitempty"`
	// Shootout is the shootout program that ran the cells.
	Shootout *Build `json:"shootout,omitempty"`
	// Shard is the share of the plan this run ran (run --shard I/N);
	// PlanCells is then the plan's cells in all, Cells the shard's.
	Shard     string `json:"shard,omitempty"`
	PlanCells int    `json:"plan_cells,omitempty"`
	// ShardCells are the ids of the cells the shard was to run (with
	// --repeat auto each cell's first repeat, the later ones up to
	// ShardRepeatMax added as it went), and PlanDigest a SHA-256 of the
	// whole plan's sorted cell ids: merge refuses a shard that did not
	// run all its cells, cells no shard was to run, and shards of
	// plans whose ids (conditions hash included) differ.
	ShardCells     []string `json:"shard_cells,omitempty"`
	ShardRepeatMax int      `json:"shard_repeat_max,omitempty"`
	PlanDigest     string   `json:"plan_digest,omitempty"`
	// Merged are the directories shootout merge joined into this one,
	// each with its shard.
	Merged []string `json:"merged,omitempty"`
}

// Build names a shootout program: its module version (with the VCS
// revision where the build recorded one) and the Go build ID of its
// executable (`go tool buildid`), which tells two builds apart where no
// revision was recorded (go build -buildvcs=false).
type Build struct {
	Version string `json:"version"`
	BuildID string `json:"go_build_id,omitempty"`
}

// Machine is where the run happened.
type Machine struct {
	Cores     int    `json:"cores"`
	MemBytes  int64  `json:"mem_bytes"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go_version"`
}

// WriteManifest stores m as DIR/run.json (atomically).
func WriteManifest(dir string, m *Manifest) error {
	m.Schema = "shootout.run/1"
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".run.json.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "run.json"))
}

// ReadManifest loads DIR/run.json; a directory without one has none.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s/run.json: %w", dir, err)
	}
	return &m, nil
}

// SeedSetup is the seed study a preset reproduces: its machine and
// servers as its text states them, and how this run differs from them.
type SeedSetup struct {
	Study   string   `json:"study"`
	Seed    string   `json:"seed"`
	Machine string   `json:"machine"`
	Servers string   `json:"servers"`
	Differs []string `json:"differs"`
}
