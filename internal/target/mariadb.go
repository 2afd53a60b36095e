package target

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/user"
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

// mariadbEngines maps each engine to the setting its cache is sized by.
var mariadbEngines = map[string]string{
	"innodb":  "innodb_buffer_pool_size",
	"rocksdb": "rocksdb_block_cache_size",
	"aria":    "aria_pagecache_buffer_size",
	"myisam":  "key_buffer_size",
	"memory":  "max_heap_table_size",
}

// MariaDB is a private mariadbd whose tables use one storage engine.
type MariaDB struct {
	Engine string
	// NonTransactional makes Aria's tables TRANSACTIONAL=0 (no page
	// log, no crash recovery): seed 001's second Aria row. (Its 1k page
	// cannot be had on MariaDB 10.11: aria_block_size below 4096 is
	// raised to 4096, and at 4096 mariadb-install-db cannot create the
	// system tables, whose keys need 8k pages.)
	NonTransactional bool
	// Basedir is another build of the server (a MariaDB or MySQL binary
	// tarball unpacked, e.g. /opt/mariadb-11.4.5) to start in place of
	// Debian's: its own mariadbd, mariadb-install-db, plugins and
	// messages. Empty: Debian's packages.
	Basedir string
}

// engineName is the target's name without a build: mariadb-aria-nontx.
func (m MariaDB) engineName() string {
	if m.NonTransactional {
		return "mariadb-" + m.Engine + "-nontx"
	}
	return "mariadb-" + m.Engine
}

func (m MariaDB) Name() string {
	if m.Basedir != "" {
		return m.engineName() + "@" + m.Basedir
	}
	return m.engineName()
}

// dirName names the server's directory: no '@' or '/' of a build's path,
// which a socket path in a DSN cannot carry.
func (m MariaDB) dirName() string {
	if m.Basedir != "" {
		return m.engineName() + "-" + filepath.Base(m.Basedir)
	}
	return m.engineName()
}

func (m MariaDB) Dialect() dialect.Dialect {
	d := dialect.Dialect{Flavor: dialect.MySQL, Engine: m.Engine}
	if m.NonTransactional {
		d.EngineOptions = "TRANSACTIONAL=0"
	}
	return d
}
func (m MariaDB) Protocol() proto.Name { return proto.SQL }
func (m MariaDB) Embedded() bool       { return false }
func (m MariaDB) Managed() bool        { return true }

var mariadbPluginDirs = []string{"/usr/lib/mysql/plugin", "/usr/lib/x86_64-linux-gnu/mariadb19/plugin", "/usr/lib/mariadb/plugin"}

// firstFile is the first of paths that is a regular file, or "".
func firstFile(paths ...string) string {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// binaries are the server and its initialiser: the basedir's when the
// target names one, else Debian's.
func (m MariaDB) binaries() (server, installDB string, err error) {
	if m.Basedir == "" {
		return mariadbBinaries()
	}
	server = firstFile(filepath.Join(m.Basedir, "bin", "mariadbd"), filepath.Join(m.Basedir, "bin", "mysqld"), filepath.Join(m.Basedir, "sbin", "mariadbd"))
	if server == "" {
		return "", "", fmt.Errorf("%s has no server program (bin/mariadbd or bin/mysqld): give the directory a MariaDB build was unpacked into (make deps-builds, or scripts/fetch-mariadb-build.sh VERSION DIR, fetches one)", m.Basedir)
	}
	installDB = firstFile(filepath.Join(m.Basedir, "scripts", "mariadb-install-db"), filepath.Join(m.Basedir, "bin", "mariadb-install-db"),
		filepath.Join(m.Basedir, "scripts", "mysql_install_db"), filepath.Join(m.Basedir, "bin", "mysql_install_db"))
	if installDB == "" {
		return "", "", fmt.Errorf("%s has no mariadb-install-db (scripts/ or bin/)", m.Basedir)
	}
	return server, installDB, nil
}

// pluginDir is where the build's engine plugins are.
func (m MariaDB) pluginDir() (string, bool) {
	if m.Basedir == "" {
		return rocksdbPlugin()
	}
	dir := filepath.Join(m.Basedir, "lib", "plugin")
	_, err := os.Stat(filepath.Join(dir, "ha_rocksdb.so"))
	return dir, err == nil
}

func mariadbBinaries() (server, installDB string, err error) {
	server, err = exec.LookPath("mariadbd")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/mariadbd"); e == nil {
			server, err = "/usr/sbin/mariadbd", nil
		}
	}
	if err != nil {
		return "", "", errors.New("mariadbd not found; fix: apt-get install -y mariadb-server")
	}
	installDB, err = exec.LookPath("mariadb-install-db")
	if err != nil {
		return "", "", errors.New("mariadb-install-db not found; fix: apt-get install -y mariadb-server")
	}
	return server, installDB, nil
}

func rocksdbPlugin() (string, bool) {
	for _, d := range mariadbPluginDirs {
		if _, err := os.Stat(filepath.Join(d, "ha_rocksdb.so")); err == nil {
			return d, true
		}
	}
	return "", false
}

func (m MariaDB) Available() error {
	if _, _, err := m.binaries(); err != nil {
		return err
	}
	if m.Engine == "rocksdb" {
		if dir, ok := m.pluginDir(); !ok && m.Basedir != "" {
			return fmt.Errorf("MyRocks plugin ha_rocksdb.so not found in %s: this build has no MyRocks", dir)
		} else if !ok {
			return errors.New("MyRocks plugin ha_rocksdb.so not found; fix: apt-get install -y mariadb-plugin-rocksdb")
		}
	}
	_, _, err := mallocFor(m.Engine, nil)
	return err
}

// formatSettings are MariaDB settings written into the data directory's
// files when it is made (Aria's page size in aria_log_control, InnoDB's
// page size in its tablespaces).
var formatSettings = map[string]bool{"aria_block_size": true, "innodb_page_size": true}

type mariadbInstance struct {
	managed
	engine   string
	target   MariaDB
	errorLog string
}

func (in *mariadbInstance) Death() string { return in.death(in.errorLog) }

// Start makes a fresh data directory, starts mariadbd on a free loopback
// port and a private socket, and creates a benchmark user with a generated
// password. It never touches the system service or /var/lib/mysql.
func (m MariaDB) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	if err := m.Available(); err != nil {
		return nil, err
	}
	dir, err := makeServerDir(opt, m.dirName())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeServerDir(dir, opt.KeepData)
		}
	}()
	in := &mariadbInstance{managed: managed{dir: dir, keep: opt.KeepData, dataDir: filepath.Join(dir, "data")},
		engine: m.Engine, target: m, errorLog: filepath.Join(dir, "error.log")}
	me, err := user.Current()
	if err != nil {
		return nil, err
	}
	if err := m.installDB(ctx, opt, in.dataDir, me.Username, os.Geteuid(), os.Getegid()); err != nil {
		return nil, err
	}
	if in.applied, err = m.settings(opt); err != nil {
		return nil, err
	}
	malloc, mallocLib, err := mallocFor(m.Engine, opt.Settings)
	if err != nil {
		return nil, err
	}
	in.applied[MallocSetting] = malloc
	args := m.serverArgs(dir, in.dataDir, in.errorLog, me.Username, in.applied)
	if err := in.launch(ctx, opt, args, mallocLib); err != nil {
		return nil, err
	}
	return in, nil
}

// installDB makes the data directory's system tables (mariadb-install-db)
// for the server's user username, whose files belong to uid and gid.
// The first one for given binaries, arguments and owner is kept as a
// template that later starts copy (bootstrapOnce): single servers and
// the clusters' nodes alike.
func (m MariaDB) installDB(ctx context.Context, opt StartOptions, dataDir, username string, uid, gid int) error {
	server, installDB, _ := m.binaries()
	args := m.installArgs(opt, username)
	key := templateKey([]string{server, installDB}, args, uid, gid)
	_, err := bootstrapOnce(ctx, opt, "mariadb-install-db", key, dataDir, func() error {
		return runInstallDB(ctx, opt, installDB, append(slices.Clip(args), "--datadir="+dataDir), dataDir)
	})
	return err
}

// installArgs are mariadb-install-db's arguments but the data directory.
func (m MariaDB) installArgs(opt StartOptions, username string) []string {
	args := []string{"--no-defaults", "--user=" + username,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}
	if m.Basedir != "" {
		args = append(args, "--basedir="+m.Basedir)
	}
	// settings that fix the files' format must be the same when the
	// system tables are made, or the server refuses the directory
	for _, k := range slices.Sorted(maps.Keys(opt.Settings)) {
		if formatSettings[strings.ReplaceAll(k, "-", "_")] {
			args = append(args, fmt.Sprintf("--%s=%s", strings.ReplaceAll(k, "_", "-"), opt.Settings[k]))
		}
	}
	return args
}

func runInstallDB(ctx context.Context, opt StartOptions, installDB string, args []string, dataDir string) error {
	install := func() ([]byte, error) {
		return child.CombinedOutput(exec.CommandContext(ctx, installDB, args...))
	}
	out, err := install()
	if err == nil {
		return nil
	}
	// its bootstrap server has failed once under load with nothing of
	// ours at fault: one more try in a clean directory, said in the log,
	// before the cell fails
	first := errorLines(string(out))
	os.RemoveAll(dataDir)
	if out, err := install(); err != nil {
		return fmt.Errorf("mariadb-install-db failed twice: %v: %s (first: %s)", err, errorLines(string(out)), first)
	}
	logf(opt.Log, "mariadb-install-db failed once (%s) and succeeded on a second try", first)
	return nil
}

// settings are the server settings shootout applies: the memory budget's
// share-out, its own defaults, then the study's settings over them.
func (m MariaDB) settings(opt StartOptions) (map[string]string, error) {
	applied := map[string]string{}
	if opt.MemoryBudget > 0 {
		// The other engines' caches are allocated too (MariaDB's defaults:
		// 128M each for the InnoDB pool, the Aria page cache and the MyISAM
		// key buffer), so they shrink to what the system tables need; else a
		// 256M budget is overrun before the engine under test gets any.
		for _, setting := range []string{"aria_pagecache_buffer_size", "key_buffer_size"} {
			applied[setting] = "8M"
		}
		applied["innodb_buffer_pool_size"] = "32M" // InnoDB's own minimum is about 24M with its chunk size
		sizing, err := SizeMemory(m.Engine, opt.MemoryBudget, opt.Clients)
		if err != nil {
			return nil, err
		}
		logf(opt.Log, "%s", sizing.WithGiven(opt.Settings))
		maps.Copy(applied, sizing.Settings)
	}
	// InnoDB's asynchronous IO through io_uring (MariaDB 10.6 and later)
	// stalled here: on this project's machine (kernel 6.18) a write-heavy
	// run with a buffer pool much smaller than its table stalled in 7 of
	// 20 tries, 5 of them dead, its page writes pending ("Pending writes:
	// flush list 128") until anything interrupted the server's wait for
	// their completion (a debugger attaching ended it at once), while with
	// InnoDB's own IO threads it never did in 10 and ran as fast
	// (docs/bench-log.md#2026-11-27--innodbs-io_uring-stall-and-a-client-on-libmariadb). MariaDB turns io_uring off itself on the kernels where
	// it knew of such a hang (MDEV-26674); a study's settings can turn it
	// back on.
	applied["innodb_use_native_aio"] = "OFF"
	if m.Engine == "rocksdb" {
		// MariaDB ships MyRocks with index keys cut at 767 bytes, where
		// InnoDB takes 3072: a Rails schema's utf8mb4 VARCHAR(255) primary
		// keys (schema_migrations, ar_internal_metadata) are refused, and
		// anyone loading one into MyRocks turns this on. It only moves the
		// limit: keys that fit under 767 bytes are stored as before.
		applied["rocksdb_large_prefix"] = "ON"
	}
	maps.Copy(applied, opt.Settings)
	return applied, nil
}

// serverArgs is mariadbd's command line but for the port.
func (m MariaDB) serverArgs(dir, dataDir, errorLog, username string, applied map[string]string) []string {
	args := []string{"--no-defaults", "--datadir=" + dataDir, "--socket=" + filepath.Join(dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--log-error=" + errorLog,
		"--bind-address=127.0.0.1", "--skip-name-resolve", "--user=" + username,
		"--default-storage-engine=" + m.Engine, "--max-connections=1000", "--local-infile=1"}
	if m.Basedir != "" {
		args = append(args, "--basedir="+m.Basedir, "--plugin-dir="+filepath.Join(m.Basedir, "lib", "plugin"))
		if dir := filepath.Join(m.Basedir, "share"); firstFile(filepath.Join(dir, "english", "errmsg.sys")) != "" {
			args = append(args, "--lc-messages-dir="+dir)
		}
	}
	if m.Engine == "rocksdb" {
		pluginDir, _ := m.pluginDir()
		args = append(args, "--plugin-dir="+pluginDir, "--plugin-load-add=ha_rocksdb.so")
	}
	for _, k := range slices.Sorted(maps.Keys(applied)) {
		if k == MallocSetting {
			continue // shootout's to apply, not the server's
		}
		args = append(args, fmt.Sprintf("--%s=%s", strings.ReplaceAll(k, "_", "-"), applied[k]))
	}
	return args
}

// launch starts mariadbd on a free port and creates the benchmark user,
// trying another port when another program took the one probed.
func (in *mariadbInstance) launch(ctx context.Context, opt StartOptions, args []string, mallocLib string) error {
	server, _, _ := in.target.binaries()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("find a free port: %w", err)
		}
		cmd := ServerCmd(nil, server, append(args, fmt.Sprintf("--port=%d", port))...)
		if mallocLib != "" {
			cmd.Env = append(os.Environ(), "LD_PRELOAD="+mallocLib)
		}
		if opt.Wrap != nil {
			if err := opt.Wrap(cmd); err != nil {
				return err
			}
		}
		in.proc, err = StartProcess(cmd)
		if err != nil {
			return fmt.Errorf("start mariadbd: %w", err)
		}
		logf(opt.Log, "started %s (pid %d, 127.0.0.1:%d, data %s)", in.target.Name(), in.proc.PID(), port, in.dataDir)
		lastErr = in.waitAndCreateUser(ctx, in.dir, port)
		if lastErr == nil {
			in.applied["malloc_lib_mapped"] = mappedAllocator(in.proc.PID())
			if lastErr = checkMapped(in.applied[MallocSetting], in.applied["malloc_lib_mapped"]); lastErr == nil {
				return nil
			}
		}
		in.proc.Stop(syscall.SIGKILL, 5*time.Second)
		// Another program may take the port between our probe and the
		// server's bind: try another port, but fail on anything else.
		if !strings.Contains(tail(in.errorLog, 20), "Address already in use") {
			break
		}
	}
	return lastErr
}

func (in *mariadbInstance) waitAndCreateUser(ctx context.Context, dir string, port int) error {
	rootCfg := mysql.NewConfig()
	rootCfg.User = "root"
	rootCfg.Net = "unix"
	rootCfg.Addr = filepath.Join(dir, "mysqld.sock")
	root, err := sql.Open("mysql", rootCfg.FormatDSN())
	if err != nil {
		return err
	}
	defer root.Close()
	if err := in.proc.waitReady(ctx, root.PingContext, "mariadbd", in.errorLog); err != nil {
		return err
	}
	if in.engine == "rocksdb" {
		var n int
		if err := root.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.ENGINES WHERE ENGINE='ROCKSDB' AND SUPPORT IN ('YES','DEFAULT')").Scan(&n); err != nil || n == 0 {
			return fmt.Errorf("mariadbd started but the ROCKSDB engine is not available (%v); log: %s", err, tail(in.errorLog, 8))
		}
	}
	pw := password()
	for _, q := range []string{
		"CREATE USER 'shootout'@'127.0.0.1' IDENTIFIED BY '" + pw + "'",
		"GRANT ALL ON *.* TO 'shootout'@'127.0.0.1' WITH GRANT OPTION",
		"CREATE DATABASE sbtest",
	} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("set up benchmark user: %w", err)
		}
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "shootout", pw, "tcp", fmt.Sprintf("127.0.0.1:%d", port), "sbtest"
	// a query with arguments goes out as one text statement, as Rails'
	// mysql2 adapter sends it, instead of a prepare, execute and close;
	// prepared *sql.Stmt still use the binary protocol
	cfg.InterpolateParams = true
	in.ep = proto.TCP(proto.SQL, "127.0.0.1", port)
	in.ep.User, in.ep.Password, in.ep.Database, in.ep.Dialect = "shootout", pw, "sbtest", in.Dialect()
	in.db, err = sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	in.db.SetMaxIdleConns(dialect.IdleConns)
	return in.db.PingContext(ctx)
}

func (in *mariadbInstance) Dialect() dialect.Dialect {
	return in.target.Dialect()
}

func (in *mariadbInstance) Version(ctx context.Context) (string, error) {
	var v string
	err := in.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v)
	return v, err
}

func (in *mariadbInstance) Settings(ctx context.Context) (map[string]string, error) {
	return querySettings(ctx, in.db, "SHOW GLOBAL VARIABLES")
}

// Settle flushes what the engine holds in memory so the data directory
// shows the space the data will keep: MyRocks memtables flushed and
// compacted, InnoDB dirty pages written.
func (in *mariadbInstance) Settle(ctx context.Context) (string, error) {
	wb, err := in.WriteBack(ctx, settleWriteBackLimit)
	var note string
	if wb.Left != nil {
		note = fmt.Sprintf("%s were still unwritten after %s", wb.Left.What, settleWriteBackLimit)
	}
	if err != nil {
		return note, err
	}
	qs := []string{"FLUSH TABLES"}
	if in.engine == "rocksdb" {
		qs = []string{"SET GLOBAL rocksdb_compact_cf='default'"}
	}
	return note, in.execAll(ctx, qs...)
}

// WriteBack writes what the engine holds dirty in memory: InnoDB's dirty
// pages, at most for limit; MyRocks' memtables and the key caches of Aria
// and MyISAM to the end.
func (in *mariadbInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	switch in.engine {
	case "innodb":
		left, err := in.flushDirtyPages(ctx, limit)
		return WriteBackResult{Left: left}, err
	case "rocksdb":
		// the flush is synchronous: it returns once the memtables are files
		return WriteBackResult{}, in.execAll(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now=1")
	}
	return WriteBackResult{}, in.execAll(ctx, "FLUSH TABLES")
}

// settleWriteBackLimit bounds the wait for the load's dirty pages: past
// it the cell goes on, with a note of what was left unwritten.
const settleWriteBackLimit = 60 * time.Second

// settledDirtyPages is what flushDirtyPages leaves: the page cleaner
// works in passes a second apart, and InnoDB's background threads keep
// re-dirtying a few pages, so the last pages took a pass each (after a
// 5,000-row load 110, then 21, then 10; 610, 40, 5 after a 20,000-row
// insert by hand): waiting for none cost every InnoDB cell one to two
// seconds at each of its three write-backs. 16 pages, 256 KiB at the
// default page size, are left for whatever writes next.
const settledDirtyPages = 16

// flushDirtyPages asks InnoDB's page cleaner to write every dirty page at
// full speed and waits for it, at most limit, and says what it left;
// then it puts the cleaner's settings back, because the rest of the cell
// must run as configured: a failure to restore them fails the cell.
func (in *mariadbInstance) flushDirtyPages(ctx context.Context, limit time.Duration) (left *Unwritten, err error) {
	var pct, capacity, capacityMax string
	if err := in.db.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct, @@GLOBAL.innodb_io_capacity, @@GLOBAL.innodb_io_capacity_max").
		Scan(&pct, &capacity, &capacityMax); err != nil {
		return nil, err
	}
	defer func() {
		restore := in.execAll(context.WithoutCancel(ctx), "SET GLOBAL innodb_max_dirty_pages_pct="+pct,
			"SET GLOBAL innodb_io_capacity="+capacity, "SET GLOBAL innodb_io_capacity_max="+capacityMax)
		if restore != nil && err == nil {
			err = fmt.Errorf("put InnoDB's page cleaner settings back after writing dirty pages: %w", restore)
		}
	}()
	// the page cleaner writes io_capacity pages a second when idle: 200 by
	// default, seconds for a freshly loaded small set
	if err := in.execAll(ctx, "SET GLOBAL innodb_io_capacity_max=20000", "SET GLOBAL innodb_io_capacity=20000",
		"SET GLOBAL innodb_max_dirty_pages_pct=0"); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(limit)
	for {
		dirty, err := querySettings(ctx, in.db, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_dirty', 'Innodb_buffer_pool_bytes_dirty')")
		if err != nil {
			return nil, fmt.Errorf("read InnoDB's dirty pages: %w", err)
		}
		pages, errP := strconv.ParseInt(dirty["Innodb_buffer_pool_pages_dirty"], 10, 64)
		bytes, errB := strconv.ParseInt(dirty["Innodb_buffer_pool_bytes_dirty"], 10, 64)
		if errP != nil {
			return nil, fmt.Errorf("read InnoDB's dirty pages: Innodb_buffer_pool_pages_dirty is %q", dirty["Innodb_buffer_pool_pages_dirty"])
		}
		if pages <= settledDirtyPages {
			return nil, nil
		}
		if time.Now().After(deadline) {
			if errB != nil {
				bytes = -1
			}
			return &Unwritten{Bytes: bytes, What: fmt.Sprintf("%d InnoDB dirty pages", pages)}, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (in *mariadbInstance) Stop(ctx context.Context) error {
	if !in.keep && in.db != nil {
		// the directory is removed next: writing dirty pages and merging
		// the change buffer first would only make each cell seconds longer
		// bounded: a server that stopped answering is stopped all the same
		quick, cancel := context.WithTimeout(ctx, 10*time.Second)
		in.db.ExecContext(quick, "SET GLOBAL innodb_fast_shutdown=2")
		cancel()
	}
	return in.shutdown(syscall.SIGTERM)
}

func lastLines(s string, n int) string { return strings.ReplaceAll(tailString(s, n), "\n", " | ") }

func tailString(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// errorLines picks a tool's error lines out of its output, which for
// mariadb-install-db ends in several lines of boilerplate; the last lines
// when none says ERROR.
func errorLines(out string) string {
	var errs []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "Error") {
			errs = append(errs, strings.TrimSpace(l))
		}
	}
	if len(errs) == 0 {
		return lastLines(out, 5)
	}
	if len(errs) > 5 {
		errs = errs[len(errs)-5:]
	}
	return strings.Join(errs, " | ")
}
