package run

import (
	"context"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// requireTargets skips (or under CI=true fails) unless every target named
// can run here.
func requireTargets(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		tg, err := target.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		testenv.RequireTarget(t, tg)
	}
}

// runPlan resolves p, runs its cells with r into a fresh directory and
// returns the want results.
func runPlan(t *testing.T, p *plan.Plan, r *Runner, want int) []*result.File {
	t.Helper()
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.OutDir, r.Log = testenv.WorkDir(t), logWriter(t)
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	files, err := result.ReadDir(r.OutDir)
	if err != nil || len(files) != want {
		t.Fatalf("want %d results, got %d (%v)", want, len(files), err)
	}
	return files
}
