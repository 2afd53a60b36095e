// Package app runs a real application server in the loop: Debian's
// Redmine 5.0.4 under puma, against a target shootout started, so a cell
// can time what the seeds timed — the HTTP request, Ruby included — beside
// the SQL-level run of the same work.
package app

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shootout/internal/child"
	"shootout/internal/dialect"
	"shootout/internal/metrics"
	"shootout/internal/proto"
	"shootout/internal/target"
)

const (
	redmineRoot = "/usr/share/redmine"
	// instancesDir is Debian's multi-tenancy directory: Redmine reads an
	// instance's config, logs and files from instancesDir/REDMINE_INSTANCE
	instancesDir = "/var/lib/redmine"
	// InstancePrefix names the instances shootout makes, so a sweep finds
	// the ones a killed run left behind and nothing else
	InstancePrefix = "shootout-"
)

// InstallHint is what `shootout targets` prints when Redmine is missing.
const InstallHint = "echo 'redmine redmine/dbconfig-install boolean false' | debconf-set-selections && " +
	"apt-get install -y --no-install-recommends redmine ruby-mysql2 ruby-pg ruby-sqlite3 puma"

// Redmine's share of a cell's memory cap, which covers it and the database
// server as the seeds' one VM did: the proportional set size (PSS, what
// the cgroup is charged once for pages the workers share) measured here
// while the small set's cycles ran (Redmine 5.0.4, Ruby 3.1, puma 5):
// 355 MiB with two workers, 703 MiB with four. Each worker loads Rails
// and Redmine on its own; the master keeps little of its own.
const (
	redmineMaster = 32 << 20
	redmineWorker = 176 << 20
)

// RedmineMemory is what Redmine with workers puma workers takes of a cell's
// memory cap.
func RedmineMemory(workers int) int64 {
	return redmineMaster + int64(max(workers, 1))*redmineWorker
}

// adapterPackage is the Debian package of Rails' adapter per flavor.
var adapterPackage = map[dialect.Flavor]string{dialect.MySQL: "ruby-mysql2", dialect.Postgres: "ruby-pg", dialect.SQLite: "ruby-sqlite3"}

// RedmineAvailable says why Redmine cannot run against flavor here, with
// the install line, or nil.
func RedmineAvailable(flavor dialect.Flavor) error {
	var missing []string
	for _, p := range []string{"redmine", "puma", adapterPackage[flavor]} {
		out, err := child.Output(exec.Command("dpkg-query", "-W", "-f=${Status}", p))
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "installed") {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("Redmine in the loop needs %s; fix: %s", strings.Join(missing, ", "), InstallHint)
	}
	return nil
}

// RedmineOptions are what a cell asks of its Redmine.
type RedmineOptions struct {
	WorkDir string // a private directory for the Gemfile and puma's log
	// Workers is puma's worker processes: the seed's "parallel Redmine
	// processes", each serving one request at a time, as Passenger did
	Workers int
	Flavor  dialect.Flavor
	Conn    proto.Endpoint        // the database's; its password goes to database.yml only
	Wrap    func(*exec.Cmd) error // into the cell's cgroups
}

// Redmine is one private Redmine instance and its puma server.
type Redmine struct {
	opt      RedmineOptions
	instance string // REDMINE_INSTANCE
	dir      string // instancesDir/instance
	env      []string
	proc     *target.Process
	URL      string
	Version  string
}

// NewRedmine makes the instance: its directory under /var/lib/redmine
// (database.yml readable by root only: it holds the target's password),
// a private Gemfile that adds puma to Redmine's.
func NewRedmine(opt RedmineOptions) (_ *Redmine, err error) {
	if err := RedmineAvailable(opt.Flavor); err != nil {
		return nil, err
	}
	var b [6]byte
	rand.Read(b[:])
	r := &Redmine{opt: opt, instance: InstancePrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])}
	r.dir = filepath.Join(instancesDir, r.instance)
	defer func() {
		if err != nil {
			os.RemoveAll(r.dir)
		}
	}()
	for _, d := range []string{"config", "log", "tmp/cache", "files", "public"} {
		if err := os.MkdirAll(filepath.Join(r.dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	yml, err := databaseYAML(opt.Flavor, opt.Conn)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.dir, "config", "database.yml"), []byte(yml), 0o600); err != nil {
		return nil, err
	}
	var secret [48]byte
	rand.Read(secret[:])
	if err := os.WriteFile(filepath.Join(r.dir, "config", "secret_key.txt"), []byte(hex.EncodeToString(secret[:])), 0o600); err != nil {
		return nil, err
	}
	gemfile := filepath.Join(opt.WorkDir, "Gemfile")
	if err := os.WriteFile(gemfile, []byte("eval_gemfile '"+redmineRoot+"/Gemfile'\ngem 'puma'\n"), 0o644); err != nil {
		return nil, err
	}
	r.env = append(os.Environ(), "BUNDLE_GEMFILE="+gemfile, "REDMINE_INSTANCE="+r.instance, "RAILS_ENV=production")
	return r, nil
}

func databaseYAML(flavor dialect.Flavor, c proto.Endpoint) (string, error) {
	q := strconv.Quote
	host, port := c.HostPort()
	switch flavor {
	case dialect.MySQL:
		return fmt.Sprintf("production:\n  adapter: mysql2\n  host: %s\n  port: %d\n  username: %s\n  password: %s\n  database: %s\n  encoding: utf8mb4\n  pool: 64\n",
			q(host), port, q(c.User), q(c.Password), q(c.Database)), nil
	case dialect.Postgres:
		return fmt.Sprintf("production:\n  adapter: postgresql\n  host: %s\n  port: %d\n  username: %s\n  password: %s\n  database: %s\n  encoding: utf8\n  pool: 64\n",
			q(host), port, q(c.User), q(c.Password), q(c.Database)), nil
	case dialect.SQLite:
		return fmt.Sprintf("production:\n  adapter: sqlite3\n  database: %s\n  timeout: 10000\n  pool: 64\n", q(c.Address)), nil
	}
	return "", fmt.Errorf("Redmine cannot run against a %s target", flavor)
}

// rake runs a Rails task in the instance, its output in the work
// directory; an error names the task and ends with the output's last lines.
func (r *Redmine) rake(ctx context.Context, args ...string) error {
	logPath := filepath.Join(r.opt.WorkDir, "rake.log")
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, "bundle", append([]string{"exec", "rake"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = redmineRoot, r.env, out, out
	if err := child.Run(cmd); err != nil {
		return fmt.Errorf("Redmine's rake %s: %v: %s", strings.Join(args, " "), err, rakeFailure(logPath))
	}
	return nil
}

// rakeFailure is what a failed rake said: Ruby writes its error to
// stderr at once and its buffered stdout at exit, so the error sits above
// the migrations' last lines and a tail alone misses it.
func rakeFailure(logPath string) string {
	tail := target.LogTail(logPath, 6)
	data, err := os.ReadFile(logPath)
	if err != nil {
		return tail
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "rake aborted!") {
			return strings.Join(lines[i:min(i+3, len(lines))], " | ") + "; the log ends: " + tail
		}
	}
	return tail
}

// Migrate makes Redmine's schema in the target's database with Redmine's
// own migrations (without its default data: the dataset brings it).
func (r *Redmine) Migrate(ctx context.Context) error {
	// bounded as every step of a cell is: here they take 20-40 s; a
	// database that stops answering would otherwise hold rake for ever
	bounded, cancel := context.WithTimeout(ctx, migrateLimit)
	defer cancel()
	err := r.rake(bounded, "db:migrate")
	if err != nil && ctx.Err() == nil && bounded.Err() != nil {
		return fmt.Errorf("Redmine's migrations did not finish within %v (rake was stopped): %s", migrateLimit, target.LogTail(filepath.Join(r.opt.WorkDir, "rake.log"), 6))
	}
	return err
}

// migrateLimit bounds Redmine's migrations.
const migrateLimit = 10 * time.Minute

// Start serves the instance with puma on a free loopback port and waits
// until it answers. Another program may take the port between the probe
// and puma's bind: then puma says so and exits, and another port is
// tried, as the targets do.
func (r *Redmine) Start(ctx context.Context) error {
	workers := max(r.opt.Workers, 1)
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("find a free port for puma: %w", err)
		}
		err = r.startOn(ctx, port, workers)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			return err
		}
	}
	if v, err := child.Output(exec.Command("dpkg-query", "-W", "-f=${Version}", "redmine")); err == nil {
		r.Version = "redmine " + strings.TrimSpace(string(v)) + ", puma " + strconv.Itoa(workers) + " workers"
	}
	return nil
}

// errPortTaken is puma's bind failing on a port taken since the probe.
var errPortTaken = errors.New("the port was taken before puma could bind it")

// startOn starts puma on port and waits until it has bound the port
// itself (its log says so: an answer from the port alone could come from
// whoever took it) and answers there.
func (r *Redmine) startOn(ctx context.Context, port, workers int) error {
	logPath := filepath.Join(r.opt.WorkDir, "puma.log")
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	// this try's lines start here: an earlier try's log stays above them
	from, err := out.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	// a server's process: Ctrl-C in the terminal reaches shootout, which
	// stops puma itself; a SIGKILLed shootout leaves puma a SIGTERM, on
	// which its master stops its workers
	cmd := target.ServerCmd(nil, "bundle", "exec", "puma", "-b", fmt.Sprintf("tcp://127.0.0.1:%d", port),
		"-w", strconv.Itoa(workers), "-t", "1:1", "-e", "production", "config.ru")
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = redmineRoot, r.env, out, out
	if r.opt.Wrap != nil {
		if err := r.opt.Wrap(cmd); err != nil {
			return err
		}
	}
	proc, err := target.StartProcess(cmd)
	if err != nil {
		return fmt.Errorf("start puma: %w", err)
	}
	r.proc = proc
	r.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	err = proc.WaitReady(ctx, r.answers(logPath, from), "puma", logPath, startLimit)
	if err == nil {
		return nil
	}
	if !proc.Running() && strings.Contains(logSince(logPath, from), "Address already in use") {
		r.proc = nil
		return fmt.Errorf("puma on 127.0.0.1:%d: %w", port, errPortTaken)
	}
	r.Stop()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("Redmine on %s: %w", r.URL, err)
}

// startLimit bounds puma's start: Rails and Redmine load in 10-20 s here.
const startLimit = 3 * time.Minute

// answers is puma's readiness: its log (from offset on) says it listens
// on r.URL, and an HTTP request there gets an answer that is not a 5xx.
func (r *Redmine) answers(logPath string, from int64) func(context.Context) error {
	listening := "Listening on " + r.URL
	return func(ctx context.Context) error {
		if !strings.Contains(logSince(logPath, from), listening) {
			return errors.New("puma's log does not say it listens yet")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+"/", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("%s/ answered %s", r.URL, resp.Status)
		}
		return nil
	}
}

// logSince is what a log holds from offset on ("" if it cannot be read).
func logSince(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

// LogErrors are the exceptions Redmine logged (its production.log), each
// with how often: what a 500 answer's body does not say.
func (r *Redmine) LogErrors() []string {
	f, err := os.Open(filepath.Join(r.dir, "log", "production.log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	counts := map[string]int{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		// Rails logs an exception as "Class (message):" after the request
		if i := strings.Index(line, "] "); i >= 0 {
			line = line[i+2:]
		}
		if !strings.HasSuffix(line, "):") || !strings.Contains(line, " (") {
			continue
		}
		if counts[line] == 0 {
			order = append(order, line)
		}
		counts[line]++
	}
	out := make([]string, len(order))
	for i, l := range order {
		out[i] = fmt.Sprintf("%d× %s", counts[l], strings.TrimSuffix(l, ":"))
	}
	return out
}

// Dir is the instance's directory (it holds the target's password).
func (r *Redmine) Dir() string { return r.dir }

// PIDs are puma's master and its workers, for the cell's CPU and memory
// figures: every descendant by its parent in /proc, as WordPress's, since
// a child forked by another thread than the master's first is not in
// that thread's children file.
func (r *Redmine) PIDs() []int {
	if r.proc == nil {
		return nil
	}
	return append([]int{r.proc.PID()}, metrics.Descendants(r.proc.PID())...)
}

// Stop ends puma (SIGTERM to the master, which stops its workers; after
// 30 s SIGKILL to its process group, workers included) and removes the
// instance.
func (r *Redmine) Stop() error {
	var err error
	if r.proc != nil {
		if stopErr := r.proc.Stop(syscall.SIGTERM, 30*time.Second); stopErr != nil {
			err = fmt.Errorf("puma %w", stopErr)
		}
		r.proc = nil
	}
	if rmErr := os.RemoveAll(r.dir); rmErr != nil && err == nil {
		err = rmErr
	}
	return err
}

// Sweep removes the Redmine instances of shootout runs that are gone (a
// killed shootout whose pid no longer runs); their puma processes died
// with the run or were ended by the server sweep.
func Sweep() []string {
	entries, _ := os.ReadDir(instancesDir)
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), InstancePrefix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		if os.RemoveAll(filepath.Join(instancesDir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// freePort is the targets' loopback port probe; a test replaces it.
var freePort = target.FreeLoopbackPort
