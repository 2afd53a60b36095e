package capture

import (
	"context"
	"io"

	"github.com/spf13/pflag"
)

// The command's help, here rather than in cmd: it names the servers and
// their tools, which cmd keeps behind the registries.
const (
	Use  = "capture (--listen ADDR --to URL --out FILE [--dump [FILE]] | --from-log FILE --format F --out FILE | --to-pages CAPTURE --out PAGES | --show FILE)"
	Long = "capture --listen 127.0.0.1:PORT --to URL --out FILE passes an application's sessions through to its server\n" +
		"unchanged and records every command with its timings, rows, errors and a checksum of the rows, until\n" +
		"Ctrl-C or SIGTERM.\n" + ToHelp + "\n" +
		"--dump takes a consistent dump of --to's database before the first session (mariadb-dump --single-transaction,\n" +
		"pg_dump) into OUT.dump.sql; --dump FILE names the dump the capture started from instead.\n\n" +
		"capture --from-log FILE --format slow|general|csvlog --out FILE reads MariaDB's slow log (long_query_time=0),\n" +
		"its general log or PostgreSQL's csvlog (log_min_duration_statement=0) into the same format; what the log\n" +
		"cannot give is named in the capture's header.\n\n" +
		"capture --to-pages CAPTURE --out PAGES writes a MariaDB capture's requests as the pages file of run --queries.\n\n" +
		"capture --show FILE prints a capture's header, its sessions, commands and statements' fingerprints.\n" +
		"The format is in docs/capture.md."
)

// CLI is the capture command's flags; Run picks the mode they ask for.
type CLI struct {
	proxy   Options
	log     LogOptions
	toPages string
	show    string
}

// Flags defines the command's flags on fs.
func (c *CLI) Flags(fs *pflag.FlagSet) {
	fs.StringVar(&c.proxy.Listen, "listen", "", "loopback address the proxy listens on, such as 127.0.0.1:6033")
	fs.StringVar(&c.proxy.To, "to", "", "the server's URL on this machine; its scheme names the protocol ("+Schemes+");\n"+
		"--dump uses its user and password (MYSQL_PWD or PGPASSWORD when it has none), never written")
	fs.StringVar(&c.proxy.Out, "out", "", "the capture file to write (never overwritten)")
	fs.StringVar(&c.proxy.Dump, "dump", "", "the data the capture starts from: alone, the proxy takes a consistent dump of --to's database at its start\n(mariadb-dump --single-transaction, pg_dump) into OUT.dump.sql; --dump FILE names one, recorded as given")
	fs.Lookup("dump").NoOptDefVal = DumpTake
	fs.StringVar(&c.log.From, "from-log", "", "read this server log instead of running the proxy (with --format and --out)")
	fs.StringVar(&c.log.Format, "format", "", "the --from-log file's format: "+LogFormats)
	fs.StringVar(&c.toPages, "to-pages", "", "turn this capture into the pages file of run --queries (with --out)")
	fs.StringVar(&c.show, "show", "", "print this capture's header and summary")
}

// Run runs the mode the flags ask for; a wrong combination is
// ErrBadInput. args are the command's arguments: pflag leaves the FILE
// of "--dump FILE" there, as the flag's value is optional.
func (c *CLI) Run(ctx context.Context, args []string, stdout, stderr io.Writer, width int) error {
	o := c.proxy
	if len(args) == 1 && o.Dump == DumpTake {
		o.Dump = args[0]
	} else if len(args) > 0 {
		return badInput("capture: takes no arguments (%q)", args[0])
	}
	proxy := o.Listen != "" || o.To != ""
	switch {
	case c.toPages != "":
		if proxy || c.show != "" || c.log.From != "" || o.Dump != "" || o.Out == "" {
			return badInput("capture: --to-pages CAPTURE and --out PAGES go together, alone")
		}
		return ToPages(PagesOptions{From: c.toPages, Out: o.Out, Log: stderr})
	case c.log.From != "" || c.log.Format != "":
		if proxy || c.show != "" || c.log.From == "" || c.log.Format == "" || o.Out == "" {
			return badInput("capture: --from-log FILE, --format (%s) and --out FILE go together, without --listen, --to or --show", LogFormats)
		}
		lo := c.log
		lo.Out, lo.Dump, lo.Log = o.Out, o.Dump, stderr
		return FromLog(lo)
	case c.show != "" && (proxy || o.Out != "" || o.Dump != ""):
		return badInput("capture: --show reads a capture; --listen, --to and --out run the proxy: give one or the other")
	case c.show != "":
		return Show(stdout, c.show, width)
	case o.Listen == "" || o.To == "" || o.Out == "":
		return badInput("capture: the proxy needs --listen, --to and --out together (or --show FILE to read a capture)")
	}
	o.Log = stderr
	return Run(ctx, o)
}
