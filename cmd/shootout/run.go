package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"shootout/internal/dialect"
	"shootout/internal/disk"
	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/plan"
	"shootout/internal/report"
	"shootout/internal/result"
	"shootout/internal/run"
	"shootout/internal/target"
	"shootout/internal/workload"
)

type runFlags struct {
	study, targets, workload, dataset, clients, duration, memory, neighbour, out, trim, interval, baseline, cpus, bps, disk, repeat, app string
	ops, reps                                                                                                                            int64
	dump, queries                                                                                                                        string
	rate                                                                                                                                 float64
	iops, maxRetries, maxRepeat                                                                                                          int
	rsd, alpha                                                                                                                           float64
	seed                                                                                                                                 int64
	params                                                                                                                               []string
	paths, allocators                                                                                                                    string
	resume, dryRun, allowUnlimited, keepData, quick                                                                                      bool
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
	fl.StringVar(&f.targets, "targets", "", "the targets, `TARGET[,TARGET]` of: "+strings.Join(target.Names(), ", ")+
		" (shootout targets), mariadb-ENGINE@DIR for another build, or a server you run: mysql://, postgres://, redis://, tarantool:// or memcached:// URL (default: the study's)")
	fl.StringVar(&f.baseline, "baseline", "", "the `TARGET` the others are compared with (default: the study's baseline, else the first target)")
	fl.StringVar(&f.workload, "workload", "", "the workloads, `NAME[,NAME]` of: "+strings.Join(workload.Names(), ", ")+" (shootout studies, docs/workloads.md; default: the study's)")
	fl.StringVar(&f.dataset, "dataset", "", "the datasets, `DATASET[,DATASET]`: rows for oltp_* (1000000, 1M; default 1M) and kv (default 10M), products for shop (default 40000), "+
		"small, large or giant for redmine (default small), the file's name for dump (default: the workload's, or the study's)")
	fl.StringVar(&f.clients, "clients", "", "client counts `N[,N]`, e.g. 1,2,4 (default: the study's; 1 with --workload and no --study)")
	fl.StringVar(&f.duration, "duration", "", "how long each cell drives the workload, a `DURATION` such as 60s or 2m (default: the study's; 60s with --workload and no --study)")
	fl.Int64Var(&f.ops, "ops", 0, "stop each cell after `N` operations in all (default: no count, --duration stops it)")
	fl.Int64Var(&f.reps, "reps", 0, "stop each client after `N` operations of its own, as siege -r (default: none; the shop study: 50)")
	fl.Float64Var(&f.rate, "rate", 0, "fixed rate in `OPS` per second over all clients (default 0: closed loop)")
	fl.StringVar(&f.memory, "memory", "", "memory of the server's VM, a `SIZE` such as 1G: a cgroup cap that includes the page cache; half goes to the engine's cache (default: the study's, else no cap)")
	fl.IntVar(&f.iops, "iops", 0, "read and write IOPS cap on the disk of the server's data (cgroup blkio), `N` such as 100 for an HDD (default: the study's, else no cap)")
	fl.StringVar(&f.disk, "disk", "", "put the server's data on a modelled `DISK`: hdd, ssd, cloud or none, with :key=value,... to change a parameter (docs/disks.md; default: the raw disk)")
	fl.StringVar(&f.bps, "bps", "", "read and write bandwidth cap on the disk of the server's data (cgroup blkio), a `SIZE` per second such as 20M (default: no cap)")
	fl.StringVar(&f.cpus, "cpus", "", "the server's `CPUS`: a cpuset list such as 1 or 1-3 (shootout gets the rest), or a quota in cores with a decimal point such as 0.5 "+
		"(CPU time per 100 ms period); \"all\" for neither (default: the server on every core but the first, shootout on the first)")
	fl.StringVar(&f.app, "app", "", "in front of the database, `APP[,APP]`: none (the clients speak SQL) and/or redmine (Debian's Redmine under puma in the loop, one worker per client, driven over its REST API; default: none)")
	fl.StringVar(&f.paths, "path", "", "kv access paths, `PATH[,PATH]`: prepared, text, handler (MariaDB), batch, get (Redis, Tarantool, memcached); each target runs those it speaks (default: the study's, else each server's point read)")
	fl.StringVar(&f.allocators, "allocator", "", "memory allocators, `NAME[,NAME]`, under the managed servers (LD_PRELOAD, proven from /proc/PID/maps): glibc, jemalloc, tcmalloc (default: each server's own)")
	fl.StringVar(&f.neighbour, "neighbour", "", "neighbour disk loads, `LOAD[,LOAD]` (fio, random 4k 50/50, direct): 0, 25% (of --iops), x1, x2, x4 jobs (default: 0, none)")
	fl.StringVar(&f.repeat, "repeat", "1", "repeats of every cell, `N|auto`; auto: until the relative standard deviation of its tps (fixed-rate cells: its mean time) is under --rsd, at least as many times as can reach p < --alpha (4 at 0.05) and at most --max-repeat")
	fl.Float64Var(&f.rsd, "rsd", 3, "with --repeat auto: the relative standard deviation, in `PERCENT`, that is steady enough")
	fl.IntVar(&f.maxRepeat, "max-repeat", 10, "with --repeat auto: the most repeats, `N`, of a cell")
	fl.Float64Var(&f.alpha, "alpha", plan.DefaultAlpha, "with --repeat auto: the significance `LEVEL` the repeats must be able to reach (the report's is 0.05; compare --alpha 0.01 needs 5)")
	fl.StringVar(&f.trim, "trim", "", "`FRACTION` of operations dropped at the start and at the end (default 0.1)")
	fl.StringVar(&f.interval, "interval", "", "interval report period, a `DURATION` (default 10s; 0 for no interval lines)")
	fl.IntVar(&f.maxRetries, "max-retries", 10, "`N` retries of an operation after a deadlock, lock timeout or write conflict; "+
		"an error rule of the workload's own that retries without a limit (oltp's, as sysbench ignores errors) is not bounded by it")
	fl.Int64Var(&f.seed, "data-seed", 1, "the dataset's random `SEED`: the same seed gives the same data on every target")
	fl.Int64Var(&f.seed, "seed", 1, "old name of --data-seed")
	fl.MarkHidden("seed")
	fl.StringVar(&f.dump, "dump", "", "your own data: a mysqldump or mariadb-dump `FILE`.sql[.gz], loaded into each MariaDB target with its tables moved to the target's engine (with --queries)")
	fl.StringVar(&f.queries, "queries", "", "your own pages: a YAML `FILE` of named pages, each a list of statements with parameters drawn from the loaded data (with --dump; docs/workloads.md)")
	fl.StringArrayVar(&f.params, "param", nil, "workload parameter `KEY=VALUE` (repeatable), e.g. --param point_selects=5")
	fl.StringVar(&f.out, "out", "", "results `DIR` (default results/<study>-<time>)")
	fl.BoolVar(&f.resume, "resume", false, "skip cells that already have a successful result in --out")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print a summary (axes, cells, estimated time) and the resolved cells, and start nothing")
	fl.BoolVar(&f.allowUnlimited, "allow-unlimited", false, "run cells whose limits cannot be applied, marked \"limits not applied\"")
	fl.BoolVar(&f.keepData, "keep-data", false, "keep each server's data directory under --out/work")
	return c
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
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
	var p *plan.Plan
	preset := false
	switch {
	case len(args) == 1 && f.study != "":
		return nil, false, fmt.Errorf("give a plan file or --study, not both")
	case f.quick && f.study == "":
		return nil, false, fmt.Errorf("--quick needs --study (studies with a quick variant: %s)", strings.Join(plan.QuickStudies(), ", "))
	case len(args) == 1:
		var err error
		if p, err = plan.Load(args[0]); err != nil {
			return nil, false, err
		}
	default:
		if name := studyName(cmd, args, f); name != "" {
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
			p = &sp
			preset = true
		} else {
			p = &plan.Plan{Name: "custom", Targets: plan.Studies[0].Plan.Targets, Clients: []int{1}, Duration: "60s"}
			preset = true
		}
	}
	ch := cmd.Flags().Changed
	if ch("targets") {
		p.Targets = splitList(f.targets)
		preset = false
		if !ch("baseline") {
			p.Baseline = ""
		}
	}
	if ch("baseline") {
		p.Baseline = f.baseline
	}
	if ch("workload") {
		p.Workloads = splitList(f.workload)
	}
	if ch("dataset") {
		p.Datasets = splitList(f.dataset)
	}
	if ch("clients") {
		p.Clients = nil
		for _, s := range splitList(f.clients) {
			var n int
			if _, err := fmt.Sscanf(s, "%d", &n); err != nil || fmt.Sprint(n) != s {
				return nil, false, fmt.Errorf("--clients: %q is not a whole number (want e.g. 1,2,4)", s)
			}
			p.Clients = append(p.Clients, n)
		}
	}
	// the bounds given on the command line replace the plan's
	if ch("duration") || ch("ops") || ch("reps") {
		p.Duration, p.Ops, p.Reps = "", 0, 0
	}
	if ch("duration") {
		p.Duration = f.duration
	}
	if ch("ops") {
		p.Ops = f.ops
	}
	if ch("reps") {
		p.Reps = f.reps
	}
	if ch("rate") {
		p.Rate = f.rate
	}
	if ch("memory") {
		p.Memory = f.memory
		p.DatasetMemory = nil // one VM size for every dataset, as asked
	}
	if ch("iops") {
		p.IOPS = f.iops
	}
	if ch("disk") {
		p.Disk = f.disk
		// a study's IOPS cap is its stand-in for a slow disk: a modelled
		// disk replaces it, unless --iops asks for both
		if spec, err := disk.Parse(f.disk); err == nil && spec.Modelled() && p.IOPS > 0 && !ch("iops") {
			fmt.Fprintf(cmd.ErrOrStderr(), "--disk %s replaces the plan's --iops %d (its stand-in for a slow disk); give --iops too to keep both\n", spec, p.IOPS)
			p.IOPS = 0
		}
	}
	if ch("bps") {
		p.BPS = f.bps
	}
	if ch("cpus") {
		p.CPUs = f.cpus
	}
	if ch("neighbour") {
		p.Neighbour = splitList(f.neighbour)
	}
	if ch("app") {
		p.App = splitList(f.app)
	}
	if ch("path") {
		p.Paths = splitList(f.paths)
	}
	if ch("allocator") {
		p.Allocators, p.AllocatorTargets = splitList(f.allocators), nil
	}
	if ch("repeat") {
		p.Repeat = strings.TrimSpace(f.repeat)
	}
	if ch("rsd") {
		p.RSD = &f.rsd
	}
	if ch("max-repeat") {
		p.MaxRepeat = f.maxRepeat
	}
	if ch("alpha") {
		p.Alpha = &f.alpha
	}
	if ch("trim") {
		t, err := strconv.ParseFloat(strings.TrimSpace(f.trim), 64)
		if err != nil || t < 0 || t >= 0.5 {
			return nil, false, fmt.Errorf("--trim: %q is not a fraction from 0 to below 0.5, such as 0.1", f.trim)
		}
		p.Trim = &t
	}
	if ch("interval") {
		p.Interval = f.interval
	}
	if ch("max-retries") {
		p.MaxRetries = &f.maxRetries
	}
	if ch("data-seed") || ch("seed") {
		p.DataSeed = f.seed
	}
	if len(f.params) > 0 {
		if p.Params == nil {
			p.Params = map[string]string{}
		}
		for _, kv := range f.params {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, false, fmt.Errorf("--param %q: want key=value", kv)
			}
			p.Params[k] = v
		}
	}
	if ch("dump") || ch("queries") {
		if f.dump == "" || f.queries == "" {
			return nil, false, fmt.Errorf("--dump and --queries go together: your data and your pages")
		}
		// the user's data in place of the study's workload, on the
		// targets a mysqldump loads into
		p.Workloads, p.Datasets = []string{"dump"}, []string{filepath.Base(f.dump)}
		if p.Params == nil {
			p.Params = map[string]string{}
		}
		p.Params["file"], p.Params["queries"] = f.dump, f.queries
		var kept, left []string
		for _, name := range p.Targets {
			if t, err := target.Lookup(name); err == nil && isMariaDB(t) {
				kept = append(kept, name)
			} else {
				left = append(left, name)
			}
		}
		if len(kept) == 0 {
			return nil, false, fmt.Errorf("--dump loads into MariaDB targets (mariadb-innodb, mariadb-myisam …); none of %s is one", strings.Join(p.Targets, ", "))
		}
		if len(left) > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "--dump: %s left out (a mysqldump loads into MariaDB targets)\n", strings.Join(left, ", "))
			p.Targets = kept
			if !slices.Contains(kept, p.Baseline) {
				p.Baseline = ""
			}
		}
	}
	return p, preset, nil
}

func runMain(ctx context.Context, cmd *cobra.Command, args []string, f runFlags) error {
	p, preset, err := buildPlan(cmd, args, f)
	if err != nil {
		return usage(err)
	}
	log := cmd.ErrOrStderr()
	opt := plan.Options{}
	if preset {
		// a preset runs on what is here and says what it skipped
		opt.Available = func(t target.Target) error { return t.Available() }
	}
	res, err := p.Resolve(opt)
	if err != nil {
		return usage(err)
	}
	if !preset {
		// targets the user named must all run: say why one cannot
		for _, t := range res.Targets {
			if err := t.Available(); err != nil {
				return usage(fmt.Errorf("--targets: %s cannot run here: %v", t.Name(), err))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(res.Skipped)) {
		fmt.Fprintln(log, wrapText(fmt.Sprintf("skipping %s: %s", name, res.Skipped[name]), termWidth(), 2))
	}
	if err := checkMemory(res); err != nil {
		return usage(err)
	}
	if f.dryRun {
		printDryRun(cmd.OutOrStdout(), res)
		return nil
	}
	if err := preflight(ctx, res); err != nil {
		return usage(err)
	}
	if err := checkLimits(res, f.allowUnlimited); err != nil {
		return usage(err)
	}
	out := f.out
	if out == "" {
		out = fmt.Sprintf("results/%s-%s", res.Name, time.Now().Format("20060102-150405"))
	}
	ledger := limits.Open()
	defer ledger.Close()
	runner := &run.Runner{OutDir: out, Log: log, Resume: f.resume, KeepData: f.keepData, AllowUnlimited: f.allowUnlimited, Ledger: ledger}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usage(fmt.Errorf("--out %s: cannot create it: %v", out, err))
	}
	var names []string
	for _, t := range res.Targets {
		names = append(names, t.Name())
	}
	m := &result.Manifest{Name: res.Name, Baseline: res.Baseline, Targets: names, Skipped: res.Skipped,
		Cells: len(res.Cells), Started: time.Now().UTC(), Machine: machine()}
	m.Seed = seedSetup(cmd, args, f, p, m.Machine.Cores)
	if err := result.WriteManifest(out, m); err != nil {
		return usage(fmt.Errorf("--out %s: not writable: %v", out, err))
	}
	sum, runErr := runner.Matrix(ctx, res)
	files, _ := result.ReadDir(out)
	if len(files) > 0 {
		report.SeedHeader(cmd.OutOrStdout(), m)
		report.Terminal(cmd.OutOrStdout(), files, res.Baseline)
		writeHTMLReport(out, res.Baseline, cmd.OutOrStdout(), log)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nresults: %s (%d cells run, %d skipped by --resume, %d failed)\n", out, sum.Ran, sum.Skipped, len(sum.Failed))
	if errors.Is(runErr, workload.ErrBadInput) {
		return usage(errors.New(strings.TrimPrefix(runErr.Error(), workload.ErrBadInput.Error()+": ")))
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

// checkMemory refuses a --memory that a server cannot live in, with the
// least that would do, before anything starts (also in --dry-run).
func checkMemory(res *plan.Resolved) error {
	for _, c := range res.Cells {
		t := res.Target(c.Target)
		if t == nil || c.Conditions.MemoryBytes == 0 {
			continue
		}
		if _, _, err := target.SizeFor(t, c.Conditions.MemoryBytes, c.Clients); err != nil {
			return fmt.Errorf("--memory %s: %w", target.HumanBytes(c.Conditions.MemoryBytes), err)
		}
	}
	return nil
}

// checkLimits stops a run that asks for limits this machine cannot apply
// before anything starts, unless --allow-unlimited.
func checkLimits(res *plan.Resolved, allow bool) error {
	for _, c := range res.Cells {
		if allow {
			break
		}
		t := res.Target(c.Target)
		if t == nil {
			continue
		}
		// the same mapping the run applies: what it would refuse, the
		// command refuses before anything starts
		lim, err := run.CellLimits(t, c)
		if err != nil {
			return err
		}
		if lim.Unavailable != nil {
			return fmt.Errorf("--memory/--iops/--bps/--cpus: %v", lim.Unavailable)
		}
	}
	for _, c := range res.Cells {
		if c.Conditions.Disk == "" {
			continue
		}
		if err := disk.Check(); err != nil {
			return fmt.Errorf("--disk: %v", err)
		}
		if t := res.Target(c.Target); t != nil && !t.Managed() {
			return fmt.Errorf("--disk: %s is a server shootout does not start: its data directory is not shootout's to move; drop it or --disk", c.Target)
		}
	}
	for _, c := range res.Cells {
		if err := limits.CheckNeighbour(limits.NeighbourSpec(c.Conditions.Neighbour), run.DiskIOPS(c.Conditions)); err != nil {
			return fmt.Errorf("--neighbour: %v", err)
		}
	}
	return nil
}

// preflight connects to every external server once, so a wrong password
// or an unreachable address is one clear error before anything runs.
func preflight(ctx context.Context, res *plan.Resolved) error {
	for _, t := range res.Targets {
		if t.Managed() {
			continue
		}
		inst, err := t.Start(ctx, target.StartOptions{})
		if err != nil {
			return err
		}
		inst.Stop(ctx)
	}
	return nil
}

func isMariaDB(t target.Target) bool {
	d, ok := target.DialectOf(t)
	return ok && d.Flavor == dialect.MySQL
}

func machine() result.Machine {
	m := result.Machine{Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.MemBytes = metrics.MemTotal()
	return m
}
