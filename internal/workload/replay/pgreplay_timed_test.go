package replay

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"shootout/internal/capture"
	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// TestPgreplayTimedComparison replays one csvlog (SHOOTOUT_PGREPLAY_LOG,
// written with log_statement=all and log_min_duration_statement=0: the
// Redmine test leaves its own with SHOOTOUT_KEEP_LOGS=DIR) on its
// original timeline with Debian's pgreplay and with shootout's
// timing=original, each on a fresh PostgreSQL, SHOOTOUT_PGREPLAY_REPEATS
// times (3) interleaved, at SHOOTOUT_PGREPLAY_SPEED (1; pgreplay's -s,
// shootout's speed), and prints one table row per run: statements sent,
// errors, the furthest behind schedule, wall time. A study, not a check:
// it runs only when asked (docs/capture.md has its table).
func TestPgreplayTimedComparison(t *testing.T) {
	log := os.Getenv("SHOOTOUT_PGREPLAY_LOG")
	if log == "" {
		t.Skip("SHOOTOUT_PGREPLAY_LOG=CSVLOG runs this comparison")
	}
	bin, err := exec.LookPath("pgreplay")
	must(t, err)
	file := filepath.Join(t.TempDir(), "log.capture")
	must(t, capture.FromLog(capture.LogOptions{From: log, Format: "csvlog", Out: file}))
	repeats := 3
	if n := os.Getenv("SHOOTOUT_PGREPLAY_REPEATS"); n != "" {
		fmt.Sscan(n, &repeats)
	}
	speed := "1"
	if s := os.Getenv("SHOOTOUT_PGREPLAY_SPEED"); s != "" {
		speed = s
	}
	var rows []string
	for r := 1; r <= repeats; r++ {
		// which goes first alternates, so neither always runs on the
		// machine as the other left it
		tools := []func() string{func() string { return timedPgreplay(t, bin, log, speed) }, func() string { return timedShootout(t, file, speed) }}
		if r%2 == 0 {
			slices.Reverse(tools)
		}
		for _, run := range tools {
			rows = append(rows, fmt.Sprintf("| %d %s", r, run()))
		}
	}
	t.Logf("the log %s at speed %s\n| run | replayer | statements | calls to the server | errors | furthest behind schedule | run time s | wall s |\n|---|---|---|---|---|---|---|---|\n%s",
		filepath.Base(log), speed, strings.Join(rows, "\n"))
}

// freshPG is a private PostgreSQL with no log of its own, stopped at the
// test's end.
func freshPG(t *testing.T) target.Instance {
	t.Helper()
	tg, err := target.Lookup("postgres")
	must(t, err)
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t)})
	must(t, err)
	t.Cleanup(func() { inst.Stop(context.Background()) })
	return inst
}

// pgreplayStat reads pgreplay's replay statistics: "Total run time:
// 44.098 seconds", "Calls to the server: 3210 (…)", "SQL statements
// executed: 2525 (1 or 0.040% of these completed with error)".
var pgreplayStat = regexp.MustCompile(`(?m)^(Total run time|Maximum lag behind schedule|Calls to the server|SQL statements executed): (\S+)(?:\s+seconds|\s+\((\d+) or)?`)

func timedPgreplay(t *testing.T, bin, log, speed string) string {
	inst := freshPG(t)
	defer inst.Stop(context.Background())
	ep := inst.Endpoint()
	host, port := ep.HostPort()
	began := time.Now()
	out, err := exec.Command(bin, "-c", "-s", speed, "-h", host, "-p", fmt.Sprint(port), "-W", ep.Password, log).CombinedOutput()
	wall := time.Since(began)
	if err != nil {
		t.Fatalf("pgreplay: %v\n%s", err, out)
	}
	stat := map[string]string{}
	errs := "?"
	for _, m := range pgreplayStat.FindAllStringSubmatch(string(out), -1) {
		stat[m[1]] = m[2]
		if m[1] == "SQL statements executed" {
			errs = m[3]
		}
	}
	t.Logf("pgreplay said: %s", strings.Join(strings.Fields(string(out)), " "))
	return fmt.Sprintf("| pgreplay | %s | %s | %s | %s s | %s | %.1f |", stat["SQL statements executed"], stat["Calls to the server"], errs,
		stat["Maximum lag behind schedule"], stat["Total run time"], wall.Seconds())
}

func timedShootout(t *testing.T, file, speed string) string {
	inst := freshPG(t)
	defer inst.Stop(context.Background())
	db := inst.(target.SQLInstance).DB()
	w, err := New(map[string]string{"capture": file, "timing": Original, "speed": speed})
	must(t, err)
	rw := w.(*Workload)
	clients := len(rw.s.lanes)
	rw.SetClients(clients)
	ctx := context.Background()
	d := dialect.Dialect{Flavor: dialect.Postgres}
	_, err = rw.Before(ctx, db, d, workload.Dataset{})
	must(t, err)
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		c, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		return rw.NewWorker(ctx, c, d, workload.Dataset{}, client)
	}
	began := time.Now()
	res, err := driver.Run(ctx, driver.Config{Clients: clients, Duration: 10 * time.Minute, OpNames: rw.Ops(), Classify: dialect.Classify}, connect)
	wall := time.Since(began)
	must(t, err)
	inv := rw.Check(ctx, db, d, workload.Dataset{}, nil, res.Counters)
	t.Logf("shootout said: %s; drift %q", strings.Join(inv.Checked, "; "), inv.Drift)
	// errors the server gave: those of the capture it gave again, and
	// new ones; statements as pgreplay counts them: no prepares
	errs, statements := int64(0), int64(0)
	for _, se := range rw.s.sessions {
		for _, st := range se.steps {
			if st.Error != nil {
				errs++
			}
			if st.Kind != capture.KindPrepare {
				statements++
			}
		}
	}
	for k, v := range res.Counters {
		switch {
		case strings.HasPrefix(k, "new_error:"):
			errs += v
		case strings.HasPrefix(k, "lost_error:"):
			errs -= v
		}
	}
	return fmt.Sprintf("| shootout timing=original | %d | %d | %d | %v | %.3f | %.1f |", statements, res.Counters["sent"], errs,
		slices.Max(rw.lag).Round(time.Millisecond), wall.Seconds(), wall.Seconds())
}
