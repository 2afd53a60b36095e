package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"shootout/internal/app"
	"shootout/internal/capture"
	"shootout/internal/dialect"
	"shootout/internal/limits"
	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/run"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

func TestMain(m *testing.M) {
	limits.MaybeExec() // a replay's servers start through this test binary
	os.Exit(m.Run())
}

// proxy is shootout's capture proxy on a free loopback port in front of
// a server, until stop, which waits for the capture to be ended.
type proxy struct {
	listen, out string
	log         bytes.Buffer
	cancel      context.CancelFunc
	done        chan error
}

func startProxy(t *testing.T, listen, to, out, dump string) *proxy {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &proxy{listen: listen, out: out, cancel: cancel, done: make(chan error, 1)}
	go func() {
		p.done <- capture.Run(ctx, capture.Options{Listen: listen, To: to, Out: out, Dump: dump, Log: &p.log})
	}()
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", listen); err == nil {
			c.Close()
			return p
		}
		if i == 200 {
			cancel()
			t.Fatalf("the proxy does not listen on %s: %s", listen, p.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *proxy) stop(t *testing.T) {
	t.Helper()
	p.cancel()
	if err := <-p.done; err != nil {
		t.Fatalf("proxy: %v\n%s", err, p.log.String())
	}
}

func startTarget(t *testing.T, name string) target.Instance {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	return inst
}

var csrf = regexp.MustCompile(`name="authenticity_token" value="([^"]+)"`)

// browse is a user of Redmine: the home page, the login form, a login as
// the admin the migrations made, the projects and issues, a new project.
func browse(t *testing.T, base string) []string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: time.Minute}
	var said []string
	do := func(method, path string, form url.Values) string {
		var resp *http.Response
		var err error
		if form == nil {
			resp, err = c.Get(base + path)
		} else {
			resp, err = c.PostForm(base+path, form)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		said = append(said, fmt.Sprintf("%s %s: %s", method, path, resp.Status))
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %s: %s", method, path, resp.Status)
		}
		return string(b)
	}
	token := func(page string) string {
		m := csrf.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no authenticity_token in the page: %.300s", page)
		}
		return m[1]
	}
	do("GET", "/", nil)
	login := do("GET", "/login", nil)
	do("POST", "/login", url.Values{"authenticity_token": {token(login)}, "username": {"admin"}, "password": {"admin"}})
	do("GET", "/projects", nil)
	form := do("GET", "/projects/new", nil)
	do("POST", "/projects", url.Values{"authenticity_token": {token(form)}, "project[name]": {"Captured"}, "project[identifier]": {"captured"}})
	do("GET", "/projects/captured", nil)
	do("GET", "/issues", nil)
	return said
}

// TestRedmineCapturedAndReplayed: real Redmine 5 on puma, against a
// private MariaDB and a private PostgreSQL through shootout's capture
// proxy, serves a few requests; each capture replays on another engine
// (InnoDB's on MyRocks, from the dump the proxy took) or server, every
// captured command is sent once and every answer equals the capture's.
func TestRedmineCapturedAndReplayed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Debian's Redmine and real servers")
	}
	for _, tc := range []struct {
		from, to, scheme string
		flavor           dialect.Flavor
	}{
		{"mariadb-innodb", "mariadb-rocksdb", "mysql", dialect.MySQL},
		{"postgres", "postgres", "postgres", dialect.Postgres},
	} {
		t.Run(tc.from, func(t *testing.T) {
			// each its own servers, Redmine and directories; Redmine's
			// migrations take one core, so the two take both side by side
			t.Parallel()
			if err := app.RedmineAvailable(tc.flavor); err != nil {
				if testenv.CI() {
					t.Fatal(err)
				}
				t.Skip(err)
			}
			replayOn(t, captureRedmine(t, tc.from, tc.scheme, tc.flavor), tc.to)
		})
	}
}

// captureRedmine runs Redmine's migrations and a user's requests through
// the proxy. MariaDB's capture starts after the migrations, from the dump
// the proxy takes of their tables; PostgreSQL's holds the migrations too
// (the replay loads no pg_dump), so its replay makes the tables itself.
func captureRedmine(t *testing.T, from, scheme string, flavor dialect.Flavor) string {
	inst := startTarget(t, from)
	ep := inst.Endpoint()
	port, err := target.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	dir := t.TempDir()
	out := filepath.Join(dir, "redmine.capture")
	to := fmt.Sprintf("%s://%s:%s@%s/%s", scheme, ep.User, ep.Password, ep.Address, ep.Database)
	conn := ep
	conn.Address = listen
	rm, err := app.NewRedmine(app.RedmineOptions{WorkDir: testenv.WorkDir(t), Workers: 1, Flavor: flavor, Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	defer rm.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var p *proxy
	if flavor == dialect.MySQL {
		mig := startProxy(t, listen, to, filepath.Join(dir, "migrations.capture"), "")
		if err := rm.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		mig.stop(t)
		p = startProxy(t, listen, to, out, capture.DumpTake)
	} else {
		p = startProxy(t, listen, to, out, "")
		if err := rm.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := rm.Start(ctx); err != nil {
		t.Fatal(err)
	}
	said := browse(t, rm.URL)
	if errs := rm.LogErrors(); len(errs) > 0 {
		t.Errorf("Redmine logged exceptions through the proxy: %q", errs)
	}
	if err := rm.Stop(); err != nil {
		t.Fatal(err)
	}
	p.stop(t)
	t.Logf("Redmine through the proxy: %s; %s", strings.Join(said, ", "), strings.TrimSpace(p.log.String()))
	return out
}

// replayOn replays the capture on a private server of to and checks
// every command was sent once and answered as in the capture.
func replayOn(t *testing.T, file, to string) {
	h, lines, err := capture.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, l := range lines {
		if c := l.Command; c != nil && !c.Unanswered && c.Kind != capture.KindReset && c.Kind != capture.KindOther {
			answered++
		}
	}
	p := &plan.Plan{Name: "it", Targets: []string{to}, Workloads: []string{"replay"}, Datasets: []string{filepath.Base(file)},
		Params: map[string]string{"capture": file, "timing": "commit"}, Clients: []int{4}, Duration: "60s", Memory: "1G", Interval: "0s", Trim: new(float64),
		// the two replays run side by side in this process: a cell placed
		// on its own CPUs moves the whole process, which the other's
		// would undo (and its client group could not be removed); what
		// is asserted here is the answers, not a CPU figure
		CPUs: "all"}
	res, err := p.Resolve(plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &run.Runner{OutDir: testenv.WorkDir(t), Log: io.Discard}
	if testing.Verbose() {
		r.Log = os.Stderr
	}
	if _, err := r.Matrix(context.Background(), res); err != nil {
		t.Fatal(err)
	}
	files, err := result.ReadDir(r.OutDir)
	if err != nil || len(files) != 1 {
		t.Fatalf("want 1 result, got %d (%v)", len(files), err)
	}
	f := files[0]
	if !f.OK() {
		t.Fatalf("%s: %s; %+v", to, f.Status, f.Invariants)
	}
	if f.Counters["sent"] != int64(answered) {
		t.Errorf("%s: %d commands sent, the %s capture has %d answered", to, f.Counters["sent"], h.Protocol, answered)
	}
	if len(f.Invariants.Drift) > 0 {
		t.Errorf("%s: answers that differ from the capture's:\n%s", to, strings.Join(f.Invariants.Drift, "\n"))
	}
	// the top fingerprints' plans, each EXPLAINed with its captured
	// parameters (PostgreSQL's bound to a prepared statement's $n)
	if len(f.Invariants.Plans) == 0 {
		t.Errorf("%s: no plan of the capture's statements recorded", to)
	}
	explained := 0
	for op, plan := range f.Invariants.Plans {
		switch {
		case strings.HasPrefix(plan, "no plan") && strings.Contains(plan, "42P01"):
			// a table the migrations made and dropped again (Redmine's
			// permissions): explained after the run, it is gone
		case strings.HasPrefix(plan, "no plan") || plan == "":
			t.Errorf("%s: %s: %q", to, op, plan)
		default:
			explained++
		}
	}
	if explained == 0 {
		t.Errorf("%s: none of the top statements was explained: %v", to, f.Invariants.Plans)
	}
	t.Logf("%s: %s", to, strings.Join(f.Invariants.Checked, "; "))
}
