package run

import (
	"context"
	"fmt"
	"io"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/target"
)

// Prepare is what `shootout prepare` loads, and where.
type Prepare struct {
	Workload, Target, Dataset string
	Params                    map[string]string
	Seed                      int64
}

// Prepare loads a dataset into an external SQL server, as sysbench
// prepare does, through the same claim, schema, load and index steps as a
// cell's load, so a later run reuses it; out gets the summary line.
func (r *Runner) Prepare(ctx context.Context, p Prepare, out io.Writer) error {
	w, t, ds, err := lookupLoad(p.Workload, p.Target, p.Dataset, p.Params, p.Seed)
	if err != nil {
		return err
	}
	if t.Managed() {
		return badInput("--target: prepare is for external servers (%s); `run` loads managed targets itself", target.ExternalSQL)
	}
	if _, isSQL := target.DialectOf(t); !isSQL {
		return badInput("--target %s: prepare loads SQL servers; a %s server is loaded by the run itself", t.Name(), t.Protocol())
	}
	started, err := t.Start(ctx, target.StartOptions{})
	if err != nil {
		return badInput("%v", err)
	}
	defer started.Stop(context.Background())
	var f result.File
	cpu0 := metrics.SelfCPU()
	// a cell's own session and load steps, without its limits or window
	c := &cellRun{Runner: r, t: t, w: w, ds: ds, f: &f, inst: started}
	defer c.cleanup()
	if err := c.open(); err != nil {
		return err
	}
	if err := c.load(ctx); err != nil {
		return err
	}
	if f.Load.Reused {
		fmt.Fprintf(out, "%s already holds dataset %s of %s, prepared by shootout: nothing to do\n", t.Name(), ds.Name, w.Name())
		return nil
	}
	l := f.Load
	fmt.Fprintf(out, "prepared %d rows of %s on %s in %.2f s (insert %.2f s, indexes %.2f s; %.0f rows/s; client CPU %.2f s)\n",
		l.Rows, w.Name(), t.Name(), l.Seconds, l.Seconds-l.IndexS, l.IndexS, l.RowsPerS, metrics.SelfCPU()-cpu0)
	return nil
}
