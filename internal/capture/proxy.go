package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
)

// Options are the proxy's: where it listens, the server it forwards to,
// the capture file.
type Options struct {
	Listen string // a loopback host:port
	To     string // the server's URL: its scheme names the protocol; only --dump uses its user and password, never written
	Out    string
	// Dump is the data the capture starts from: DumpTake to take it at
	// the start, or a dump file the user names
	Dump string
	Log  io.Writer // one line per session and the summary at the end
}

// proxy is one running capture.
type proxy struct {
	opt      Options
	protocol string
	server   string
	w        *writer
	header   sync.Once
	ids      atomic.Int64
	mu       sync.Mutex
	live     map[*session]bool
	stopping atomic.Bool
	start    int64
	dump     *Dump
}

// Run listens until ctx is done (Ctrl-C, SIGTERM), passing every session
// through to the server and recording it, then ends the file with its
// last line. Bad options are ErrBadInput, before anything listens.
func Run(ctx context.Context, o Options) error {
	protocol, server, err := parseTo(o.To)
	if err != nil {
		return err
	}
	if err := checkLoopback(o.Listen); err != nil {
		return err
	}
	dump, plan, err := planDump(o, protocol, server)
	if err != nil {
		return err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return badInput("--listen %s: %w", o.Listen, err)
	}
	// the dump is taken while the listener holds back the application's
	// connections: what they do comes after the data it holds
	if plan != nil {
		fmt.Fprintf(o.Log, "capture: taking a dump of %s into %s\n", plan.database, plan.path)
		if err := plan.take(ctx, dump); err != nil {
			ln.Close()
			return err
		}
	}
	w, err := newWriter(o.Out)
	if err != nil {
		ln.Close()
		return err
	}
	p := &proxy{opt: o, protocol: protocol, server: server, w: w, live: map[*session]bool{}, start: now(), dump: dump}
	fmt.Fprintf(o.Log, "capture: listening on %s, forwarding %s to %s, writing %s; Ctrl-C to stop\n",
		ln.Addr(), protocol, server, o.Out)
	var wg sync.WaitGroup
	go func() {
		<-ctx.Done()
		p.stopping.Store(true)
		ln.Close()
	}()
	p.accept(ctx, ln, &wg)
	cut := p.stopAll()
	wg.Wait()
	return p.finish(cut)
}

func (p *proxy) accept(ctx context.Context, ln net.Listener, wg *sync.WaitGroup) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if !p.stopping.Load() {
				fmt.Fprintf(p.opt.Log, "capture: accept: %v; stopping\n", err)
			}
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.serve(ctx, c)
		}()
	}
}

// serve runs one session: the server is dialled for each client.
func (p *proxy) serve(ctx context.Context, c net.Conn) {
	s := &session{p: p, client: c}
	var d net.Dialer
	srv, err := d.DialContext(ctx, "tcp", p.server)
	if err != nil {
		fmt.Fprintf(p.opt.Log, "capture: a client from %s: server %s: %v\n", c.RemoteAddr(), p.server, err)
		c.Close()
		return
	}
	s.server = srv
	p.mu.Lock()
	if p.stopping.Load() {
		p.mu.Unlock()
		c.Close()
		srv.Close()
		return
	}
	p.live[s] = true
	p.mu.Unlock()
	var reason string
	if p.protocol == ProtoMySQL {
		reason = runMySQL(s)
	} else {
		reason = runPostgres(s)
	}
	p.mu.Lock()
	delete(p.live, s)
	if p.stopping.Load() {
		reason = "capture stopped"
	}
	p.mu.Unlock()
	s.close(reason)
}

// stopAll closes every open session's connections; each session's
// goroutines then write what they had and its close line.
func (p *proxy) stopAll() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.live {
		s.client.Close()
		s.server.Close()
	}
	return int64(len(p.live))
}

// serverVersion writes the header once the first session has learnt the
// server's version.
func (p *proxy) serverVersion(v string) {
	p.header.Do(func() { p.w.line(p.headerLine(v)) })
}

func (p *proxy) headerLine(version string) Header {
	missing := []string{
		"TLS: sessions that ask for it are refused (the proxy cannot read encrypted traffic)",
		"the server's own time: start_ns and end_ns are when the proxy read the command and the last message of its answer",
		"the authentication exchange (never recorded: it holds password hashes)",
	}
	if p.protocol == ProtoMySQL {
		missing = append(missing, "COM_STMT_SEND_LONG_DATA's parameter data", "LOAD DATA LOCAL's file contents",
			"server-side cursors: rows fetched with COM_STMT_FETCH are not told apart from the execute that opened them")
	} else {
		missing = append(missing, "COPY's data", "FunctionCall messages")
	}
	return Header{Type: "header", Format: Format, Version: Version, Protocol: p.protocol, Source: "proxy",
		Server: p.server, ServerVersion: version, StartNs: p.start, Missing: missing, Dump: p.dump}
}

func (p *proxy) finish(cut int64) error {
	p.serverVersion("") // no session learnt it: the header still comes first
	p.w.mu.Lock()
	sessions, commands := p.w.counted.sessions, p.w.counted.commands
	p.w.mu.Unlock()
	reason := "stopped by a signal"
	if !p.stopping.Load() {
		reason = "the listener failed"
	}
	p.w.line(End{Type: "end", AtNs: now(), Reason: reason, Sessions: sessions, Commands: commands, Cut: cut})
	if err := p.w.close(); err != nil {
		return fmt.Errorf("%s: %w", p.opt.Out, err)
	}
	fmt.Fprintf(p.opt.Log, "capture: %d sessions (%d cut by the stop), %d commands in %s\n", sessions, cut, commands, p.opt.Out)
	return nil
}

// Schemes are the URL schemes --to takes, and ToHelp says what --to is.
const (
	Schemes = "mysql, mariadb, postgres, postgresql"
	ToHelp  = "--to is the server's URL on this machine (127.0.0.1, ::1, localhost): mysql://HOST:PORT (MariaDB, MySQL) or postgres://HOST:PORT;\n" +
		"--dump takes the user, password and database from it, the password from MYSQL_PWD or PGPASSWORD when the URL has none."
)

// parseTo takes the protocol from the URL's scheme and the address from
// its host; the user and password are left to planDump, and no error
// repeats the URL, which may hold them.
func parseTo(to string) (protocol, addr string, err error) {
	u, perr := url.Parse(to)
	if perr != nil || u.Host == "" {
		return "", "", badInput("--to: not a URL such as mysql://HOST:PORT or postgres://HOST:PORT")
	}
	port := ""
	switch strings.ToLower(u.Scheme) {
	case "mysql", "mariadb":
		protocol, port = ProtoMySQL, "3306"
	case "postgres", "postgresql":
		protocol, port = ProtoPostgres, "5432"
	default:
		return "", "", badInput("--to: scheme %q; valid: %s", u.Scheme, Schemes)
	}
	if u.Port() != "" {
		port = u.Port()
	}
	// the proxy clears CLIENT_SSL and refuses TLS: what it forwards,
	// passwords included, goes in the clear, so only to this machine
	if host := u.Hostname(); !isLoopback(host) {
		return "", "", badInput("--to: host %q is not a loopback address; the proxy forwards without TLS, so only to a server on this machine (127.0.0.1, ::1, localhost)", host)
	}
	return protocol, net.JoinHostPort(u.Hostname(), port), nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}

// checkLoopback refuses a listening address other machines could reach:
// the proxy passes credentials and data through unencrypted.
func checkLoopback(listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return badInput("--listen %q: want HOST:PORT such as 127.0.0.1:6033", listen)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return badInput("--listen %q: the proxy listens on a loopback address only (127.0.0.1, ::1)", listen)
	}
	return nil
}

// closedErr is true for the errors a connection closed by either side or
// by the stop gives.
func closedErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF)
}
