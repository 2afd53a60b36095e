package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/report"
	"shootout/internal/result"
	"shootout/internal/run"
	"shootout/internal/shard"
)

// runFlags are the run command's own flags: how to run, not what. What
// to run are the plan's settings, whose flags come from plan.Settings.
type runFlags struct {
	study, out                                      string
	resume, dryRun, allowUnlimited, keepData, quick bool
	// own are the workloads' own flags (run.OwnFlags), by flag
	own map[string]*string
}

func runCmd() *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:         "run [PLAN.yaml]",
		Annotations: map[string]string{startsAnnotation: "servers, fio, cgroups"},
		Short:       "Run a study, a plan file, or the cells the flags describe",
		Long: `Run starts each target's server, loads the dataset, drives the workload and
writes one result file per cell under --out. With no plan, no --study and no
--workload it runs the default study (its targets that are available here).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usage(fmt.Errorf("run takes at most one plan file, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMain(cmd.Context(), cmd, args, f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.study, "study", "", "a preset `NAME` (list them with: shootout studies; default: default, unless --workload is given)")
	fl.BoolVar(&f.quick, "quick", false, "run the study's quick variant, minutes instead of hours (studies with one: "+strings.Join(plan.QuickStudies(), ", ")+"; times in shootout studies)")
	registerSettings(fl)
	f.own = map[string]*string{}
	for _, o := range run.OwnFlags() {
		f.own[o.Flag] = fl.String(o.Flag, "", o.Help)
	}
	fl.StringVar(&f.out, "out", "", "results `DIR` (default results/<study>-<time>)")
	fl.BoolVar(&f.resume, "resume", false, "skip cells that already have a successful result in --out")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print a summary (axes, cells, estimated time) and the resolved cells, and start nothing")
	fl.BoolVar(&f.allowUnlimited, "allow-unlimited", false, "run cells whose limits cannot be applied, marked \"limits not applied\"")
	fl.BoolVar(&f.keepData, "keep-data", false, "keep each server's data directory under --out/work")
	return c
}

// settingValue is a plan setting's flag: its text as given, checked
// against its type at once (as the flag package checks its own), set
// into the plan by plan.SetFlags.
type settingValue struct {
	s      *plan.Setting
	values []string
}

func (v *settingValue) String() string {
	if len(v.values) == 0 {
		return v.s.FlagDefault()
	}
	return v.values[len(v.values)-1]
}

func (v *settingValue) Set(text string) error {
	if err := v.s.CheckFlagValue(text); err != nil {
		return err
	}
	v.values = append(v.values, text)
	return nil
}

func (v *settingValue) Type() string { return v.s.Type }

// registerSettings adds a flag for every plan setting that has one.
func registerSettings(fl *pflag.FlagSet) {
	for i := range plan.Settings {
		s := &plan.Settings[i]
		if s.Flag == "" {
			continue
		}
		f := fl.VarPF(&settingValue{s: s}, s.Flag, "", s.Usage())
		f.DefValue = s.FlagDefault()
		f.Hidden = s.Hidden
	}
}

// givenSettings are the plan settings the command line gave.
func givenSettings(fl *pflag.FlagSet) []plan.Given {
	var out []plan.Given
	fl.Visit(func(f *pflag.Flag) {
		if v, ok := f.Value.(*settingValue); ok {
			out = append(out, plan.Given{Flag: f.Name, Values: v.values})
		}
	})
	return out
}

// studyName is the preset a run starts from: --study, or the default
// study when neither a plan file nor a workload is given; "" for none.
func studyName(cmd *cobra.Command, args []string, f runFlags) string {
	switch {
	case len(args) == 1:
		return ""
	case f.study == "" && !cmd.Flags().Changed("workload"):
		return "default"
	}
	return f.study
}

// seedSetup is what the manifest records of the seed a run's study
// reproduces, with how this run differs from it; nil for none.
func seedSetup(cmd *cobra.Command, args []string, f runFlags, p *plan.Plan, cores int) *result.SeedSetup {
	s, err := plan.LookupStudy(studyName(cmd, args, f))
	if err != nil || s.Setup == nil {
		return nil
	}
	return &result.SeedSetup{Study: s.Name, Seed: s.Seed, Machine: s.Setup.Machine, Servers: s.Setup.Servers,
		Differs: s.Differences(p, cores)}
}

// buildPlan merges plan file or study with the flags; flags win.
func buildPlan(cmd *cobra.Command, args []string, f runFlags) (*plan.Plan, bool, error) {
	p, preset, err := basePlan(cmd, args, f)
	if err != nil {
		return nil, false, err
	}
	if cmd.Flags().Changed("targets") {
		preset = false
	}
	if err := p.SetFlags(givenSettings(cmd.Flags())); err != nil {
		return nil, false, err
	}
	if err := run.UseOwn(p, givenOwn(cmd, f), cmd.ErrOrStderr()); err != nil {
		return nil, false, err
	}
	return p, preset, nil
}

// basePlan is the plan file, the study, or the plan --workload starts
// from; preset when it is a study's (it runs on what is here).
func basePlan(cmd *cobra.Command, args []string, f runFlags) (*plan.Plan, bool, error) {
	switch {
	case len(args) == 1 && f.study != "":
		return nil, false, fmt.Errorf("give a plan file or --study, not both")
	case f.quick && f.study == "":
		return nil, false, fmt.Errorf("--quick needs --study (studies with a quick variant: %s)", strings.Join(plan.QuickStudies(), ", "))
	case len(args) == 1:
		p, err := plan.Load(args[0])
		return p, false, err
	}
	name := studyName(cmd, args, f)
	if name == "" {
		return &plan.Plan{Name: "custom", Targets: plan.Studies[0].Plan.Targets, Clients: []int{1}, Duration: "60s"}, true, nil
	}
	s, err := plan.LookupStudy(name)
	if err != nil {
		return nil, false, err
	}
	sp := s.Plan
	if f.quick {
		if s.Quick == nil {
			return nil, false, fmt.Errorf("--quick: study %s has no quick variant", s.Name)
		}
		sp = *s.Quick
	}
	return &sp, true, nil
}

// givenOwn are the workloads' own flags the command line gave.
func givenOwn(cmd *cobra.Command, f runFlags) map[string]string {
	given := map[string]string{}
	for flag, v := range f.own {
		if cmd.Flags().Changed(flag) {
			given[flag] = *v
		}
	}
	return given
}

// resolve resolves the plan and refuses, before anything starts, what
// cannot run: a target the user named that is not here, a --memory no
// server lives in.
func resolve(cmd *cobra.Command, p *plan.Plan, preset bool) (*plan.Resolved, error) {
	return resolveFor(cmd, p, preset, true)
}

// resolveFor is resolve for this machine (here), or for others (shootout
// k8s's pods): then what is installed here, and its servers' builds, say
// nothing of them, and only the plan's own checks apply.
func resolveFor(cmd *cobra.Command, p *plan.Plan, preset, here bool) (*plan.Resolved, error) {
	opt := plan.Options{}
	if preset && here {
		// a preset runs on what is here and says what it skipped
		opt.Available = run.Available
	}
	res, err := p.Resolve(opt)
	if err != nil {
		return nil, err
	}
	if !preset && here {
		// targets the user named must all run: say why one cannot
		if err := run.MustRunHere(res); err != nil {
			return nil, err
		}
	}
	log := cmd.ErrOrStderr()
	for _, n := range res.Notes {
		fmt.Fprintln(log, n)
	}
	for _, name := range slices.Sorted(maps.Keys(res.Skipped)) {
		fmt.Fprintln(log, wrapText(fmt.Sprintf("skipping %s: %s", name, res.Skipped[name]), termWidth(), 2))
	}
	if here {
		run.Stamp(res)
	}
	return res, run.CheckPlan(res)
}

func runMain(ctx context.Context, cmd *cobra.Command, args []string, f runFlags) error {
	p, preset, err := buildPlan(cmd, args, f)
	if err != nil {
		return usage(err)
	}
	res, err := resolve(cmd, p, preset)
	if err != nil {
		return usage(err)
	}
	if f.dryRun {
		printDryRun(cmd.OutOrStdout(), res)
		return nil
	}
	if err := run.Preflight(ctx, res); err != nil {
		return usage(err)
	}
	if err := run.Precheck(res, f.allowUnlimited); err != nil {
		return usage(err)
	}
	out := f.out
	if out == "" {
		out = fmt.Sprintf("results/%s-%s", res.Name, time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usage(fmt.Errorf("--out %s: cannot create it: %v", out, err))
	}
	m := manifest(res)
	m.Seed = seedSetup(cmd, args, f, p, m.Machine.Cores)
	if err := result.WriteManifest(out, m); err != nil {
		return usage(fmt.Errorf("--out %s: not writable: %v", out, err))
	}
	ledger := limits.Open()
	defer ledger.Close()
	runner := &run.Runner{OutDir: out, Log: cmd.ErrOrStderr(), Resume: f.resume, KeepData: f.keepData, AllowUnlimited: f.allowUnlimited, Ledger: ledger}
	sum, runErr := runner.Matrix(ctx, res)
	return finish(cmd, out, res, m, sum, runErr)
}

// manifest is what the run's directory records of the run as a whole.
func manifest(res *plan.Resolved) *result.Manifest {
	var names []string
	for _, t := range res.Targets {
		names = append(names, t.Name())
	}
	m := &result.Manifest{Name: res.Name, Baseline: res.Baseline, Targets: names, Skipped: res.Skipped,
		Cells: len(res.Cells), Started: time.Now().UTC(), Machine: run.Machine(), Shootout: thisBuild()}
	if res.Shard != nil {
		m.Shard, m.PlanCells = res.Shard.String(), res.PlanCells
		m.ShardCells, m.PlanDigest = shard.IDs(res.Cells), shard.Digest(shard.IDs(res.All))
		if res.AutoRepeat != nil {
			m.ShardRepeatMax = res.AutoRepeat.Max
		}
	}
	return m
}

// finish reports what ran and says how the run ended: bad input found
// by a server, failed cells, or nothing wrong.
func finish(cmd *cobra.Command, out string, res *plan.Resolved, m *result.Manifest, sum run.Summary, runErr error) error {
	log := cmd.ErrOrStderr()
	files, _ := result.ReadDir(out)
	if len(files) > 0 {
		report.SeedHeader(cmd.OutOrStdout(), m)
		report.Terminal(cmd.OutOrStdout(), files, res.Baseline)
		writeHTMLReport(out, res.Baseline, cmd.OutOrStdout(), log)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nresults: %s (%d cells run, %d skipped by --resume, %d failed)\n", out, sum.Ran, sum.Skipped, len(sum.Failed))
	if msg, bad := run.BadInput(runErr); bad {
		return usage(errors.New(msg))
	}
	if runErr != nil {
		return runErr
	}
	if len(sum.Failed) > 0 {
		for _, f := range sum.Failed {
			fmt.Fprintf(log, "failed: %s: %s\n", f.Cell.ID, f.Status)
		}
		return run.ErrCellsFailed
	}
	return nil
}

// writeHTMLReport writes DIR/report.html. The cells are already on disk, so
// a failure here is said and changes nothing else about the run.
func writeHTMLReport(dir, baseline string, out, log io.Writer) {
	path := filepath.Join(dir, "report.html")
	p, err := report.LoadPage(dir, baseline)
	if err == nil {
		err = report.WriteHTMLFile(path, p)
	}
	if err != nil {
		fmt.Fprintf(log, "report.html not written (the results are intact; `shootout report %s --html FILE` retries): %v\n", dir, err)
		return
	}
	fmt.Fprintf(out, "\nreport: %s\n", path)
}
