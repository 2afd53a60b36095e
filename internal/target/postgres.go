package target

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"shootout/internal/child"
	"shootout/internal/dialect"
	"shootout/internal/metrics"
	"shootout/internal/proto"
)

// Postgres is a private PostgreSQL cluster made with Debian's initdb.
type Postgres struct{}

func (Postgres) Name() string             { return "postgres" }
func (Postgres) Dialect() dialect.Dialect { return dialect.Dialect{Flavor: dialect.Postgres} }
func (Postgres) Protocol() proto.Name     { return proto.SQL }
func (Postgres) Embedded() bool           { return false }
func (Postgres) Managed() bool            { return true }

// postgresBinDir finds the newest /usr/lib/postgresql/N/bin with a server,
// or the directory SHOOTOUT_POSTGRES_BIN names (another build or version).
func postgresBinDir() (string, error) {
	if dir := os.Getenv("SHOOTOUT_POSTGRES_BIN"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err != nil {
			return "", fmt.Errorf("SHOOTOUT_POSTGRES_BIN=%s has no postgres binary; fix: point it at PostgreSQL's bin directory or unset it", dir)
		}
		return dir, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(matches) == 0 {
		if p, err := exec.LookPath("postgres"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", errors.New("PostgreSQL server not found under /usr/lib/postgresql/*/bin; fix: apt-get install -y postgresql")
	}
	sort.Slice(matches, func(i, j int) bool { return pgMajor(matches[i]) > pgMajor(matches[j]) })
	return filepath.Dir(matches[0]), nil
}

func pgMajor(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// postgresCredential: PostgreSQL refuses to run as root, so as root we run
// it as the postgres user that Debian's package creates.
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, errors.New("PostgreSQL cannot run as root and there is no postgres user; fix: apt-get install -y postgresql (it creates one)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (Postgres) Available() error {
	if _, err := postgresBinDir(); err != nil {
		return err
	}
	_, err := postgresCredential()
	return err
}

type postgresInstance struct {
	managed
	logFile string
}

func (in *postgresInstance) Death() string { return in.death(in.logFile) }

// Start runs initdb into a fresh directory and starts postgres on a free
// loopback port with a generated password (scram-sha-256).
func (p Postgres) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	bin, err := postgresBinDir()
	if err != nil {
		return nil, err
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	dir, err := postgresDir(opt, cred)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeServerDir(dir, opt.KeepData)
		}
	}()
	in := &postgresInstance{managed: managed{dir: dir, keep: opt.KeepData, dataDir: filepath.Join(dir, "data")},
		logFile: filepath.Join(dir, "postgres.log")}
	pw := password()
	if err := in.initdb(ctx, opt, bin, cred, pw); err != nil {
		return nil, err
	}
	in.applied = map[string]string{"max_connections": "1100", "listen_addresses": "127.0.0.1", "unix_socket_directories": dir}
	if opt.MemoryBudget > 0 {
		sizing, err := SizeMemory("postgres", opt.MemoryBudget, opt.Clients)
		if err != nil {
			return nil, err
		}
		logf(opt.Log, "%s", sizing.WithGiven(opt.Settings))
		maps.Copy(in.applied, sizing.Settings)
	}
	maps.Copy(in.applied, opt.Settings)
	if err := in.launch(ctx, opt, bin, cred, pw); err != nil {
		return nil, err
	}
	return in, nil
}

// postgresDir makes the server's directory, where the postgres user (cred,
// when shootout runs as root) can reach it.
func postgresDir(opt StartOptions, cred *syscall.Credential) (string, error) {
	dir, err := makeServerDir(opt, "postgres")
	if err != nil || cred == nil {
		return dir, err
	}
	why := accessibleTo(dir, cred)
	if why == nil {
		return dir, nil
	}
	// --out lies under a directory the postgres user cannot enter (a
	// private home, mktemp -d): rather than loosen the user's permissions,
	// the server's directory goes where it can
	os.Remove(dir)
	work, err := reachableWorkDir()
	if err != nil {
		return "", fmt.Errorf("%v, and %w", why, err)
	}
	if dir, err = makeServerDir(StartOptions{WorkDir: work}, "postgres"); err != nil {
		return "", err
	}
	logf(opt.Log, "%v: postgres's directory is %s instead", why, dir)
	if a, errA := metrics.DeviceOf(opt.WorkDir); errA == nil {
		if b, errB := metrics.DeviceOf(dir); errB == nil && a.Dev != b.Dev {
			logf(opt.Log, "note: %s is on another disk (%s) than --out (%s): caps and bytes written apply to that disk", dir, b.Name, a.Name)
		}
	}
	return dir, nil
}

// initdb makes the data directory, with the benchmark user's password pw.
func (in *postgresInstance) initdb(ctx context.Context, opt StartOptions, bin string, cred *syscall.Credential, pw string) error {
	if cred != nil {
		if err := os.Chown(in.dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	return initCluster(ctx, opt, bin, cred, in.dir, in.dataDir, pw)
}

// initCluster makes a PostgreSQL data directory whose benchmark user has
// the password pw, from the template of an earlier initdb of the same
// binaries and owner when there is one (a single server's start and a
// postgres-sync primary's share it). The password passes through a file
// in dir, removed at once, never a command line.
func initCluster(ctx context.Context, opt StartOptions, bin string, cred *syscall.Credential, dir, dataDir, pw string) error {
	pwFile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		return err
	}
	if cred != nil {
		if err := os.Chown(pwFile, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	defer os.Remove(pwFile)
	args := []string{"-U", "shootout", "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"}
	uid, gid := ownerOf(cred)
	key := templateKey([]string{filepath.Join(bin, "initdb"), filepath.Join(bin, "postgres")}, args, uid, gid)
	fresh := func() error {
		initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), append(slices.Clip(args), "-D", dataDir, "--pwfile="+pwFile)...)
		initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := child.CombinedOutput(initdb); err != nil {
			return fmt.Errorf("initdb: %v: %s", err, lastLines(string(out), 5))
		}
		return nil
	}
	copied, err := bootstrapOnce(ctx, opt, "initdb", key, dataDir, fresh)
	if err != nil || !copied {
		return err
	}
	if err := setPassword(ctx, bin, cred, dataDir, pw); err != nil {
		// the copy holds another start's password: bootstrap afresh
		logf(opt.Log, "initdb: template not used (%v); bootstrapping", err)
		os.RemoveAll(dataDir)
		return fresh()
	}
	return nil
}

// setPassword gives a template's copy this start's password, in
// single-user mode (no server, no port). The statement is never logged
// and its output never shown: it holds the password.
func setPassword(ctx context.Context, bin string, cred *syscall.Credential, dataDir, pw string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "postgres"), "--single", "-D", dataDir,
		"-c", "fsync=off", "-c", "log_min_error_statement=panic", "-c", "log_statement=none", "postgres")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Stdin = strings.NewReader("ALTER ROLE shootout PASSWORD '" + pw + "'\n")
	out, err := child.CombinedOutput(cmd)
	if err == nil && strings.Contains(string(out), "ERROR") {
		err = errors.New("ALTER ROLE failed")
	}
	if err != nil {
		return fmt.Errorf("set the password in single-user mode: %v", err)
	}
	return nil
}

// launch starts postgres on a free port with the applied settings and
// creates the benchmark database, trying another port when another
// program took the one probed.
func (in *postgresInstance) launch(ctx context.Context, opt StartOptions, bin string, cred *syscall.Credential, pw string) error {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("find a free port: %w", err)
		}
		args := []string{"-D", in.dataDir, "-c", "port=" + strconv.Itoa(port)}
		for _, k := range slices.Sorted(maps.Keys(in.applied)) {
			args = append(args, "-c", k+"="+in.applied[k])
		}
		cmd := ServerCmd(cred, filepath.Join(bin, "postgres"), args...)
		if opt.Wrap != nil {
			if err := opt.Wrap(cmd); err != nil {
				return err
			}
		}
		logOut, err := os.OpenFile(in.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		cmd.Stdout, cmd.Stderr = logOut, logOut
		in.proc, err = StartProcess(cmd)
		logOut.Close()
		if err != nil {
			return fmt.Errorf("start postgres: %w", err)
		}
		logf(opt.Log, "started postgres (pid %d, 127.0.0.1:%d, data %s)", in.proc.PID(), port, in.dataDir)
		lastErr = in.waitAndCreateDB(ctx, port, pw)
		if lastErr == nil {
			return nil
		}
		in.proc.Stop(syscall.SIGKILL, 5*time.Second)
		if !strings.Contains(tail(in.logFile, 20), "already in use") {
			break
		}
	}
	return lastErr
}

// ReachableWorkDir holds the directories of servers that run as another
// user when --out is out of their reach. Others may traverse it but not
// list it (0711); each server's own directory inside is 0700 and its own.
var ReachableWorkDir = "/var/tmp/shootout-servers"

func reachableWorkDir() (string, error) {
	if err := os.Mkdir(ReachableWorkDir, 0o711); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	// /var/tmp is everyone's: only a real directory of ours will do, never
	// a symlink or one another user made, which chmod would follow or
	// which would hold the server's data at someone else's mercy
	st, err := os.Lstat(ReachableWorkDir)
	if err != nil {
		return "", err
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || st.Mode()&fs.ModeSymlink != 0 || sys == nil || int(sys.Uid) != os.Geteuid() {
		return "", fmt.Errorf("%s is not a directory owned by uid %d: remove it or point --out at a directory the postgres user can enter", ReachableWorkDir, os.Geteuid())
	}
	// an older run or umask may have left another mode
	return ReachableWorkDir, os.Chmod(ReachableWorkDir, 0o711)
}

// accessibleTo says why the server's user cannot reach dir, if it cannot:
// a work dir under a private home directory is the common case.
func accessibleTo(dir string, cred *syscall.Credential) error {
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		sys := st.Sys().(*syscall.Stat_t)
		if st.Mode().Perm()&0o001 == 0 && sys.Uid != cred.Uid {
			return fmt.Errorf("postgres (uid %d) cannot enter %s (mode %v)", cred.Uid, d, st.Mode().Perm())
		}
	}
	return nil
}

func (in *postgresInstance) waitAndCreateDB(ctx context.Context, port int, pw string) error {
	dsn := func(db string) string {
		return fmt.Sprintf("host=127.0.0.1 port=%d user=shootout password=%s dbname=%s sslmode=disable", port, pw, db)
	}
	admin, err := openSQL("pgx", dsn("postgres"))
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := in.proc.waitReady(ctx, admin.PingContext, "postgres", in.logFile); err != nil {
		return err
	}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE sbtest"); err != nil {
		return err
	}
	in.ep = proto.TCP(proto.SQL, "127.0.0.1", port)
	in.ep.User, in.ep.Password, in.ep.Database, in.ep.Dialect = "shootout", pw, "sbtest", in.Dialect()
	in.db, err = openSQL("pgx", dsn("sbtest"))
	if err != nil {
		return err
	}
	in.db.SetMaxIdleConns(dialect.IdleConns)
	return in.db.PingContext(ctx)
}

func (in *postgresInstance) Dialect() dialect.Dialect {
	return dialect.Dialect{Flavor: dialect.Postgres}
}

func (in *postgresInstance) Version(ctx context.Context) (string, error) {
	var v string
	err := in.db.QueryRowContext(ctx, "SHOW server_version").Scan(&v)
	return v, err
}

func (in *postgresInstance) Settings(ctx context.Context) (map[string]string, error) {
	return querySettings(ctx, in.db, "SELECT name, setting FROM pg_settings")
}

func (in *postgresInstance) Settle(ctx context.Context) (string, error) {
	return "", in.execAll(ctx, "VACUUM", "CHECKPOINT")
}

// WriteBack writes the shared buffers the window dirtied: a checkpoint,
// to the end, since PostgreSQL cannot say how much of one is left.
func (in *postgresInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	return WriteBackResult{}, in.execAll(ctx, "CHECKPOINT")
}

// Stop asks for a fast shutdown (SIGINT), or an immediate one (SIGQUIT: no
// checkpoint) when the data directory is removed next anyway.
func (in *postgresInstance) Stop(ctx context.Context) error {
	if !in.keep {
		return in.shutdown(syscall.SIGQUIT)
	}
	return in.shutdown(syscall.SIGINT)
}

// pgBytes spells a size in the units PostgreSQL settings accept.
func pgBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%dkB", n>>10)
	}
	return fmt.Sprintf("%dMB", n>>20)
}
