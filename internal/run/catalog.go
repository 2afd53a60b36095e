package run

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"shootout/internal/app"
	"shootout/internal/metrics"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/workload"

	// the runner runs whatever is registered: every workload registers
	// itself in its init
	_ "shootout/internal/workload/all"
)

// ErrBadInput marks an error in what the user gave: the command exits 2
// with the message after it.
var ErrBadInput = workload.ErrBadInput

func badInput(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, a...))
}

// TargetRow is a target as `shootout targets` lists it.
type TargetRow struct{ Name, Status, Version, Detail string }

// Targets lists every registered target: whether it can run here (and
// why not), its server's version and what a cell of it starts.
func Targets() []TargetRow {
	var rows []TargetRow
	for _, name := range target.Names() {
		t, _ := target.Lookup(name)
		if err := t.Available(); err != nil {
			rows = append(rows, TargetRow{Name: name, Status: "unavailable", Detail: err.Error()})
			continue
		}
		rows = append(rows, TargetRow{Name: name, Status: "available", Version: target.ShortVersion(t), Detail: target.StartsWhat(t, nil)})
	}
	return rows
}

// TargetNotes are the lines under the list of targets: how to name a
// server of one's own, and whether an application can be in the loop.
func TargetNotes() []string { return []string{target.ExternalNote, app.Footnote()} }

// StartsWhat says what a cell of t starts, with the plan's settings for
// it, as the target describes itself.
func StartsWhat(t target.Target, settings map[string]string) string {
	return target.StartsWhat(t, settings)
}

// WorkloadRow is a workload as `shootout studies` lists it.
type WorkloadRow struct{ Name, Description string }

// Workloads lists every registered workload with its description.
func Workloads() []WorkloadRow {
	var rows []WorkloadRow
	for _, n := range workload.Names() {
		rows = append(rows, WorkloadRow{n, workload.Describe(n)})
	}
	return rows
}

// SelfEnding is whether a cell's workload shares a fixed amount of work
// out among the clients (every id, every round): its window ends when
// that is done, its duration only a cap. Bad parameters say false: the
// plan refuses them.
func SelfEnding(res *plan.Resolved, c result.Cell) bool {
	w, err := res.Workload(c)
	_, ok := w.(workload.ClientsAware)
	return err == nil && ok
}

// DatasetRows is how many rows loading cell c's dataset writes; 0 where
// the workload or dataset is not one (the plan refuses them).
func DatasetRows(res *plan.Resolved, c result.Cell) int64 {
	w, err := res.Workload(c)
	if err != nil {
		return 0
	}
	ds, err := w.Dataset(c.Dataset, res.Seed)
	if err != nil {
		return 0
	}
	return max(ds.LoadRows, ds.Rows)
}

// Schema writes the DDL a workload creates on a SQL target, before and
// after the load.
func Schema(out io.Writer, wl, tg, dataset string, params map[string]string) error {
	w, t, ds, err := lookupLoad(wl, tg, dataset, params, 1)
	if err != nil {
		return err
	}
	dl, isSQL := target.DialectOf(t)
	if !isSQL {
		return badInput("--target %s speaks %s, not SQL: it has no DDL", t.Name(), t.Protocol())
	}
	sw, isSQL := w.(workload.SQL)
	if !isSQL {
		return badInput("--workload %s does not speak SQL: it has no DDL", wl)
	}
	fmt.Fprintf(out, "-- %s on %s: tables, created before the load\n", wl, t.Name())
	for _, q := range sw.Schema(dl, ds) {
		fmt.Fprintf(out, "%s;\n", q)
	}
	fmt.Fprintln(out, "-- after the load")
	for _, q := range sw.PostLoad(dl, ds) {
		fmt.Fprintf(out, "%s;\n", q)
	}
	return nil
}

// lookupLoad resolves what a command outside a plan names: a workload
// with its parameters, a target and a dataset (the workload's default
// when ""), each refusal naming its flag.
func lookupLoad(wl, tg, dataset string, params map[string]string, seed int64) (workload.Workload, target.Target, workload.Dataset, error) {
	w, err := workload.New(wl, params)
	if err != nil {
		return nil, nil, workload.Dataset{}, badInput("--workload: %v", err)
	}
	t, err := target.Lookup(tg)
	if err != nil {
		return nil, nil, workload.Dataset{}, badInput("--target: %v", err)
	}
	if dataset == "" {
		dataset = w.DefaultDataset()
	}
	ds, err := w.Dataset(dataset, seed)
	if err != nil {
		return nil, nil, workload.Dataset{}, badInput("--dataset: %v", err)
	}
	return w, t, ds, nil
}

// SweepApps removes what the application servers of a shootout that is
// gone left behind (the servers' own sweep is limits.Sweep), a line each.
func SweepApps() []string { return app.SweepNotes() }

// Machine is what the run's manifest records of the machine.
func Machine() result.Machine {
	m := result.Machine{Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.MemBytes = metrics.MemTotal()
	return m
}
