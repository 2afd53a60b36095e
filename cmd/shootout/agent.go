package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"shootout/internal/agent"
)

// agentCmd is the process `run --agents N` starts for a share of a
// cell's clients; it is hidden, since run starts it.
func agentCmd() *cobra.Command {
	var listen string
	c := &cobra.Command{
		Use:    "agent --listen unix:PATH|tcp:127.0.0.1:PORT|fd:3",
		Short:  "Run a share of a cell's clients for the run that owns the cell (run --agents N starts it)",
		Hidden: true,
		Args:   exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if listen == "" {
				return usage(fmt.Errorf("agent: --listen is required (unix:PATH or tcp:127.0.0.1:PORT)"))
			}
			lis, err := agent.Listen(listen)
			if err != nil {
				return usage(err)
			}
			return agent.Serve(cmd.Context(), lis)
		},
	}
	c.Flags().StringVar(&listen, "listen", "", "where to answer the owner: `unix:PATH`, tcp:127.0.0.1:PORT (loopback only) or fd:3 (a listener the owner bound)")
	return c
}
