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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/child"
	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// Spider is a MariaDB head node holding Spider tables over N backend
// nodes that hold the rows (InnoDB or MyRocks), each node a host of its
// own (internal/netns, cgroups of its own), the rows sharded by the
// primary key. The clients speak to the head alone; the workload's
// CREATE TABLE becomes the backend engine's table on every backend and
// a partitioned Spider table on the head (ExecSchema), so the workloads
// run through it unchanged.
type Spider struct{}

// The target's own settings, taken out of what goes to every mariadbd.
const (
	spiderBackendsKey = "backends"
	spiderEngineKey   = "backend_engine"
	spiderShardKey    = "shard"
)

type spiderConf struct {
	backends int
	engine   string // innodb or rocksdb
	shard    string // hash or range
	server   map[string]string
}

func spiderConfig(settings map[string]string) (spiderConf, error) {
	c := spiderConf{backends: 2, engine: "innodb", shard: "hash", server: maps.Clone(settings)}
	if c.server == nil {
		c.server = map[string]string{}
	}
	if v, ok := c.server[spiderBackendsKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 8 {
			return c, fmt.Errorf("mariadb-spider setting backends=%q: valid: 1 to 8", v)
		}
		c.backends = n
	}
	if v, ok := c.server[spiderEngineKey]; ok {
		if v != "innodb" && v != "rocksdb" {
			return c, fmt.Errorf("mariadb-spider setting backend_engine=%q: valid: innodb, rocksdb", v)
		}
		c.engine = v
	}
	if v, ok := c.server[spiderShardKey]; ok {
		if v != "hash" && v != "range" {
			return c, fmt.Errorf("mariadb-spider setting shard=%q: valid: hash, range", v)
		}
		c.shard = v
	}
	for _, k := range []string{spiderBackendsKey, spiderEngineKey, spiderShardKey} {
		delete(c.server, k)
	}
	return c, nil
}

// CheckSettings refuses bad backends, backend_engine or shard with the plan.
func (Spider) CheckSettings(settings map[string]string) error {
	_, err := spiderConfig(settings)
	return err
}

func (Spider) Name() string         { return "mariadb-spider" }
func (Spider) Protocol() proto.Name { return proto.SQL }
func (Spider) Embedded() bool       { return false }
func (Spider) Managed() bool        { return true }

// Dialect is the backends' default engine's: the workload writes its
// tables for the engine that holds the rows (the instance's endpoint
// names the one a plan chose).
func (Spider) Dialect() dialect.Dialect {
	return dialect.Dialect{Flavor: dialect.MySQL, Engine: "innodb"}
}

// Nodes: the head and the backends.
func (Spider) Nodes(settings map[string]string) int {
	c, err := spiderConfig(settings)
	if err != nil {
		return 0
	}
	return c.backends + 1
}

func (s Spider) StartsWhat(settings map[string]string) string {
	c, err := spiderConfig(settings)
	if err != nil {
		return err.Error()
	}
	_, transport := Build(s)
	return fmt.Sprintf("a Spider head over %d backend mariadbd per cell, each in a network namespace of its own, backends %s, sharded by %s of the primary key, %s",
		c.backends, c.engine, c.shard, transport)
}

func (Spider) Available() error {
	if _, _, err := mariadbBinaries(); err != nil {
		return err
	}
	if firstFile(filepath.Join(spiderPluginDir(), "ha_spider.so")) == "" {
		return errors.New("the Spider plugin ha_spider.so is missing; fix: apt-get install -y mariadb-plugin-spider")
	}
	for _, p := range []struct{ prog, pkg string }{{"ip", "iproute2"}, {"setpriv", "util-linux"}} {
		if _, err := exec.LookPath(p.prog); err != nil {
			return fmt.Errorf("%s not found (a node's host needs it); fix: apt-get install -y %s", p.prog, p.pkg)
		}
	}
	if os.Geteuid() != 0 {
		return errors.New("mariadb-spider makes network namespaces: run shootout as root")
	}
	_, err := mysqlCredential()
	return err
}

// spiderPluginDir is the first of Debian's plugin directories that has
// Spider (MyRocks' is found by rocksdbPlugin).
func spiderPluginDir() string {
	for _, d := range mariadbPluginDirs {
		if firstFile(filepath.Join(d, "ha_spider.so")) != "" {
			return d
		}
	}
	return mariadbPluginDirs[0]
}

// spiderNode is one mariadbd: the head (nodes[0]) or a backend. sb is a
// root pool on its benchmark database, for the schema and the checks.
type spiderNode struct {
	galeraNode
	sb *sql.DB
}

func (*spiderNode) kind() string { return "spider node" }

type spiderInstance struct {
	cluster[*spiderNode]
	conf spiderConf
	cred *syscall.Credential
	pw   string
}

func (in *spiderInstance) head() *spiderNode { return in.nodes[0] }
func (in *spiderInstance) backends() []*spiderNode {
	return in.nodes[1:]
}

// Start makes the hosts, one set of system tables copied to every node,
// starts the nodes, and on the head the Spider servers that name the
// backends.
func (s Spider) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	if err := s.Available(); err != nil {
		return nil, err
	}
	conf, err := spiderConfig(opt.Settings)
	if err != nil {
		return nil, err
	}
	if conf.engine == "rocksdb" {
		if _, ok := rocksdbPlugin(); !ok {
			return nil, errors.New("mariadb-spider backend_engine=rocksdb: MyRocks plugin ha_rocksdb.so not found; fix: apt-get install -y mariadb-plugin-rocksdb")
		}
	}
	cred, _ := mysqlCredential()
	dir, err := reachableServerDir(opt, "mariadb-spider", cred)
	if err != nil {
		return nil, err
	}
	in := &spiderInstance{conf: conf, cred: cred, pw: password(), cluster: cluster[*spiderNode]{dir: dir, keep: opt.KeepData, forgetNet: opt.ForgetNet,
		exited: make(chan struct{}), versionQuery: mysqlVersionQuery, settingsQuery: mysqlSettingsQuery}}
	defer func() {
		if err != nil {
			in.Stop(context.WithoutCancel(ctx))
		}
	}()
	if err := in.makeHosts(ctx, opt, conf.backends+1, "", "links between head and backends"); err != nil {
		return nil, err
	}
	if err := in.size(opt); err != nil {
		return nil, err
	}
	if err := in.startNodes(ctx, opt); err != nil {
		return nil, err
	}
	if err := in.connect(ctx); err != nil {
		return nil, err
	}
	logf(opt.Log, "started %s: head %s over %d %s backends, sharded by %s", s.Name(), in.head().addr, conf.backends, conf.engine, conf.shard)
	return in, nil
}

// size shares the memory budget out per node, as on N+1 machines, and
// makes the nodes' directories.
func (in *spiderInstance) size(opt StartOptions) error {
	n := len(in.net.Nodes)
	in.applied = map[string]string{"innodb_use_native_aio": "OFF"} // as mariadb.go says why
	if opt.MemoryBudget > 0 {
		in.applied["aria_pagecache_buffer_size"], in.applied["key_buffer_size"] = "8M", "8M"
		sizing, err := SizeMemory(in.conf.engine, opt.MemoryBudget/int64(n), opt.Clients)
		if err != nil {
			return err
		}
		logf(opt.Log, "each of %d nodes: %s", n, sizing.WithGiven(in.conf.server))
		maps.Copy(in.applied, sizing.Settings)
	}
	if in.conf.engine == "rocksdb" {
		in.applied["rocksdb_large_prefix"] = "ON" // as mariadb.go says why
	}
	// a deadlock across backends (a client holds a row on b1 and waits on
	// b2, another the other way round) is a cycle neither InnoDB sees:
	// only the lock wait's timeout breaks it, 50 s by default (a 4 s cell
	// stood still for 49.9 s here); 1 s is MyRocks' own default
	in.applied["innodb_lock_wait_timeout"] = "1"
	maps.Copy(in.applied, in.conf.server)
	in.applied["spider_backends"] = strconv.Itoa(in.conf.backends)
	in.applied["spider_backend_engine"] = in.conf.engine
	in.applied["spider_shard"] = in.conf.shard
	for i, nd := range in.net.Nodes {
		name := "head"
		if i > 0 {
			name = fmt.Sprintf("b%d", i)
		}
		d := filepath.Join(in.nodesDir(), name)
		node := &spiderNode{galeraNode: galeraNode{sock: filepath.Join(d, "mysqld.sock")}}
		node.managed = managed{dir: d, dataDir: filepath.Join(d, "data"), keep: true}
		node.name, node.logFile, node.addr = name, filepath.Join(d, "error.log"), nd.Addr.String()
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		in.nodes = append(in.nodes, node)
	}
	return nil
}

// spiderOwn are the applied settings that are shootout's, not mariadbd's.
var spiderOwn = map[string]bool{MallocSetting: true, "spider_backends": true, "spider_backend_engine": true, "spider_shard": true}

// nodeArgs is node i's command line: its address in its namespace, its
// engine's plugin (Spider on the head, MyRocks on MyRocks backends).
func (in *spiderInstance) nodeArgs(i int) []string {
	n := in.nodes[i]
	engine := in.conf.engine
	args := []string{"--no-defaults", "--datadir=" + n.dataDir, "--socket=" + n.sock,
		"--pid-file=" + filepath.Join(n.dir, "mysqld.pid"), "--log-error=" + n.logFile,
		"--bind-address=" + n.addr, "--port=3306", "--skip-name-resolve",
		"--max-connections=1000", "--local-infile=1"}
	if i == 0 {
		// the head's own tables are Spider's and the system's; MyRocks is
		// loaded there too for MyRocks backends, since the workload's
		// loader sets its session variables on the head's connections
		args = append(args, "--plugin-dir="+spiderPluginDir(), "--plugin-load-add=ha_spider.so")
		engine = "innodb"
	}
	if in.conf.engine == "rocksdb" {
		if i > 0 {
			dir, _ := rocksdbPlugin()
			args = append(args, "--plugin-dir="+dir)
		}
		args = append(args, "--plugin-load-add=ha_rocksdb.so")
	}
	args = append(args, "--default-storage-engine="+engine)
	for _, k := range slices.Sorted(maps.Keys(in.applied)) {
		if spiderOwn[k] {
			continue
		}
		args = append(args, fmt.Sprintf("--%s=%s", strings.ReplaceAll(k, "_", "-"), in.applied[k]))
	}
	return args
}

// startNodes makes the system tables once and copies them to every
// node (no node's differ), then starts the nodes together.
func (in *spiderInstance) startNodes(ctx context.Context, opt StartOptions) error {
	server, _, _ := mariadbBinaries()
	tmpl := in.head().dataDir
	if err := os.MkdirAll(tmpl, 0o700); err != nil {
		return err
	}
	if err := chownTree(in.nodesDir(), in.cred); err != nil {
		return err
	}
	uid, gid := ownerOf(in.cred)
	if err := (MariaDB{}).installDB(ctx, opt, tmpl, "mysql", uid, gid); err != nil {
		return err
	}
	for _, n := range in.backends() {
		if out, err := child.CombinedOutput(exec.CommandContext(ctx, "cp", "-a", tmpl, n.dataDir)); err != nil {
			return fmt.Errorf("copy the system tables to %s: %v: %s", n.name, err, out)
		}
	}
	for i := range in.nodes {
		if err := in.startNode(opt, server, i); err != nil {
			return err
		}
	}
	for _, n := range in.nodes {
		if err := n.proc.waitReady(ctx, n.db.PingContext, "spider node "+n.name, n.logFile); err != nil {
			return err
		}
		go in.watchNode(n)
		logf(opt.Log, "spider node %s (pid %d, %s:3306) ready", n.name, n.proc.PID(), n.addr)
	}
	return nil
}

// startNode starts node i in its namespace as the mysql user (ip execs
// setpriv, which execs mariadbd: one pid), in cgroups of its own.
func (in *spiderInstance) startNode(opt StartOptions, server string, i int) error {
	n := in.nodes[i]
	if err := in.startInHost(opt, i, in.cred, nil, server, in.nodeArgs(i)...); err != nil {
		return err
	}
	var err error
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", n.sock
	n.db, err = sql.Open("mysql", cfg.FormatDSN())
	return err
}

// watchNode closes exited when any node dies: the head answers no
// query that reaches a dead backend, and every query reaches the head.
func (in *spiderInstance) watchNode(n *spiderNode) {
	<-n.proc.Exited()
	now := time.Now()
	n.diedAt.Store(&now)
	in.exitOnce.Do(func() { close(in.exited) })
}

// connect makes the benchmark user (the clients' and the head's, from
// the hosts' /24) and database on every node, the head's Spider servers
// (one a backend), and the clients' pool on the head.
func (in *spiderInstance) connect(ctx context.Context) error {
	hosts := strings.TrimSuffix(netip.PrefixFrom(in.net.ClientAddr, 24).Masked().Addr().String(), "0") + "%"
	for _, n := range in.nodes {
		for _, q := range []string{
			"CREATE USER 'shootout'@'" + hosts + "' IDENTIFIED BY '" + in.pw + "'",
			"GRANT ALL ON *.* TO 'shootout'@'" + hosts + "' WITH GRANT OPTION",
			"CREATE DATABASE sbtest",
		} {
			if _, err := n.db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("node %s: set up benchmark user: %w", n.name, err)
			}
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "unix", n.sock, "sbtest"
		var err error
		if n.sb, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
			return err
		}
	}
	for i, b := range in.backends() {
		q := fmt.Sprintf("CREATE SERVER b%d FOREIGN DATA WRAPPER mysql OPTIONS (HOST '%s', DATABASE 'sbtest', USER 'shootout', PASSWORD '%s', PORT 3306)", i+1, b.addr, in.pw)
		if _, err := in.head().db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("head: CREATE SERVER b%d: %w", i+1, err)
		}
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "shootout", in.pw, "tcp", in.head().addr+":3306", "sbtest"
	cfg.InterpolateParams = true // as mariadb.go
	var err error
	if in.db, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
		return err
	}
	in.db.SetMaxIdleConns(dialect.IdleConns)
	in.ep = proto.TCP(proto.SQL, in.head().addr, 3306)
	in.ep.User, in.ep.Password, in.ep.Database, in.ep.Dialect = "shootout", in.pw, "sbtest", in.Dialect()
	return in.db.PingContext(ctx)
}
