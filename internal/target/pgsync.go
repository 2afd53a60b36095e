package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"shootout/internal/child"
	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// PgSync is a PostgreSQL primary with a streaming standby that shootout
// starts itself, each a host of its own (a network namespace of
// internal/netns, cgroups of its own): the standby is made by
// pg_basebackup from the primary and named in the primary's
// synchronous_standby_names, so every commit waits for it as far as
// synchronous_commit says. The cost of a synchronous replica is then a
// figure of the cell, set against the plain postgres target.
type PgSync struct{}

// pgSyncCommitKey is the target's one parameter of its own: how far a
// commit waits for the standby. Its values are those that wait for it;
// local and off would measure a primary alone, which postgres does.
const pgSyncCommitKey = "synchronous_commit"

var pgSyncCommits = []string{"on", "remote_write", "remote_apply"}

// pgStandbyName is the standby's application_name, the one the
// primary's synchronous_standby_names lists.
const pgStandbyName = "standby"

func pgSyncConfig(settings map[string]string) (map[string]string, error) {
	s := maps.Clone(settings)
	if s == nil {
		s = map[string]string{}
	}
	if v, ok := s[pgSyncCommitKey]; ok && !slices.Contains(pgSyncCommits, v) {
		return nil, fmt.Errorf("postgres-sync setting synchronous_commit=%q: valid: %s", v, strings.Join(pgSyncCommits, ", "))
	}
	if _, ok := s[pgSyncCommitKey]; !ok {
		s[pgSyncCommitKey] = "on"
	}
	if _, ok := s["synchronous_standby_names"]; ok {
		return nil, errors.New("postgres-sync setting synchronous_standby_names: shootout sets it (the standby it starts); valid: leave it out")
	}
	return s, nil
}

// CheckSettings refuses a bad synchronous_commit with the plan.
func (PgSync) CheckSettings(settings map[string]string) error {
	_, err := pgSyncConfig(settings)
	return err
}

func (PgSync) Name() string             { return "postgres-sync" }
func (PgSync) Dialect() dialect.Dialect { return dialect.Dialect{Flavor: dialect.Postgres} }
func (PgSync) Protocol() proto.Name     { return proto.SQL }
func (PgSync) Embedded() bool           { return false }
func (PgSync) Managed() bool            { return true }

// Nodes: a primary and one standby.
func (PgSync) Nodes(settings map[string]string) int {
	if _, err := pgSyncConfig(settings); err != nil {
		return 0
	}
	return 2
}

func (p PgSync) StartsWhat(settings map[string]string) string {
	s, err := pgSyncConfig(settings)
	if err != nil {
		return err.Error()
	}
	_, transport := Build(p)
	return fmt.Sprintf("a private PostgreSQL primary and a streaming standby per cell, each in a network namespace of its own, synchronous_commit=%s, %s", s[pgSyncCommitKey], transport)
}

func (PgSync) Available() error {
	if _, err := postgresBinDir(); err != nil {
		return err
	}
	for _, p := range []struct{ prog, pkg string }{{"ip", "iproute2"}, {"setpriv", "util-linux"}} {
		if _, err := exec.LookPath(p.prog); err != nil {
			return fmt.Errorf("%s not found (a node's host needs it); fix: apt-get install -y %s", p.prog, p.pkg)
		}
	}
	if os.Geteuid() != 0 {
		return errors.New("postgres-sync makes network namespaces: run shootout as root")
	}
	_, err := postgresCredential()
	return err
}

// pgNode is one postgres of the pair: its directory, its process, and
// a pool on its unix socket (which no namespace hides).
// pgNode's exit is not timed (diedAt stays nil): the primary's ends the
// cell, the standby's leaves the primary's commits waiting.
type pgNode struct {
	clusterNode
}

func (*pgNode) kind() string { return "postgres" }

// pgSyncInstance's nodes are the primary, then the standby.
type pgSyncInstance struct {
	cluster[*pgNode]
	bin  string
	cred *syscall.Credential
	pw   string
}

// Start makes the two hosts, the primary (initdb), the standby
// (pg_basebackup from the primary, streaming), and only once the standby
// streams names it in synchronous_standby_names: before, every commit of
// the set-up would wait for a standby not yet there.
func (p PgSync) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	if err := p.Available(); err != nil {
		return nil, err
	}
	settings, err := pgSyncConfig(opt.Settings)
	if err != nil {
		return nil, err
	}
	bin, _ := postgresBinDir()
	cred, _ := postgresCredential()
	dir, err := reachableServerDir(opt, "postgres-sync", cred)
	if err != nil {
		return nil, err
	}
	in := &pgSyncInstance{bin: bin, cred: cred, pw: password(), cluster: cluster[*pgNode]{dir: dir, keep: opt.KeepData, forgetNet: opt.ForgetNet,
		exited: make(chan struct{}), versionQuery: "SHOW server_version", settingsQuery: "SELECT name, setting FROM pg_settings"}}
	defer func() {
		if err != nil {
			in.Stop(context.WithoutCancel(ctx))
		}
	}()
	if err := in.makeHosts(ctx, opt, 2, "", "link between primary and standby"); err != nil {
		return nil, err
	}
	if err := in.size(opt, settings); err != nil {
		return nil, err
	}
	if err := in.startPrimary(ctx, opt); err != nil {
		return nil, err
	}
	if err := in.startStandby(ctx, opt); err != nil {
		return nil, err
	}
	if err := in.makeSynchronous(ctx); err != nil {
		return nil, err
	}
	go in.watch()
	logf(opt.Log, "started %s: primary %s, standby %s streaming, synchronous_commit=%s", p.Name(), in.nodes[0].addr, in.nodes[1].addr, in.applied[pgSyncCommitKey])
	return in, nil
}

// size shares the memory budget out per node, as on two machines of
// that size each, and makes the nodes' directories.
func (in *pgSyncInstance) size(opt StartOptions, settings map[string]string) error {
	in.applied = map[string]string{"max_connections": "1100", "port": "5432", "hot_standby": "on"}
	if opt.MemoryBudget > 0 {
		sizing, err := SizeMemory("postgres", opt.MemoryBudget/2, opt.Clients)
		if err != nil {
			return err
		}
		logf(opt.Log, "each of 2 nodes: %s", sizing.WithGiven(settings))
		maps.Copy(in.applied, sizing.Settings)
	}
	maps.Copy(in.applied, settings)
	in.applied["synchronous_standby_names"] = pgStandbyName
	for i, name := range []string{"primary", pgStandbyName} {
		d := filepath.Join(in.nodesDir(), name)
		n := &pgNode{}
		n.managed = managed{dir: d, dataDir: filepath.Join(d, "data"), keep: true}
		n.name, n.logFile, n.addr = name, filepath.Join(d, "postgres.log"), in.net.Nodes[i].Addr.String()
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		in.nodes = append(in.nodes, n)
	}
	return chownTree(in.nodesDir(), in.cred)
}

// subnet is the hosts' /24: the clients and the other node connect from it.
func (in *pgSyncInstance) subnet() string {
	return netip.PrefixFrom(in.net.ClientAddr, 24).Masked().String()
}

// startPrimary makes the primary's cluster, lets the clients and the
// standby's replication in from the hosts' subnet, starts it and makes
// the benchmark database.
func (in *pgSyncInstance) startPrimary(ctx context.Context, opt StartOptions) error {
	n := in.nodes[0]
	if err := initCluster(ctx, opt, in.bin, in.cred, n.dir, n.dataDir, in.pw); err != nil {
		return err
	}
	hba, err := os.OpenFile(filepath.Join(n.dataDir, "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(hba, "host all all %[1]s scram-sha-256\nhost replication all %[1]s scram-sha-256\n", in.subnet())
	hba.Close()
	if err != nil {
		return err
	}
	if err := in.startNode(ctx, opt, 0); err != nil {
		return err
	}
	_, err = n.db.ExecContext(ctx, "CREATE DATABASE sbtest")
	return err
}

// startStandby copies the primary with pg_basebackup, run in the
// standby's namespace so the copy crosses the link, and starts it as a
// standby streaming from the primary under pgStandbyName. The password
// goes in the standby's own files, never on a command line.
func (in *pgSyncInstance) startStandby(ctx context.Context, opt StartOptions) error {
	n := in.nodes[1]
	cmd := in.net.Command(1, "setpriv", append(privArgs(in.cred), filepath.Join(in.bin, "pg_basebackup"),
		"-h", in.nodes[0].addr, "-p", "5432", "-U", "shootout", "-D", n.dataDir, "-X", "stream", "-c", "fast", "--no-sync")...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+in.pw)
	if out, err := child.CombinedOutput(cmd); err != nil {
		return fmt.Errorf("pg_basebackup: %v: %s", err, lastLines(string(out), 5))
	}
	conninfo := fmt.Sprintf("host=%s port=5432 user=shootout password=%s application_name=%s", in.nodes[0].addr, in.pw, pgStandbyName)
	auto := filepath.Join(n.dataDir, "postgresql.auto.conf")
	f, err := os.OpenFile(auto, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "primary_conninfo = '%s'\n", conninfo)
	f.Close()
	if err != nil {
		return err
	}
	if err := writeOwned(filepath.Join(n.dataDir, "standby.signal"), "", in.cred); err != nil {
		return err
	}
	return in.startNode(ctx, opt, 1)
}

func writeOwned(path, text string, cred *syscall.Credential) error {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	return os.Chown(path, int(cred.Uid), int(cred.Gid))
}

// startNode starts node i in its namespace as the postgres user (ip
// execs setpriv, which execs postgres: one pid throughout), in its own
// cgroups, and waits until it answers on its socket.
func (in *pgSyncInstance) startNode(ctx context.Context, opt StartOptions, i int) error {
	n := in.nodes[i]
	args := []string{"-D", n.dataDir, "-c", "listen_addresses=" + n.addr, "-c", "unix_socket_directories=" + n.dir}
	for _, k := range slices.Sorted(maps.Keys(in.applied)) {
		if k != "synchronous_standby_names" { // set once the standby streams
			args = append(args, "-c", k+"="+in.applied[k])
		}
	}
	logOut, err := os.OpenFile(n.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logOut.Close()
	if err := in.startInHost(opt, i, in.cred, logOut, filepath.Join(in.bin, "postgres"), args...); err != nil {
		return err
	}
	if n.db, err = openSQL("pgx", fmt.Sprintf("host=%s port=5432 user=shootout password=%s dbname=postgres", n.dir, in.pw)); err != nil {
		return err
	}
	if err := n.proc.waitReady(ctx, n.db.PingContext, "postgres "+n.name, n.logFile); err != nil {
		return err
	}
	logf(opt.Log, "postgres %s (pid %d, %s:5432) ready", n.name, n.proc.PID(), n.addr)
	return nil
}

// makeSynchronous waits for the standby to stream, names it in the
// primary's synchronous_standby_names, waits until the primary counts it
// as synchronous, and opens the clients' pool on the primary.
func (in *pgSyncInstance) makeSynchronous(ctx context.Context) error {
	primary := in.nodes[0].db
	state := func(want string) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			var s string
			err := primary.QueryRowContext(ctx, "SELECT state || '/' || sync_state FROM pg_stat_replication WHERE application_name = $1", pgStandbyName).Scan(&s)
			if errors.Is(err, sql.ErrNoRows) {
				err = nil
			}
			return s == want, err
		}
	}
	if err := waitUntil(ctx, "the standby streaming", in.Death, state("streaming/async")); err != nil {
		return err
	}
	for _, q := range []string{"ALTER SYSTEM SET synchronous_standby_names = '" + pgStandbyName + "'", "SELECT pg_reload_conf()"} {
		if _, err := primary.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("primary: %s: %w", q, err)
		}
	}
	if err := waitUntil(ctx, "the standby synchronous", in.Death, state("streaming/sync")); err != nil {
		return err
	}
	dsn := fmt.Sprintf("host=%s port=5432 user=shootout password=%s dbname=sbtest sslmode=disable", in.nodes[0].addr, in.pw)
	var err error
	if in.db, err = openSQL("pgx", dsn); err != nil {
		return err
	}
	in.db.SetMaxIdleConns(dialect.IdleConns)
	in.ep = proto.TCP(proto.SQL, in.nodes[0].addr, 5432)
	in.ep.User, in.ep.Password, in.ep.Database, in.ep.Dialect = "shootout", in.pw, "sbtest", PgSync{}.Dialect()
	return in.db.PingContext(ctx)
}

// watch closes exited when the primary dies: the clients are on it. A
// dead standby leaves the primary up, its commits waiting; Death names it.
func (in *pgSyncInstance) watch() {
	<-in.nodes[0].proc.Exited()
	close(in.exited)
}

func (in *pgSyncInstance) Dialect() dialect.Dialect { return PgSync{}.Dialect() }

// Settle vacuums and checkpoints the primary, waits for the standby to
// replay it all and restarts it there (a checkpoint on a standby).
func (in *pgSyncInstance) Settle(ctx context.Context) (string, error) {
	if err := in.nodes[0].execAll(ctx, "VACUUM", "CHECKPOINT"); err != nil {
		return "", err
	}
	_, err := in.WriteBack(ctx, settleWriteBackLimit)
	return "", err
}

// WriteBack checkpoints the primary, and the standby once it replayed
// what the primary wrote: both nodes' dirty buffers are the window's.
func (in *pgSyncInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	if err := in.nodes[0].execAll(ctx, "CHECKPOINT"); err != nil {
		return WriteBackResult{}, fmt.Errorf("primary: %w", err)
	}
	if _, err := in.caughtUp(ctx, limit); err != nil {
		return WriteBackResult{}, err
	}
	if err := in.nodes[1].execAll(ctx, "CHECKPOINT"); err != nil {
		return WriteBackResult{}, fmt.Errorf("standby: %w", err)
	}
	return WriteBackResult{}, nil
}

// Stop stops both nodes at once (immediately when the directory goes
// next), then removes the hosts and the directory.
func (in *pgSyncInstance) Stop(ctx context.Context) error {
	sig := syscall.SIGINT
	if !in.keep {
		sig = syscall.SIGQUIT
	}
	return in.stopAll(func(n *pgNode) error { return n.shutdown(sig) })
}
