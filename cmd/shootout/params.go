package main

import (
	"fmt"
	"io"
	"strings"

	"shootout/internal/plan"
	"shootout/internal/report"
)

// printParams lists every workload's parameters from their declarations
// (name=default, and what is valid), workloads that share them together.
func printParams(w io.Writer, width int) {
	fmt.Fprintln(w, "\nParameters (shootout run --param KEY=VALUE; default after =):")
	for _, g := range plan.ParamGroups() {
		if g.Line == "" {
			fmt.Fprintln(w, report.Wrap(strings.Join(g.Workloads, ", ")+": none", "  ", width-1))
			continue
		}
		fmt.Fprintln(w, report.Wrap(strings.Join(g.Workloads, ", ")+":", "  ", width-1))
		fmt.Fprintln(w, report.Wrap(g.Line, "    ", width-1))
	}
}
