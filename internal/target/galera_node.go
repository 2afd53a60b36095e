package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// galeraNode is one mariadbd of the cluster: its directory, process and
// a root pool on its unix socket (which no namespace hides).
// Its diedAt is when the node's process exited (zero while it runs): the
// cluster goes on without it while a majority is left.
type galeraNode struct {
	clusterNode
	sock string
	// joined is how the node came to hold the cluster's state at its
	// start (joinedNew, joinedCopy ...), from its log
	joined string
}

func (*galeraNode) kind() string { return "galera node" }

// alive are the nodes still running.
func (in *galeraInstance) alive() []*galeraNode {
	var out []*galeraNode
	for _, n := range in.nodes {
		if !n.gone() {
			out = append(out, n)
		}
	}
	return out
}

type galeraInstance struct {
	cluster[*galeraNode]
	conf galeraConf
	cred *syscall.Credential
	rr   *roundRobin
	// cut is the scheduled link cut as it happens, nil before the window
	cut *cutRun
}

func (in *galeraInstance) addrs() string {
	var a []string
	for _, n := range in.nodes {
		a = append(a, n.addr)
	}
	return strings.Join(a, ",")
}

// sizeNodes shares the memory budget out per node, as on N machines of
// that size each: --memory is the cell's, so each node gets 1/N of it.
func (in *galeraInstance) sizeNodes(opt StartOptions) error {
	in.applied = map[string]string{"innodb_use_native_aio": "OFF"} // as mariadb.go says why
	if opt.MemoryBudget > 0 {
		in.applied["aria_pagecache_buffer_size"], in.applied["key_buffer_size"] = "8M", "8M"
		sizing, err := SizeMemory("innodb", opt.MemoryBudget/int64(in.conf.nodes), opt.Clients)
		if err != nil {
			return err
		}
		logf(opt.Log, "each of %d nodes: %s", in.conf.nodes, sizing.WithGiven(in.conf.server))
		maps.Copy(in.applied, sizing.Settings)
	}
	maps.Copy(in.applied, in.conf.server)
	in.applied["wsrep_nodes"] = fmt.Sprint(in.conf.nodes)
	in.applied["wsrep_writers"] = in.conf.writers
	in.applied["wsrep_sst_method"] = "rsync"
	if in.conf.rate != "" {
		in.applied["wsrep_link_rate"] = in.conf.rate
	}
	if in.conf.cut != nil {
		in.applied["wsrep_cut_link"] = in.conf.cut.String()
	}
	for i, nd := range in.net.Nodes {
		d := filepath.Join(in.nodesDir(), fmt.Sprintf("n%d", i+1))
		n := &galeraNode{sock: filepath.Join(d, "mysqld.sock")}
		n.managed = managed{dir: d, dataDir: filepath.Join(d, "data"), keep: true}
		n.name, n.logFile, n.addr = fmt.Sprintf("n%d", i+1), filepath.Join(d, "error.log"), nd.Addr.String()
		if err := os.MkdirAll(n.dataDir, 0o700); err != nil {
			return err
		}
		in.nodes = append(in.nodes, n)
	}
	return nil
}

// galeraOwn are the applied settings that are not mariadbd's options.
var galeraOwn = map[string]bool{MallocSetting: true, "wsrep_nodes": true, "wsrep_writers": true, "wsrep_link_rate": true, "wsrep_sst_method": true, "wsrep_cut_link": true}

// nodeArgs is node i's command line: Galera's required settings (row
// binlog, interleaved auto-increment locks), its address in its own
// namespace, and the sized settings.
func (in *galeraInstance) nodeArgs(i int) []string {
	n := in.nodes[i]
	args := []string{"--no-defaults", "--datadir=" + n.dataDir, "--socket=" + n.sock,
		"--pid-file=" + filepath.Join(n.dir, "mysqld.pid"), "--log-error=" + n.logFile,
		"--bind-address=" + n.addr, "--port=3306", "--skip-name-resolve",
		"--default-storage-engine=InnoDB", "--max-connections=1000", "--local-infile=1",
		"--binlog-format=ROW", "--innodb-autoinc-lock-mode=2", "--wsrep-on=ON",
		"--wsrep-provider=" + GaleraProvider, "--wsrep-cluster-name=shootout-" + in.netID,
		"--wsrep-cluster-address=gcomm://" + in.addrs(), "--wsrep-node-address=" + n.addr,
		"--wsrep-node-name=" + n.name, "--wsrep-sst-method=rsync",
		"--wsrep-provider-options=gcache.size=64M"}
	for _, k := range slices.Sorted(maps.Keys(in.applied)) {
		if galeraOwn[k] {
			continue // shootout's, not the server's, or set above
		}
		args = append(args, fmt.Sprintf("--%s=%s", strings.ReplaceAll(k, "_", "-"), in.applied[k]))
	}
	if i == 0 {
		args = append(args, "--wsrep-new-cluster")
	}
	return args
}

// startNodes makes the first node's system tables and gives every joiner
// a copy of them, starts the first node as the new cluster and then each
// joiner on its copy at the cluster's position (joinCopy), and waits
// until each is Synced. How each joined is read from its log.
func (in *galeraInstance) startNodes(ctx context.Context, opt StartOptions) error {
	server, _, _ := mariadbBinaries()
	if err := chownTree(in.nodesDir(), in.cred); err != nil {
		return err
	}
	uid, gid := ownerOf(in.cred)
	if err := (MariaDB{}).installDB(ctx, opt, in.nodes[0].dataDir, "mysql", uid, gid); err != nil {
		return err
	}
	began := time.Now()
	for _, n := range in.nodes[1:] {
		if err := copyDataDir(ctx, in.nodes[0].dataDir, n.dataDir); err != nil {
			return err
		}
	}
	in.exited = make(chan struct{})
	if err := in.startNode(ctx, opt, server, 0); err != nil {
		return err
	}
	go in.watchNode(in.nodes[0])
	in.nodes[0].joined = joinedNew
	logf(opt.Log, "galera node n1 (pid %d, %s:3306) Synced, a new cluster", in.nodes[0].proc.PID(), in.nodes[0].addr)
	for i, n := range in.nodes[1:] {
		if err := in.joinCopy(ctx, opt, server, i+1); err != nil {
			return err
		}
		go in.watchNode(n)
		n.joined = joinedFromLog(ctx, n.logFile)
		logf(opt.Log, "galera node %s (pid %d, %s:3306) Synced, joined by %s", n.name, n.proc.PID(), n.addr, n.joined)
	}
	if err := in.waitCluster(ctx); err != nil {
		return err
	}
	logf(opt.Log, "the cluster was up %.1f s after its system tables were made", time.Since(began).Seconds())
	return nil
}

// watchNode records a node's death; the cluster is gone (Exited) once no
// majority of its nodes is left, since the rest stop taking writes
// (Galera's quorum): a node killed mid-run leaves a cell that goes on.
func (in *galeraInstance) watchNode(n *galeraNode) {
	<-n.proc.Exited()
	now := time.Now()
	n.diedAt.Store(&now)
	if 2*len(in.alive()) <= len(in.nodes) {
		in.exitOnce.Do(func() { close(in.exited) })
	}
}

func chownTree(dir string, cred *syscall.Credential) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
}

// startNode starts node i inside its namespace as the mysql user
// (startInHost) and waits until it is Synced.
func (in *galeraInstance) startNode(ctx context.Context, opt StartOptions, server string, i int) error {
	n := in.nodes[i]
	if err := in.startInHost(opt, i, in.cred, nil, server, in.nodeArgs(i)...); err != nil {
		return err
	}
	var err error
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", n.sock
	if n.db, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
		return err
	}
	if err := n.proc.waitReady(ctx, n.db.PingContext, "galera node "+n.name, n.logFile); err != nil {
		return err
	}
	return in.waitFor(ctx, "node "+n.name+" Synced", func(ctx context.Context) (bool, error) {
		st, err := n.status(ctx)
		return st["wsrep_local_state_comment"] == "Synced" && st["wsrep_ready"] == "ON", err
	})
}

// status is a node's wsrep status variables.
func (n *galeraNode) status(ctx context.Context) (map[string]string, error) {
	return querySettings(ctx, n.db, "SHOW GLOBAL STATUS WHERE Variable_name LIKE 'wsrep%' OR Variable_name = '"+innodbDeadlocks+"'")
}

// waitFor polls ok for a minute, or until a node dies.
func (in *galeraInstance) waitFor(ctx context.Context, what string, ok func(context.Context) (bool, error)) error {
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		try, cancel := context.WithTimeout(ctx, 5*time.Second)
		done, err := ok(try)
		cancel()
		if done && err == nil {
			return nil
		}
		last = err
		if why := in.Death(); why != "" {
			return fmt.Errorf("waiting for %s: %s", what, why)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not reached in 60s (last error: %v)", what, last)
}

// waitCluster waits until every node counts all N and is Synced.
func (in *galeraInstance) waitCluster(ctx context.Context) error {
	want := fmt.Sprint(len(in.nodes))
	return in.waitFor(ctx, "wsrep_cluster_size="+want+" on every node", func(ctx context.Context) (bool, error) {
		for _, n := range in.nodes {
			st, err := n.status(ctx)
			if err != nil || st["wsrep_cluster_size"] != want || st["wsrep_local_state_comment"] != "Synced" {
				return false, err
			}
		}
		return true, nil
	})
}

// connect makes the benchmark user and database (replicated to every
// node) and the clients' pool: on the first node, or with writers=all
// round-robin over the nodes, one node per new connection.
func (in *galeraInstance) connect(ctx context.Context) error {
	pw := password()
	client := in.net.ClientAddr.String()
	for _, q := range []string{
		"CREATE USER 'shootout'@'" + client + "' IDENTIFIED BY '" + pw + "'",
		"GRANT ALL ON *.* TO 'shootout'@'" + client + "' WITH GRANT OPTION",
		"CREATE DATABASE sbtest",
	} {
		if _, err := in.nodes[0].db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("set up benchmark user: %w", err)
		}
	}
	var conns []driver.Connector
	for _, n := range in.nodes {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "shootout", pw, "tcp", n.addr+":3306", "sbtest"
		cfg.InterpolateParams = true // as mariadb.go
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			return err
		}
		conns = append(conns, c)
	}
	in.rr = &roundRobin{conns: conns, spread: in.conf.writers == "all", out: make([]atomic.Bool, len(conns))}
	in.db = sql.OpenDB(in.rr)
	in.db.SetMaxIdleConns(dialect.IdleConns)
	in.ep = proto.TCP(proto.SQL, in.nodes[0].addr, 3306)
	in.ep.User, in.ep.Password, in.ep.Database, in.ep.Dialect = "shootout", pw, "sbtest", Galera{}.Dialect()
	return in.db.PingContext(ctx)
}

// roundRobin hands each new connection to the next node (spread), or to
// the first; a node that does not answer passes it on to the next, so
// the clients of a node that died reconnect to another.
type roundRobin struct {
	conns  []driver.Connector
	spread bool
	next   atomic.Uint64
	// out are the nodes last seen outside the primary component (a
	// link cut's watch sets them): they accept a connection and refuse
	// every query, so they are passed over as a load balancer's health
	// check would, unless every node is out
	out []atomic.Bool
}

func (r *roundRobin) Connect(ctx context.Context) (driver.Conn, error) {
	start := uint64(0)
	if r.spread {
		start = r.next.Add(1) - 1
	}
	var errs []error
	n := uint64(len(r.conns))
	for k := range 2 * n {
		i := (start + k) % n
		if k < n && r.isOut(i) {
			continue // tried on the second pass only
		}
		if k >= n && !r.isOut(i) {
			continue // tried on the first
		}
		c, err := r.conns[i].Connect(ctx)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func (r *roundRobin) isOut(i uint64) bool { return i < uint64(len(r.out)) && r.out[i].Load() }

func (r *roundRobin) Driver() driver.Driver { return r.conns[0].Driver() }
