package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"shootout/internal/report"
	"shootout/internal/result"
	"shootout/internal/shard"
)

func mergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge OUT DIR...",
		Short: "Join the results directories of run --shard's shards into one, and report it",
		Long: `Merge copies the cells of every DIR into OUT (a new or empty directory),
writes one run.json, then the report run writes. It refuses, naming each cell
and field, cells of one name whose conditions differ between directories (a
server build, a setting, a limit), cells another shootout build measured, a
cell two directories hold, shards of one plan missing or given twice, a
shard that did not run all its cells or holds one it was not to run, and
shards of different plans. OUT may be neither a DIR nor inside one.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usage(fmt.Errorf("merge: want OUT and at least one results directory (the --out of each shard)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := args[0]
			m, err := shard.Merge(out, args[1:])
			if shard.IsBadInput(err) {
				return usage(err)
			}
			if err != nil {
				return err // I/O: exit 1; the same merge run again completes it
			}
			for _, n := range shard.MachineNotes(args[1:]) {
				fmt.Fprintln(cmd.ErrOrStderr(), wrapText("shootout: note: "+n, termWidth(), 2))
			}
			files, err := result.ReadDir(out)
			if err != nil {
				return err
			}
			report.SeedHeader(cmd.OutOrStdout(), m)
			report.Terminal(cmd.OutOrStdout(), files, m.Baseline)
			writeHTMLReport(out, m.Baseline, cmd.OutOrStdout(), cmd.ErrOrStderr())
			fmt.Fprintf(cmd.OutOrStdout(), "\nresults: %s (%d cells from %d directories)\n", out, len(files), len(args)-1)
			return nil
		},
	}
}
