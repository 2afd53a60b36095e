// Command shootout starts database servers, loads the same data into each,
// drives the same workload, and reports them side by side.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"shootout/internal/limits"
	"shootout/internal/run"
)

// usageError is bad input: exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

func main() {
	limits.MaybeExec() // a helper that joins cgroups and becomes a server
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := &cobra.Command{
		Use:           "shootout",
		Short:         "Which database server and engine is fastest for your application on your machine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usage(err) })
	// for developers: where the client's own CPU goes (see docs/bench-log.md)
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpu-profile", "", "write a Go CPU profile of shootout itself to this file")
	root.PersistentFlags().MarkHidden("cpu-profile")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if startsSomething(cmd) {
			// what a SIGKILLed shootout left behind (servers, fio,
			// cgroups, directories) goes before anything new starts;
			// commands that only read results touch none of it
			for _, line := range limits.Sweep() {
				fmt.Fprintln(cmd.ErrOrStderr(), "shootout: cleanup:", line)
			}
			for _, line := range run.SweepApps() {
				fmt.Fprintln(cmd.ErrOrStderr(), "shootout: cleanup:", line)
			}
		}
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return usage(fmt.Errorf("--cpu-profile: %v", err))
		}
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(cmd *cobra.Command, args []string) { pprof.StopCPUProfile() }
	wrapHelp(root)
	root.AddCommand(runCmd(), reportCmd(), targetsCmd(), studiesCmd(), schemaCmd(), prepareCmd(), calibrateCmd(), compareCmd(), captureCmd(), agentCmd(), mergeCmd(), k8sCmd())
	err := root.ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err))
}

// wrapHelp makes every command's help wrap its flags' texts to the
// terminal: cobra's template prints each on one line, up to 324
// characters for --cpus.
func wrapHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("wrappedFlagUsages", func(f *pflag.FlagSet) string {
		return f.FlagUsagesWrapped(termWidth() - 1)
	})
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "wrappedFlagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "wrappedFlagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
}

// startsSomething is true for the commands that start servers, fio or
// cgroups (run, but not run --dry-run; prepare; calibrate).
func startsSomething(cmd *cobra.Command) bool {
	if cmd.Annotations[startsAnnotation] == "" {
		return false
	}
	dry, err := cmd.Flags().GetBool("dry-run")
	return err != nil || !dry
}

// startsAnnotation marks a command that starts processes or cgroups.
const startsAnnotation = "starts"

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var u usageError
	switch {
	case errors.As(err, &u):
		fmt.Fprintln(os.Stderr, "shootout:", err)
		return 2
	case errors.Is(err, run.ErrCellsFailed):
		return 1
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(os.Stderr, "shootout: interrupted; every finished cell is in its result file")
		return 1
	default:
		fmt.Fprintln(os.Stderr, "shootout:", err)
		return 1
	}
}
