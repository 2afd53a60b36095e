package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"shootout/internal/capture"
)

func captureCmd() *cobra.Command {
	var o capture.Options
	var show string
	var lo capture.LogOptions
	var toPages string
	c := &cobra.Command{
		Use:   "capture (--listen ADDR --to URL --out FILE [--dump [FILE]] | --from-log FILE --format F --out FILE | --to-pages CAPTURE --out PAGES | --show FILE)",
		Short: "Record what an application sends its database server, through a proxy of shootout's own; show a capture",
		Long: "capture --listen 127.0.0.1:PORT --to URL --out FILE passes an application's sessions through to its server\n" +
			"unchanged and records every command with its timings, rows, errors and a checksum of the rows, until\n" +
			"Ctrl-C or SIGTERM.\n" + capture.ToHelp + "\n" +
			"--dump takes a consistent dump of --to's database before the first session (mariadb-dump --single-transaction,\n" +
			"pg_dump) into OUT.dump.sql; --dump FILE names the dump the capture started from instead.\n\n" +
			"capture --from-log FILE --format slow|general|csvlog --out FILE reads MariaDB's slow log (long_query_time=0),\n" +
			"its general log or PostgreSQL's csvlog (log_min_duration_statement=0) into the same format; what the log\n" +
			"cannot give is named in the capture's header.\n\n" +
			"capture --to-pages CAPTURE --out PAGES writes a MariaDB capture's requests as the pages file of run --queries.\n\n" +
			"capture --show FILE prints a capture's header, its sessions, commands and statements' fingerprints.\n" +
			"The format is in docs/capture.md.",
		Args: cobra.ArbitraryArgs, // --dump FILE, below
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && o.Dump == capture.DumpTake {
				o.Dump = args[0] // --dump FILE: pflag takes FILE for an argument when the value is optional
			} else if len(args) > 0 {
				return usage(fmt.Errorf("capture: takes no arguments (%q)", args[0]))
			}
			proxy := o.Listen != "" || o.To != ""
			switch {
			case toPages != "":
				if proxy || show != "" || lo.From != "" || o.Dump != "" || o.Out == "" {
					return usage(fmt.Errorf("capture: --to-pages CAPTURE and --out PAGES go together, alone"))
				}
				return inputErr(capture.ToPages(capture.PagesOptions{From: toPages, Out: o.Out, Log: cmd.ErrOrStderr()}))
			case lo.From != "" || lo.Format != "":
				if proxy || show != "" || lo.From == "" || lo.Format == "" || o.Out == "" {
					return usage(fmt.Errorf("capture: --from-log FILE, --format (%s) and --out FILE go together, without --listen, --to or --show", capture.LogFormats))
				}
				lo.Out, lo.Dump, lo.Log = o.Out, o.Dump, cmd.ErrOrStderr()
				return inputErr(capture.FromLog(lo))
			case show != "" && (proxy || o.Out != "" || o.Dump != ""):
				return usage(fmt.Errorf("capture: --show reads a capture; --listen, --to and --out run the proxy: give one or the other"))
			case show != "":
				return inputErr(capture.Show(cmd.OutOrStdout(), show, termWidth()))
			case o.Listen == "" || o.To == "" || o.Out == "":
				return usage(fmt.Errorf("capture: the proxy needs --listen, --to and --out together (or --show FILE to read a capture)"))
			}
			o.Log = cmd.ErrOrStderr()
			return inputErr(capture.Run(cmd.Context(), o))
		},
	}
	c.Flags().StringVar(&o.Listen, "listen", "", "loopback address the proxy listens on, such as 127.0.0.1:6033")
	c.Flags().StringVar(&o.To, "to", "", "the server's URL; its scheme names the protocol ("+capture.Schemes+"); a user or password in it is never used or written")
	c.Flags().StringVar(&o.Out, "out", "", "the capture file to write (never overwritten)")
	c.Flags().StringVar(&o.Dump, "dump", "", "the data the capture starts from: alone, the proxy takes a consistent dump of --to's database at its start\n(mariadb-dump --single-transaction, pg_dump) into OUT.dump.sql; --dump FILE names one, recorded as given")
	c.Flags().Lookup("dump").NoOptDefVal = capture.DumpTake
	c.Flags().StringVar(&lo.From, "from-log", "", "read this server log instead of running the proxy (with --format and --out)")
	c.Flags().StringVar(&lo.Format, "format", "", "the --from-log file's format: "+capture.LogFormats)
	c.Flags().StringVar(&toPages, "to-pages", "", "turn this capture into the pages file of run --queries (with --out)")
	c.Flags().StringVar(&show, "show", "", "print this capture's header and summary")
	return c
}

// inputErr makes the capture's bad input a usage error: exit 2.
func inputErr(err error) error {
	if errors.Is(err, capture.ErrBadInput) {
		return usage(err)
	}
	return err
}
