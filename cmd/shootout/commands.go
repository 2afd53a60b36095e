package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/spf13/cobra"

	"shootout/internal/disk"
	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/report"
	"shootout/internal/result"
	"shootout/internal/run"
)

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usage(fmt.Errorf("%s: want %s", cmd.Name(), what))
		}
		return nil
	}
}

func reportCmd() *cobra.Command {
	var baseline, csvFile, htmlFile string
	c := &cobra.Command{
		Use:   "report DIR [--csv FILE] [--html FILE]",
		Short: "Print the side-by-side tables of a results directory",
		Args:  exactArgs(1, "one results directory (the --out of a run)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := result.ReadDir(args[0])
			if err != nil {
				return usage(err)
			}
			m, _ := result.ReadManifest(args[0])
			if baseline == "" && m != nil {
				baseline = m.Baseline
			}
			if baseline == "" && len(files) > 0 {
				baseline = files[0].Cell.Target
			}
			report.SeedHeader(cmd.OutOrStdout(), m)
			report.Terminal(cmd.OutOrStdout(), files, baseline)
			if csvFile != "" {
				f, err := os.Create(csvFile)
				if err != nil {
					return usage(fmt.Errorf("--csv %s: %v", csvFile, err))
				}
				if err := report.CSV(f, files, baseline); err != nil {
					f.Close()
					return fmt.Errorf("write %s: %w", csvFile, err)
				}
				if err := f.Close(); err != nil {
					return fmt.Errorf("write %s: %w", csvFile, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s\n", csvFile)
			}
			if htmlFile != "" {
				p, err := report.LoadPage(args[0], baseline)
				if err != nil {
					return usage(err)
				}
				if err := report.WriteHTMLFile(htmlFile, p); err != nil {
					return usage(fmt.Errorf("--html %s: %v", htmlFile, err))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s\n", htmlFile)
			}
			return nil
		},
	}
	c.Flags().StringVar(&baseline, "baseline", "", "the target the others are compared with (default: the run's)")
	c.Flags().StringVar(&csvFile, "csv", "", "also write one row per cell and operation to this CSV file")
	c.Flags().StringVar(&htmlFile, "html", "", "also write a self-contained HTML report (charts, tables, verdict) to this file")
	return c
}

func compareCmd() *cobra.Command {
	var alpha float64
	c := &cobra.Command{
		Use:   "compare DIR_A DIR_B",
		Short: "Match the cells of two runs and say which changes stand out from the noise",
		Args:  exactArgs(2, "two results directories (before and after)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if alpha <= 0 || alpha >= 1 {
				return usage(fmt.Errorf("--alpha: %v is not a significance level in (0, 1) such as 0.05", alpha))
			}
			a, err := result.ReadDir(args[0])
			if err != nil {
				return usage(err)
			}
			b, err := result.ReadDir(args[1])
			if err != nil {
				return usage(err)
			}
			if report.Compare(cmd.OutOrStdout(), a, b, alpha) == 0 {
				// a script reading the exit status must not take "nothing
				// compared" for "no change"
				return fmt.Errorf("compare: no cell of %s and %s ran under the same conditions, so nothing was compared (above: why)", args[0], args[1])
			}
			return nil
		},
	}
	c.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level of the exact Mann-Whitney U test over the repeats of each cell")
	return c
}

func targetsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "targets",
		Short: "List every target, whether it can run here (and why not) and its server's version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, width := cmd.OutOrStdout(), termWidth()
			tb := &screenTable{header: []string{"TARGET", "STATUS", "VERSION", "DETAIL"}, wrapCol: 3}
			for _, r := range run.Targets() {
				tb.add(r.Name, r.Status, r.Version, r.Detail)
			}
			tb.render(w, width)
			// footnotes: neither is a target row, and a URL row would set
			// the first column's width for every line
			fmt.Fprintln(w)
			for _, note := range run.TargetNotes() {
				fmt.Fprintln(w, wrapText(note, width, 2))
			}
			return nil
		},
	}
}

func studiesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "studies",
		Short: "List the preset studies and the workloads",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintln(w, "Studies (shootout run --study NAME):")
			for _, s := range plan.Studies {
				printStudy(w, s)
			}
			fmt.Fprintln(w, "\nWorkloads (shootout run --workload NAME):")
			for _, wl := range run.Workloads() {
				desc := strings.Split(text.WrapSoft(wl.Description, max(termWidth()-26, 20)), "\n")
				for i := range desc {
					desc[i] = strings.TrimRight(desc[i], " ")
				}
				fmt.Fprintf(w, "  %-22s %s\n", wl.Name, strings.Join(desc, "\n"+strings.Repeat(" ", 25)))
			}
			printParams(w, termWidth())
			return nil
		},
	}
}

// printStudy says what a preset runs and, for a seed's, the seed's own
// machine and servers and what still differs here, in lines under 100
// columns.
func printStudy(w io.Writer, s plan.Study) {
	const indent = "             "
	fmt.Fprintf(w, "\n  %-10s %s\n", s.Name, report.Wrap(s.Description, indent, 99)[len(indent):])
	if s.Setup == nil {
		fmt.Fprintf(w, "%sno seed: a quick look at this machine's engines\n", indent)
		return
	}
	for _, line := range []string{
		"seed " + s.Seed + "'s machine: " + s.Setup.Machine,
		"seed " + s.Seed + "'s servers: " + s.Setup.Servers,
	} {
		fmt.Fprintln(w, report.Wrap(line, indent, 99))
	}
	for _, d := range s.Differences(&s.Plan, runtime.NumCPU()) {
		fmt.Fprintln(w, report.Wrap("differs here: "+d, indent, 99))
	}
}

func schemaCmd() *cobra.Command {
	var wl, tg, ds string
	var params []string
	c := &cobra.Command{
		Use:   "schema --workload W --target T",
		Short: "Print the DDL a workload creates on a target",
		Args:  exactArgs(0, "no arguments, only --workload and --target"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if wl == "" || tg == "" {
				return usage(fmt.Errorf("schema needs --workload and --target"))
			}
			pm, err := paramMap(params)
			if err != nil {
				return usage(err)
			}
			return handedOver(run.Schema(cmd.OutOrStdout(), wl, tg, ds, pm))
		},
	}
	c.Flags().StringVar(&wl, "workload", "", "workload name")
	c.Flags().StringVar(&tg, "target", "", "target name or URL")
	c.Flags().StringVar(&ds, "dataset", "", "dataset (some DDL depends on it; default: the workload's)")
	c.Flags().StringArrayVar(&params, "param", nil, "workload parameter key=value")
	return c
}

func paramMap(kvs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--param %q: want key=value", kv)
		}
		m[k] = v
	}
	return m, nil
}

func calibrateCmd() *cobra.Command {
	var dir, out, diskModel string
	var seconds, iops int
	c := &cobra.Command{
		Use:         "calibrate [--dir DIR] [--iops N] [--disk MODEL] [--out DIR]",
		Annotations: map[string]string{startsAnnotation: "fio, cgroups"},
		Short:       "Measure the disk with fio (random 4k IOPS), or check a disk model against its figures",
		Long: `Calibrate measures the disk with fio: random 4k IOPS at queue depth 1 and 16,
and under an IOPS cap (--iops); or, with --disk, checks a disk model's
mechanism against the model's own figures.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if diskModel != "" {
				return calibrateDisk(cmd, diskModel, seconds, out)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usage(fmt.Errorf("--dir %s: %v", dir, err))
			}
			if iops > 0 {
				if err := limits.Check(limits.Request{IOPS: iops}); err != nil {
					return usage(fmt.Errorf("--iops: %v", err))
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "calibrating the disk under %s: %d tests of %d s\n", dir, 4+2*btoi(iops > 0), seconds)
			cal, err := limits.Calibrate(dir, seconds, iops)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "device %s (under %s)\n", cal.Device, dir)
			for _, k := range []string{"randread_qd1", "randwrite_qd1", "randread_qd16", "randwrite_qd16", "randread_qd1_capped", "randwrite_qd1_capped"} {
				if v, ok := cal.IOPS[k]; ok {
					fmt.Fprintf(w, "  %-22s %10.0f IOPS\n", k, v)
				}
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return usage(fmt.Errorf("--out %s: %v", out, err))
				}
				if err := cal.Save(out); err != nil {
					return err
				}
				fmt.Fprintf(w, "saved %s/calibration.json\n", out)
			}
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "results", "a directory on the disk to measure (the disk of your --out)")
	c.Flags().StringVar(&out, "out", "", "results directory to store calibration.json in")
	c.Flags().IntVar(&seconds, "seconds", 5, "length of each fio test")
	c.Flags().IntVar(&iops, "iops", 0, "also measure under this IOPS cap (cgroup blkio), as a server would get it")
	c.Flags().StringVar(&diskModel, "disk", "", "check a disk model (hdd, ssd, cloud, with :key=value,...) with fio through its mechanism against the model's own figures")
	return c
}

// calibrateDisk runs the fio patterns on a modelled disk and prints them
// beside the model's figures; it fails when one is off by more than the
// tolerance for a reason other than this machine's speed.
func calibrateDisk(cmd *cobra.Command, model string, seconds int, out string) error {
	spec, err := disk.Parse(model)
	if err != nil {
		return usage(fmt.Errorf("--disk: %v", err))
	}
	if !spec.Modelled() {
		return usage(fmt.Errorf("--disk none is the raw disk: calibrate it with --dir"))
	}
	if err := disk.Check(); err != nil {
		return usage(fmt.Errorf("--disk: %v", err))
	}
	if seconds < 1 {
		return usage(fmt.Errorf("--seconds %d: want at least 1", seconds))
	}
	errw := cmd.ErrOrStderr()
	fmt.Fprintf(errw, "calibrating disk model %s: %d fio patterns of %v ramp + %d s\n", spec, len(disk.Patterns), disk.Ramp, seconds)
	ledger := limits.Open()
	defer ledger.Close()
	i := 0
	cal, err := disk.Calibrate(spec, seconds, disk.Patterns, func(p disk.Pattern) {
		i++
		fmt.Fprintf(errw, "[%d/%d] %s\n", i, len(disk.Patterns), p.Name)
	}, func(dir string, exists bool) {
		if exists {
			ledger.AddDisk(dir)
		} else {
			ledger.ForgetDisk(dir)
		}
	})
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "disk %s, mechanism round trip by the CPUs' idle time before a command %s (answered that much early)\n", cal.Disk, cal.OverheadByIdle)
	// host: the share of the CPUs the hypervisor and other processes took
	// while fio ran, which the mechanism's timing depends on
	fmt.Fprintf(w, "  %-18s %12s %12s %7s %6s\n", "pattern", "model /s", "measured /s", "ratio", "host")
	bad := 0
	for _, f := range cal.Figures {
		verdict, off := f.Verdict()
		if off {
			bad++
		}
		fmt.Fprintf(w, "  %-18s %12.1f %12.1f %7.2f %5.0f%%  %s\n", f.Pattern, f.Model, f.Measured, f.Ratio, f.Host.Busy()*100, verdict)
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return usage(fmt.Errorf("--out %s: %v", out, err))
		}
		if err := cal.Save(out); err != nil {
			return err
		}
	}
	if bad > 0 {
		return fmt.Errorf("disk model %s: %d of %d figures off by more than %.0f%%", cal.Disk, bad, len(cal.Figures), disk.Tolerance*100)
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// prepareCmd loads a dataset into an external server, like sysbench
// prepare, so it can be reused by later runs and timed on its own.
func prepareCmd() *cobra.Command {
	var wl, tg, ds string
	var params []string
	var seed int64
	c := &cobra.Command{
		Use:         "prepare --target URL --workload W --dataset D",
		Annotations: map[string]string{startsAnnotation: "a load"},
		Short:       "Load a workload's dataset into an external server (like sysbench prepare)",
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pm, err := paramMap(params)
			if err != nil {
				return usage(err)
			}
			r := &run.Runner{Log: cmd.ErrOrStderr()}
			p := run.Prepare{Workload: wl, Target: tg, Dataset: ds, Params: pm, Seed: seed}
			return handedOver(r.Prepare(cmd.Context(), p, cmd.OutOrStdout()))
		},
	}
	c.Flags().StringVar(&wl, "workload", plan.DefaultWorkload(), "workload name")
	c.Flags().StringVar(&tg, "target", "", "external server URL")
	c.Flags().StringVar(&ds, "dataset", "", "dataset (default: the workload's)")
	c.Flags().Int64Var(&seed, "data-seed", 1, "the dataset's random `SEED` (as run --data-seed)")
	c.Flags().Int64Var(&seed, "seed", 1, "old name of --data-seed")
	c.Flags().MarkHidden("seed")
	c.Flags().StringArrayVar(&params, "param", nil, "workload parameter key=value")
	return c
}

// handedOver is the error of a verb handed over to another package: its
// bad input exits 2 with the message alone.
func handedOver(err error) error {
	if errors.Is(err, run.ErrBadInput) {
		return usage(errors.New(strings.TrimPrefix(err.Error(), run.ErrBadInput.Error()+": ")))
	}
	return err
}
