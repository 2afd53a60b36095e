package main

import (
	"errors"

	"github.com/spf13/cobra"

	"shootout/internal/capture"
)

func captureCmd() *cobra.Command {
	var cc capture.CLI
	c := &cobra.Command{
		Use:   capture.Use,
		Short: "Record what an application sends its server (a proxy or a log); show a capture",
		Long:  capture.Long,
		Args:  cobra.ArbitraryArgs, // capture.CLI.Run takes the FILE of an optional flag's value
		RunE: func(cmd *cobra.Command, args []string) error {
			return inputErr(cc.Run(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr(), termWidth()))
		},
	}
	cc.Flags(c.Flags())
	return c
}

// inputErr makes the capture's bad input a usage error: exit 2.
func inputErr(err error) error {
	if errors.Is(err, capture.ErrBadInput) {
		return usage(err)
	}
	return err
}
