package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"

	"shootout/internal/result"
)

// CSVHeader names the columns of CSV, one row per cell.
var CSVHeader = []string{"workload", "dataset", "memory_bytes", "iops", "clients", "neighbour", "label", "target", "repeat", "status",
	"op", "mean_ms", "times_baseline", "p50_ms", "p95_ms", "p99_ms", "max_ms", "tps", "qps", "errors_per_s",
	"server_cpu_ms_per_op", "server_read_bytes_per_op", "server_write_bytes_per_op", "write_amplification", "server_io_ops_per_op", "server_ctx_switches_per_op", "client_cpu_ms_per_op", "space_bytes", "settled_bytes", "table_bytes", "load_s", "version",
	"bytes_source", "process_write_bytes_per_op", "engine_log_bytes_per_op", "engine_data_bytes_per_op", "engine_full_page_images_per_op", "cpus", "longest_pause_s",
	"writeback_s", "writeback_finished", "writeback_left_bytes", "table", "cell_id", "share_of_difference", "plan", "plans_differ",
	"session_type", "sessions", "statements", "total_ms"}

// CSV writes one row per cell (one repeat) and operation, for
// spreadsheets, with the same "times the baseline" ratio as the terminal
// table (against the baseline's cell with the same table, label and
// repeat). Its table column is the terminal table's title: the cells of
// one name run under other conditions are told apart there. A figure the cell did not measure (a failed cell, an external
// server's CPU, a workload without logical bytes) is an empty field, never
// 0; sizes are bytes, times ms.
func CSV(w io.Writer, files []*result.File, baseline string) error {
	files = named(files)
	baseline = variantBaseline(files, baseline)
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	base := map[csvKey]float64{}
	table := map[*result.File]*group{}
	gs := groups(files)
	for _, g := range gs {
		for _, f := range g.files {
			table[f] = g
		}
	}
	shares := csvShares(gs, baseline)
	differ := plansDiffer(gs)
	typeBase := map[csvKey]float64{}
	for _, f := range files {
		if f.Cell.Target == baseline && f.OK() {
			for op, o := range f.Ops {
				base[csvKey{table[f].key, f.Cell.Label(), op, f.Cell.Repeat}] = o.MeanMs
			}
			for _, st := range f.Invariants.SessionTypes {
				typeBase[csvKey{table[f].key, f.Cell.Label(), st.Type, f.Cell.Repeat}] = st.Statements.MeanMs
			}
		}
	}
	for _, f := range files {
		c := f.Cell
		ops := make([]string, 0, len(f.Ops))
		for op := range f.Ops {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		if len(ops) == 0 {
			ops = []string{""}
		}
		for _, op := range ops {
			ratio := ""
			if b := base[csvKey{table[f].key, c.Label(), op, c.Repeat}]; b > 0 && f.OK() && f.Ops[op].Count > 0 {
				ratio = fmt.Sprintf("%.4f", f.Ops[op].MeanMs/b)
			}
			row := append(csvRow(f, op, ratio, table[f].title), shares[shareKey{table[f].key, c.Label(), op, c.Target}],
				oneLine(f.Invariants.Plans[op]), differ[shareKey{table[f].key, c.Label(), op, ""}], "", "", "", "")
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		for _, st := range f.Invariants.SessionTypes {
			if err := cw.Write(typeCSVRow(f, st, typeBase[csvKey{table[f].key, c.Label(), st.Type, c.Repeat}], table[f].title)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// typeCSVRow is cell f's row for a kind of session (op empty): the
// cell's columns, the latency columns its statements' over the whole
// run, times_baseline against the baseline's cell with the same table,
// label, repeat and kind, and the kind's own columns.
func typeCSVRow(f *result.File, st result.SessionType, base float64, title string) []string {
	row := csvRow(f, "", "", title)
	s := st.Statements
	timed := f.OK() && s.Count > 0
	col := func(name string) int { return slices.Index(CSVHeader, name) }
	for name, v := range map[string]float64{"mean_ms": s.MeanMs, "p50_ms": s.P50Ms, "p95_ms": s.P95Ms, "p99_ms": s.P99Ms, "max_ms": s.MaxMs} {
		if timed {
			row[col(name)] = num(v)
		}
	}
	if timed && base > 0 {
		row[col("times_baseline")] = fmt.Sprintf("%.4f", s.MeanMs/base)
	}
	total := ""
	if timed {
		total = num(s.SumMs)
	}
	return append(row, "", "", "", st.Type, fmt.Sprint(st.Sessions), fmt.Sprint(s.Count), total)
}

// csvKey is a baseline time's place: its table, row, operation and repeat.
type csvKey struct {
	group, label, op string
	repeat           int
}

// csvRow is cell f's row for operation op, in CSVHeader's order.
func csvRow(f *result.File, op, ratio, title string) []string {
	c := f.Cell
	o := f.Ops[op]
	ok := f.OK()
	srv := ok && f.Server.Measured && f.Throughput.Events > 0
	has := func(v float64, measured bool) string {
		if !measured {
			return ""
		}
		return num(v)
	}
	size := func(b int64) string {
		if !ok || b <= 0 {
			return ""
		}
		return fmt.Sprint(b)
	}
	timed := ok && o.Count > 0
	errps, hasErr := 0.0, ok && f.Throughput.Seconds > 0
	if hasErr {
		errps = float64(f.Throughput.Errors) / f.Throughput.Seconds
	}
	load := has(f.Load.Seconds, ok && !f.Load.Reused)
	cpu, cpuKnown := f.Server.CPUPerOp()
	row := []string{c.Workload, c.Dataset, fmt.Sprint(c.Conditions.MemoryBytes), fmt.Sprint(c.Conditions.IOPS), fmt.Sprint(c.Clients),
		c.Conditions.Neighbour, c.Label(), c.Target, fmt.Sprint(c.Repeat), f.Status,
		op, has(o.MeanMs, timed), ratio, has(o.P50Ms, timed), has(o.P95Ms, timed), has(o.P99Ms, timed), has(o.MaxMs, timed),
		has(f.Throughput.TPS, ok), has(f.Throughput.QPS, ok), has(errps, hasErr),
		has(1000*cpu, srv && cpuKnown), has(f.Server.ReadBytesPerOp, srv), has(f.Server.WriteBytesPerOp, srv), waText(f), has(f.Server.IOOpsPerOp, srv && f.Server.IOOpsPerOp > 0),
		has(f.Server.ContextSwitchesPerOp, srv), has(f.Client.CPUSecondsPerOp*1000, ok && f.Throughput.Events > 0 && !embedded(f)),
		size(f.Space.Bytes), size(f.Space.SettledBytes), size(f.Space.TableBytes), load, f.Target.Version,
		f.Server.BytesSource, has(f.Server.ProcessWriteBytesPerOp, srv)}
	if ew := f.Server.EngineWrites; ew != nil && ok {
		row = append(row, num(ew.LogBytesPerOp), num(ew.DataBytesPerOp), num(ew.FullPageImagesPerOp))
	} else {
		row = append(row, "", "", "")
	}
	row = append(row, c.Conditions.CPUs, has(f.Throughput.LongestPauseS, ok))
	row = append(row, writeBackFields(f)...)
	return append(row, title, c.ID)
}

// shareKey is a share's place: its table, row, operation and target.
type shareKey struct{ group, label, op, target string }

// csvShares are the per-statement comparison's shares of the
// difference (sections.Statements), by table, label and operation with
// the target: the same on each repeat's row, as the terminal's table has
// one figure from all the repeats; the baseline's rows have none.
func csvShares(gs []*group, baseline string) map[shareKey]string {
	out := map[shareKey]string{}
	for _, g := range gs {
		if !statementGroup(g) {
			continue
		}
		base := baseOf(g, baseline)
		for _, label := range g.labels {
			c := compareOps(g, base, label)
			if c == nil {
				continue
			}
			for _, l := range c.lines {
				for _, t := range c.others {
					if c.shareText(l, t) != "-" {
						out[shareKey{g.key, label, l.op, t}] = num(l.share[t])
					}
				}
			}
		}
	}
	return out
}

// plansDiffer is, per table, label and operation (no target), whether
// its plans differ between the targets that took one ("true"/"false"),
// their numbers aside as in the per-statement table; none where fewer
// than two targets took a plan of it. Every workload's plans count, not
// only a replay's.
func plansDiffer(gs []*group) map[shareKey]string {
	out := map[shareKey]string{}
	for _, g := range gs {
		for _, label := range g.labels {
			for _, op := range opsOf(g.files) {
				l := &opLine{plan: map[string]string{}}
				for _, t := range g.targets {
					if p := planOf(pick(g.files, t, label), op); p != "" {
						l.plan[t] = p
					}
				}
				if len(l.plan) >= 2 {
					out[shareKey{g.key, label, op, ""}] = fmt.Sprint(l.plansDiffer())
				}
			}
		}
	}
	return out
}

func num(v float64) string { return fmt.Sprintf("%.4f", v) }

// writeBackFields are the write-back's seconds, whether it finished and
// what it left (-1: the engine cannot say), empty where nothing was
// written back or the cell failed.
func writeBackFields(f *result.File) []string {
	fin := f.Server.WriteBackFinished
	if !f.OK() || fin == nil {
		return []string{"", "", ""}
	}
	left := ""
	if !*fin {
		left = fmt.Sprint(f.Server.WriteBackLeftBytes)
	}
	return []string{num(f.Server.WriteBackS), fmt.Sprint(*fin), left}
}

// waText is the write amplification, empty when the cell has none.
func waText(f *result.File) string {
	if f.Server.WriteAmplification == nil {
		return ""
	}
	return num(*f.Server.WriteAmplification)
}
