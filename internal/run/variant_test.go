package run

import (
	"testing"

	"shootout/internal/plan"
	"shootout/internal/result"
)

// A cell of a settings axis starts its server with its own value, not
// the plan's one set of settings for the target (which holds none of the
// axis's values).
func TestACellStartsWithItsVariantsSettings(t *testing.T) {
	p, err := plan.Parse("p.yaml", []byte("targets: [mariadb-galera]\nworkloads: [oltp_read_write]\ndatasets: ['1000']\nduration: 1s\n"+
		"settings:\n  mariadb-galera: {nodes: '3', writers: [one, all]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range res.Cells {
		c := &cellRun{Runner: &Runner{}, res: res, cell: cell, t: mustLookup(t, cell.Target), f: &result.File{}}
		opts, err := c.startOptions()
		if err != nil {
			t.Fatal(err)
		}
		if want := cell.Conditions.Settings["writers"]; want == "" || opts.Settings["writers"] != want || opts.Settings["nodes"] != "3" {
			t.Errorf("cell %s (%s) starts with %v", cell.ID, cell.Variant, opts.Settings)
		}
	}
}
