package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/run"
	"shootout/internal/units"
)

// column is one field of a cell as the dry run prints it. A column whose
// value is the same in every cell is said once in the summary, so the
// cell table keeps only what varies and fits the terminal.
type column struct {
	name string
	// keys are the plan settings (plan.Settings) whose values the column
	// shows; none for what the cell is besides them (its repeat, its stop)
	keys  []string
	value func(c result.Cell) string
}

// dryRunColumns are the cell's fields as the dry run shows them: every
// axis of the settings table has its column (TestDryRunShowsEveryAxis),
// the conditions besides, the repeat and what stops the cell.
func dryRunColumns(res *plan.Resolved) []column {
	return []column{
		{"target", []string{"targets", "settings"}, cellTarget},
		{"workload", []string{"workloads", "paths", "allocators"}, cellWorkload},
		{"dataset", []string{"datasets"}, func(c result.Cell) string { return c.Dataset }},
		{"clients", []string{"clients"}, func(c result.Cell) string { return fmt.Sprint(c.Clients) }},
		{"neighbour", []string{"neighbour"}, func(c result.Cell) string { return c.Conditions.Neighbour }},
		{"memory", []string{"memory", "dataset_memory"}, func(c result.Cell) string { return capOf(c.Conditions.MemoryBytes, units.FormatBytes) }},
		{"disk", []string{"disk"}, func(c result.Cell) string { return cond(c.Conditions.Disk, "raw") }},
		{"IOPS", []string{"iops"}, func(c result.Cell) string {
			return capOf(int64(c.Conditions.IOPS), func(n int64) string { return fmt.Sprint(n) })
		}},
		{"bandwidth", []string{"bps"}, func(c result.Cell) string {
			return capOf(c.Conditions.BPS, func(n int64) string { return units.FormatBytes(n) + "/s" })
		}},
		{"app", []string{"app"}, func(c result.Cell) string { return cond(c.Conditions.App, "none") }},
		{"link", []string{"link"}, func(c result.Cell) string { return cond(c.Conditions.Link, "none") }},
		{"agents", []string{"agents", "agent_cpu"}, func(c result.Cell) string {
			if q := c.Conditions.AgentCPU; q > 0 {
				return fmt.Sprintf("%d×%g CPU", c.Conditions.Agents, q)
			}
			return fmt.Sprint(c.Conditions.Agents)
		}},
		{"repeat", nil, func(c result.Cell) string { return fmt.Sprint(c.Repeat) }},
		{"stop", nil, func(c result.Cell) string { return cellStop(res, c) }},
	}
}

// cellTarget is the target as the report names it: with its values on
// its own axes (a setting given a list, --link).
func cellTarget(c result.Cell) string {
	if c.Variant == "" {
		return c.Target
	}
	return c.Target + " " + c.Variant
}

func cond(v, none string) string {
	if v == "" {
		return none
	}
	return v
}

func capOf(n int64, human func(int64) string) string {
	if n <= 0 {
		return "no cap"
	}
	return human(n)
}

func cellWorkload(c result.Cell) string {
	wl := c.Workload
	if p := c.Params["path"]; p != "" {
		wl += " " + p
	}
	if a := c.Conditions.Allocator; a != "" {
		wl += " +" + a
	}
	return wl
}

// cellStop is what ends the cell's window, and how operations arrive.
func cellStop(res *plan.Resolved, c result.Cell) string {
	var stops []string
	if run.SelfEnding(res, c) {
		stops = append(stops, "its work done")
	}
	if d, err := time.ParseDuration(c.Duration); err == nil && d > 0 {
		stops = append(stops, humanDuration(d))
	}
	if c.Ops > 0 {
		stops = append(stops, fmt.Sprintf("%d ops", c.Ops))
	}
	if c.Reps > 0 {
		stops = append(stops, fmt.Sprintf("%d per client", c.Reps))
	}
	s := strings.Join(stops, " or ")
	if c.Rate > 0 {
		return s + fmt.Sprintf(" at %g ops/s", c.Rate)
	}
	return s + ", closed loop"
}

// humanDuration is a duration as a person says it: 30 s, 1 min, 2 h 5 min.
func humanDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case h > 0 && m > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case h > 0:
		return fmt.Sprintf("%d h", h)
	case m > 0 && s > 0:
		return fmt.Sprintf("%d min %d s", m, s)
	case m > 0:
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%d s", s)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func printDryRun(w io.Writer, res *plan.Resolved) {
	width := termWidth()
	varying, same := splitColumns(res, res.Cells)
	printSummary(w, res, varying, same, width)
	printPlacement(w, res, width)
	tb := &screenTable{header: []string{"#"}, wrapCol: len(varying)}
	for _, col := range varying {
		tb.header = append(tb.header, col.name)
	}
	for i, c := range res.Cells {
		row := []string{fmt.Sprint(i + 1)}
		for _, col := range varying {
			row = append(row, col.value(c))
		}
		tb.add(row...)
	}
	tb.render(w, width)
}

// splitColumns parts the columns into those that vary between cells (the
// plan's axes) and those with one value in every cell. The first column,
// the target, stays in the table always: a cell list without it says
// nothing.
func splitColumns(res *plan.Resolved, cells []result.Cell) (varying, same []column) {
	for i, col := range dryRunColumns(res) {
		if i == 0 || len(values(cells, col)) > 1 {
			varying = append(varying, col)
		} else {
			same = append(same, col)
		}
	}
	return varying, same
}

// values are a column's distinct values in the order cells first show them.
func values(cells []result.Cell, col column) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		if v := col.value(c); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func printSummary(w io.Writer, res *plan.Resolved, varying, same []column, width int) {
	say := func(s string) { fmt.Fprintln(w, wrapText(s, width, 4)) }
	say(fmt.Sprintf("plan %q: %s; estimated time %s", res.Name, plural(len(res.Cells), "cell"), estimate(res)))
	var axes, fixed []string
	for _, col := range varying {
		vs := values(res.Cells, col)
		axes = append(axes, fmt.Sprintf("%s %s (%d)", col.name, strings.Join(vs, ", "), len(vs)))
	}
	for _, col := range same {
		if len(res.Cells) > 0 {
			fixed = append(fixed, col.name+" "+col.value(res.Cells[0]))
		}
	}
	say("  axes: " + strings.Join(axes, "; "))
	say("  every cell: " + strings.Join(fixed, "; "))
	say("  " + repeatsLine(res))
	interval := "no interval lines"
	if res.Interval > 0 {
		interval = "interval lines every " + humanDuration(res.Interval)
	}
	say(fmt.Sprintf("  baseline %s; trim %.0f%% at each end; %s; data seed %d", res.Baseline, res.Trim*100, interval, res.Seed))
	say(retriesLine(res))
}

// retriesLine says how often a failed operation runs again. The driver
// gives up after MaxRetries only under a rule with a limit: a workload
// whose rule retries as often as the error recurs (sysbench's ignored
// errors) says so, or "max retries 10" alone would say something untrue.
func retriesLine(res *plan.Resolved) string {
	line := fmt.Sprintf("  retries: a deadlock, lock timeout or write conflict is retried up to %d times", res.MaxRetries)
	var notes []string
	seen := map[string]bool{}
	for _, c := range res.Cells {
		key := c.Workload + fmt.Sprint(c.Params)
		if seen[key] {
			continue
		}
		seen[key] = true
		if note := run.RetryNote(res, c); note != "" && !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
	}
	if len(notes) > 0 {
		line += ", unless " + strings.Join(notes, "; or ")
	}
	return line
}

func repeatsLine(res *plan.Resolved) string {
	if a := res.AutoRepeat; a != nil {
		return fmt.Sprintf("repeats: auto, each cell %d to %d times (%d: the fewest that can reach p < %v) until the relative "+
			"standard deviation of its tps (fixed rate: mean time) is under %.1f%%; the list shows the first repeats", a.Min, a.Max, a.Min, a.Alpha, 100*a.RSD)
	}
	most := 0
	for _, c := range res.Cells {
		most = max(most, c.Repeat)
	}
	return fmt.Sprintf("repeats: each cell %s (the list holds every repeat)", plural(max(most, 1), "time"))
}

// printPlacement says where the servers run and what each target starts.
func printPlacement(w io.Writer, res *plan.Resolved, width int) {
	if cp, err := limits.PlanCPUs(res.CPUs); err == nil {
		how := ""
		if cp.Default {
			how = " (cpusets; --cpus changes it)"
		}
		fmt.Fprintln(w, wrapText(fmt.Sprintf("  CPUs: %s%s", cp, how), width, 4))
	}
	for _, t := range res.Targets {
		// a target with a settings axis starts something else per value
		said := map[string]bool{}
		for _, c := range res.Cells {
			what := run.StartsWhat(run.TargetOf(t), c.Conditions.Settings)
			if c.Target != t.Name() || said[what] {
				continue
			}
			said[what] = true
			name := t.Name()
			for _, k := range slices.Sorted(maps.Keys(res.SettingAxes[t.Name()])) {
				name += " " + k + "=" + c.Conditions.Settings[k]
			}
			fmt.Fprintln(w, wrapText(fmt.Sprintf("  %s: %s", name, what), width, 4))
		}
	}
	for _, t := range res.Targets {
		if run.TargetOf(t).Embedded() {
			fmt.Fprintln(w, wrapText(fmt.Sprintf("  %s runs in its clients' process, so its server CPU includes theirs: shootout's own without limits; "+
				"under any limit an agent inside the cell's cgroups, which apply to it as to a server (where agents can run the workload: "+
				"the cells' notes say where not)", t.Name()), width, 4))
		}
	}
}
