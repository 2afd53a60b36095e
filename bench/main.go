// Command bench runs shootout and sysbench 1.0.20 against one private
// MariaDB (InnoDB), alternating, with the same test, table size, clients and
// duration, and prints both figures and their ratios: load time, tps/qps and
// client and server CPU per query, the server's read over each tool's
// measured window (servercpu.go); then shootout's kv reads and
// redis-benchmark against one private redis-server (redis.go); all of it
// under each placement (-placement split,none): as shootout's cells place
// server and client, and not placed at all, where the MariaDB comparisons
// run over the server's unix socket and again over TCP, as a client
// reaches an external server. `make bench` runs it; docs/bench-log.md
// records each run.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/stats"
	"shootout/internal/target"
)

type sample struct {
	wall, cpu  float64 // seconds; cpu is user+sys of the client process
	wallRun    float64 // shootout: the measured run's seconds
	tps, qps   float64
	queries    float64
	srvCPU     float64 // seconds of the server's CPU in the tool's measured window
	srvSwitch  float64 // the server's context switches in that window
	srvCPULife float64 // the server's CPU over the client process's life
	others     float64 // the share of the machine's CPUs others took in the window
	readings   []reading
	ended      time.Time // when the client process had exited
	started    time.Time // shootout: when its measured window began
	cliSwitch  float64   // the client process's context switches (getrusage)
	cliWindow  float64   // shootout: its own CPU in the measured window
	clientNote string
}

// split places as shootout's cells do by default (docs/design.md): the
// server on every core but the first, the client — either tool — on the
// first, so neither client's threads take the server's cores.
var split bool

// placeServer pins every thread of the server's processes to cores
// 1…n-1; processes it forks later (PostgreSQL's backends) inherit it.
func placeServer(pids []int) error {
	if !split {
		return nil
	}
	var set unix.CPUSet
	for c := 1; c < runtime.NumCPU(); c++ {
		set.Set(c)
	}
	for _, pid := range pids {
		for _, p := range append([]int{pid}, metrics.Descendants(pid)...) {
			tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
			if err != nil {
				return err
			}
			for _, t := range tasks {
				tid, _ := strconv.Atoi(t.Name())
				if err := unix.SchedSetaffinity(tid, &set); err != nil {
					return fmt.Errorf("pin the server's thread %d: %w", tid, err)
				}
			}
		}
	}
	return nil
}

// serverTimed runs a client as timed does and reads the server over the
// client's life (servercpu.go): a client that sends more or costlier
// requests per query shows there, not in its own CPU. srvCPU is the
// whole life's until the caller narrows it to the measured window.
func serverTimed(ctx context.Context, pids []int, name string, args ...string) (sample, string, error) {
	w := watchServer(pids)
	s, out, err := timed(ctx, name, args...)
	s.readings = w.end()
	first, last := s.readings[0], s.readings[len(s.readings)-1]
	s.srvCPU, s.srvSwitch = last.cpu-first.cpu, last.ctx-first.ctx
	s.srvCPULife = s.srvCPU
	return s, out, err
}

func main() {
	shootout := flag.String("shootout", "bin/shootout", "the shootout binary to measure")
	rows := flag.Int("rows", 1000000, "table size")
	clients := flag.String("clients", "8,100", "comma-separated client threads/goroutines")
	via := flag.String("via", "unix", "comma-separated: how both clients reach the server, unix (its socket) and/or tcp (127.0.0.1); each runs every MariaDB comparison on the same server and table")
	tcpUnplaced := flag.Bool("tcp-unplaced", true, "under -placement none, run every MariaDB comparison over tcp as well: how a client reaches an external server")
	redisConns := flag.Int("redis-clients", 50, "connections of the Redis comparison (0: skip it)")
	withSysbench := flag.Bool("sysbench", true, "run the MariaDB comparison with sysbench")
	dur := flag.Duration("duration", 10*time.Second, "length of each run")
	// 4 runs a side is the fewest with which a difference can be told from
	// the noise at p < 0.05 (stats.Compare); 5 leaves room for one outlier
	repeats := flag.Int("repeat", 5, "runs of each tool per test, alternating")
	loadRepeats := flag.Int("load-repeat", 3, "loads of each tool, alternating")
	tests := flag.String("tests", "oltp_point_select,oltp_read_write", "tests to compare")
	placements := flag.String("placement", "split,none", "comma-separated: split (the server on every core but the first, each client on the first, as shootout places its cells) and/or none (anywhere); each runs every comparison")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cs, vias, places := parseLists(*clients, *via, *placements)
	for _, place := range places {
		split = place
		if split {
			serverCores := fmt.Sprintf("cores 1-%d", runtime.NumCPU()-1)
			if runtime.NumCPU() == 2 {
				serverCores = "core 1"
			}
			fmt.Printf("== placement split: the server on %s, each client (either tool) on core 0, as shootout's cells run\n\n", serverCores)
		} else {
			fmt.Printf("== placement none: server and clients on any core\n\n")
		}
		if *withSysbench {
			vs := vias
			if !split && *tcpUnplaced && !slices.Contains(vs, "tcp") {
				vs = append(slices.Clone(vs), "tcp")
			}
			if err := run(ctx, *shootout, *rows, cs, vs, *dur, *repeats, *loadRepeats, strings.Split(*tests, ",")); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
		}
		if *redisConns > 0 {
			if err := runRedis(ctx, *shootout, *redisConns, *repeats); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
		}
		fmt.Println()
	}
}

// parseLists reads -clients, -via and -placement; a bad value ends the
// bench with exit status 2, naming the flag.
func parseLists(clients, via, placements string) (cs []int, vias []string, places []bool) {
	for _, c := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: -clients: %q is not a client count\n", c)
			os.Exit(2)
		}
		cs = append(cs, n)
	}
	for _, v := range strings.Split(via, ",") {
		v = strings.TrimSpace(v)
		if v != "unix" && v != "tcp" {
			fmt.Fprintf(os.Stderr, "bench: -via: %q is not unix or tcp\n", v)
			os.Exit(2)
		}
		vias = append(vias, v)
	}
	for _, p := range strings.Split(placements, ",") {
		switch strings.TrimSpace(p) {
		case "split":
			if runtime.NumCPU() < 2 {
				fmt.Fprintln(os.Stderr, "bench: -placement split needs 2 cores or more; give -placement none")
				os.Exit(2)
			}
			places = append(places, true)
		case "none":
			places = append(places, false)
		default:
			fmt.Fprintf(os.Stderr, "bench: -placement: %q is not split or none\n", p)
			os.Exit(2)
		}
	}
	return cs, vias, places
}

func run(ctx context.Context, bin string, rows int, clientCounts []int, vias []string, dur time.Duration, repeats, loadRepeats int, tests []string) error {
	if _, err := exec.LookPath("sysbench"); err != nil {
		return fmt.Errorf("sysbench not found; fix: apt-get install -y sysbench")
	}
	bin, _ = filepath.Abs(bin)
	work, err := os.MkdirTemp("", "shootout-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755)
	srv, err := startServer(ctx, work, rows)
	if err != nil {
		return err
	}
	defer srv.inst.Stop(context.Background())
	fmt.Printf("private MariaDB %s (InnoDB, 1G buffer pool), %d rows, clients %v, over %s, %s per run, %d runs per tool, alternating\n\n",
		srv.version, rows, clientCounts, strings.Join(vias, " then "), dur, repeats)
	if err := compareLoads(ctx, srv, bin, vias[0], loadRepeats); err != nil {
		return err
	}
	b := &comparison{srv: srv, bin: bin, work: work, dur: dur, results: map[benchKey]*benchPair{}}
	for _, via := range vias {
		for _, clients := range clientCounts {
			for _, test := range tests {
				if err := b.compare(ctx, via, test, clients, repeats); err != nil {
					return err
				}
			}
		}
	}
	b.printTables(repeats)
	return nil
}

// server is the bench's private MariaDB and the user both tools log in as.
type server struct {
	inst            target.Instance
	db              *sql.DB
	pw              string
	port, rows      int
	version, socket string
}

// startServer starts the private MariaDB, places it, and makes the bench
// user for TCP and the socket.
func startServer(ctx context.Context, work string, rows int) (*server, error) {
	tg, _ := target.Lookup("mariadb-innodb")
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: work, MemoryBudget: 2 << 30})
	if err != nil {
		return nil, err
	}
	srv := &server{inst: inst, db: inst.(target.SQLInstance).DB(), rows: rows}
	if err := srv.prepare(ctx); err != nil {
		inst.Stop(context.Background())
		return nil, err
	}
	return srv, nil
}

func (srv *server) prepare(ctx context.Context) error {
	if err := placeServer(srv.inst.PIDs()); err != nil {
		return err
	}
	db := srv.db
	pwb := make([]byte, 8)
	rand.Read(pwb)
	pw := hex.EncodeToString(pwb)
	srv.pw = pw
	for _, q := range []string{"CREATE USER 'bench'@'127.0.0.1' IDENTIFIED BY '" + pw + "'", "GRANT ALL ON *.* TO 'bench'@'127.0.0.1'"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	if err := db.QueryRowContext(ctx, "SELECT @@port, VERSION(), @@socket").Scan(&srv.port, &srv.version, &srv.socket); err != nil {
		return err
	}
	for _, q := range []string{"CREATE USER 'bench'@'localhost' IDENTIFIED BY '" + pw + "'", "GRANT ALL ON *.* TO 'bench'@'localhost'"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// endpoint is how both clients reach the server over via: both take the
// same transport, since it is part of what is compared, so the yardstick
// takes the one shootout takes.
func (srv *server) endpoint(via string) (url string, sb []string) {
	pw, port, rows, socket := srv.pw, srv.port, srv.rows, srv.socket
	url = fmt.Sprintf("mysql://bench:%s@127.0.0.1:%d/sbtest?engine=innodb", pw, port)
	sb = []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", fmt.Sprintf("--mysql-port=%d", port), "--mysql-user=bench",
		"--mysql-password=" + pw, "--mysql-db=sbtest", "--tables=1", fmt.Sprintf("--table-size=%d", rows)}
	if via == "unix" {
		url = fmt.Sprintf("mysql://bench:%s@localhost/sbtest?engine=innodb&socket=%s", pw, socket)
		sb = append(sb, "--mysql-socket="+socket)
	}
	return url, sb
}

// compareLoads loads the table with each tool in turns, loadRepeats times.
func compareLoads(ctx context.Context, srv *server, bin, via string, loadRepeats int) error {
	db, rows := srv.db, srv.rows
	url, sb := srv.endpoint(via)
	drop := func() error { _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS sbtest1"); return err }
	var sbLoad, soLoad []sample
	for i := 0; i < loadRepeats; i++ {
		if err := drop(); err != nil {
			return err
		}
		s, out, err := timed(ctx, "sysbench", append([]string{"oltp_read_write"}, append(sb, "prepare")...)...)
		if err != nil {
			return fmt.Errorf("sysbench prepare: %v\n%s", err, out)
		}
		sbLoad = append(sbLoad, s)
		fmt.Printf("load %d: sysbench prepare %.1f s (client CPU %.1f s)\n", i+1, s.wall, s.cpu)
		if err := drop(); err != nil {
			return err
		}
		s, out, err = timed(ctx, bin, "prepare", "--target", url, "--workload", "oltp_read_write", "--dataset", strconv.Itoa(rows))
		if err != nil {
			return fmt.Errorf("shootout prepare: %v\n%s", err, out)
		}
		soLoad = append(soLoad, s)
		fmt.Printf("load %d: shootout prepare %.1f s (client CPU %.1f s)\n", i+1, s.wall, s.cpu)
	}
	sbl, sol := median(sbLoad, func(s sample) float64 { return s.wall }), median(soLoad, func(s sample) float64 { return s.wall })
	fmt.Printf("\nload %d rows (median): sysbench %.1f s, shootout %.1f s: shootout %.2fx faster\n\n", rows, sbl, sol, sbl/sol)
	return nil
}

// benchKey is one row of the comparison.
type benchKey struct {
	via     string
	test    string
	clients int
	client  string // shootout's: go, or libmariadb (a loop in C per client)
}

// benchPair is a row's runs of each tool.
type benchPair struct{ sb, so []sample }

// comparison is the runs of both tools, row by row.
type comparison struct {
	srv       *server
	bin, work string
	dur       time.Duration
	keys      []benchKey
	results   map[benchKey]*benchPair
}

// clientsOf is shootout's clients of test: oltp_point_select also runs
// with client=libmariadb (each client a loop in C), paired with the same
// sysbench runs; it runs after the Go client in every repeat
// (docs/bench-log.md#2026-11-27--a-client-whose-loop-is-c-clientlibmariadb)
func clientsOf(test string) []string {
	if test == "oltp_point_select" {
		return []string{"go", "libmariadb"}
	}
	return []string{"go"}
}

// compare runs test at clients over via, repeats times: sysbench, then
// shootout with each of its clients.
func (b *comparison) compare(ctx context.Context, via, test string, clients, repeats int) error {
	url, sb := b.srv.endpoint(via)
	for _, client := range clientsOf(test) {
		k := benchKey{via, test, clients, client}
		b.keys = append(b.keys, k)
		b.results[k] = &benchPair{}
	}
	inst, dur := b.srv.inst, b.dur
	for i := 0; i < repeats; i++ {
		args := append([]string{test}, sb...)
		args = append(args, fmt.Sprintf("--threads=%d", clients), fmt.Sprintf("--time=%d", int(dur.Seconds())), "--report-interval=0", "run")
		y, out, err := serverTimed(ctx, inst.PIDs(), "sysbench", args...)
		if err != nil {
			return fmt.Errorf("sysbench %s: %v\n%s", test, err, out)
		}
		if err := parseSysbench(out, &y); err != nil {
			return err
		}
		// its window ends with its timer, a few ms before it exits
		if err := y.overWindow(y.ended.Add(-time.Duration(y.wallRun*float64(time.Second))), y.wallRun); err != nil {
			return fmt.Errorf("sysbench %s: %w", test, err)
		}
		for _, client := range clientsOf(test) {
			if err := b.shootoutRun(ctx, benchKey{via, test, clients, client}, url, i, y); err != nil {
				return err
			}
		}
	}
	return nil
}

// shootoutRun is shootout's run i of row k, printed beside sysbench's y.
func (b *comparison) shootoutRun(ctx context.Context, k benchKey, url string, i int, y sample) error {
	test, clients, client, via := k.test, k.clients, k.client, k.via
	b.results[k].sb = append(b.results[k].sb, y)
	outDir := filepath.Join(b.work, fmt.Sprintf("%s-%s-%d-%s-%d", via, test, clients, client, i))
	s, out, err := serverTimed(ctx, b.srv.inst.PIDs(), b.bin, "run", "--targets", url, "--workload", test, "--dataset", strconv.Itoa(b.srv.rows),
		"--clients", strconv.Itoa(clients), "--duration", b.dur.String(), "--interval", "0", "--param", "client="+client, "--out", outDir)
	if err != nil {
		return fmt.Errorf("shootout %s client=%s: %v\n%s", test, client, err, out)
	}
	if err := readShootout(outDir, &s); err != nil {
		return err
	}
	if err := s.overWindow(s.started, s.wallRun); err != nil {
		return fmt.Errorf("shootout %s client=%s (throughput.started_at): %w", test, client, err)
	}
	b.results[k].so = append(b.results[k].so, s)
	fmt.Printf("%s %s, %d clients, run %d: sysbench %.0f qps, shootout (%s) %.0f qps; server µs CPU/q in the window %.1f / %.1f (over the client's life %.1f / %.1f); shootout µs CPU/q %.1f, %.1f in its window; context switches/q server %.2f / %.2f, client %.2f / %.2f; others took %.0f%% / %.0f%% of the CPUs\n",
		via, test, clients, i+1, y.qps, client, s.qps,
		y.srvCPU/y.queries*1e6, s.srvCPU/s.queries*1e6, y.srvCPULife/y.queries*1e6, s.srvCPULife/s.queries*1e6,
		s.cpu/s.queries*1e6, s.cliWindow/s.queries*1e6,
		y.srvSwitch/y.queries, s.srvSwitch/s.queries, y.cliSwitch/y.queries, s.cliSwitch/s.queries, 100*y.others, 100*s.others)
	return nil
}

// printTables is the table of medians and the verdict of every row.
func (b *comparison) printTables(repeats int) {
	keys, results := b.keys, b.results
	// a row's name: the transport, the test, its clients, and shootout's
	// client when it is not the Go driver
	rowName := func(k benchKey) string {
		n := fmt.Sprintf("%s %s@%d", k.via, k.test, k.clients)
		if k.client != "go" {
			n += " " + k.client
		}
		return n
	}
	fmt.Printf("\n%-39s %12s %12s %7s %12s %12s %7s %17s %17s %15s\n", "via test@clients (medians)", "sysbench tps", "shootout tps", "ratio", "sysbench qps", "shootout qps", "ratio", "sysbench µs CPU/q", "shootout µs CPU/q", "server µs CPU/q")
	for _, k := range keys {
		p := results[k]
		f := func(ss []sample, v func(sample) float64) float64 { return median(ss, v) }
		tps := func(s sample) float64 { return s.tps }
		qps := func(s sample) float64 { return s.qps }
		cpq := func(s sample) float64 { return s.clientCPU() / s.queries * 1e6 }
		srv := func(s sample) float64 { return s.srvCPU / s.queries * 1e6 }
		fmt.Printf("%-39s %12.0f %12.0f %7.2f %12.0f %12.0f %7.2f %17.2f %17.2f %15s\n", rowName(k),
			f(p.sb, tps), f(p.so, tps), f(p.so, tps)/f(p.sb, tps), f(p.sb, qps), f(p.so, qps), f(p.so, qps)/f(p.sb, qps),
			f(p.sb, cpq), f(p.so, cpq), fmt.Sprintf("%.1f / %.1f", f(p.sb, srv), f(p.so, srv)))
	}
	fmt.Printf("\nshootout against sysbench over the %d runs of each (~: within the noise, as shootout compare says it); the server's figures over each tool's measured window\n", repeats)
	for _, k := range keys {
		p := results[k]
		fmt.Printf("%-39s qps %s; client µs CPU/q %s; server µs CPU/q %s\n", rowName(k),
			verdict(p.sb, p.so, func(s sample) float64 { return s.qps }), verdict(p.sb, p.so, func(s sample) float64 { return s.clientCPU() / s.queries * 1e6 }),
			verdict(p.sb, p.so, func(s sample) float64 { return s.srvCPU / s.queries * 1e6 }))
		// where the CPU per query goes when the tools share cores:
		// a server that switches more per query pays in the kernel
		sw := func(v func(sample) float64) string {
			return fmt.Sprintf("%.2f / %.2f", median(p.sb, v), median(p.so, v))
		}
		fmt.Printf("%-39s context switches per query (medians, sysbench / shootout): server %s, client %s; others' share of the CPUs %s\n", "",
			sw(func(s sample) float64 { return s.srvSwitch / s.queries }), sw(func(s sample) float64 { return s.cliSwitch / s.queries }),
			sw(func(s sample) float64 { return s.others }))
	}
}

// clientCPU is the client's CPU over its measured window: shootout's as
// it records it (its checks before and after the run left out),
// sysbench's over its life, which adds only its connects to its window.
func (s sample) clientCPU() float64 {
	if !s.started.IsZero() {
		return s.cliWindow
	}
	return s.cpu
}

// timed runs a client to completion and reads its own CPU from rusage.
func timed(ctx context.Context, name string, args ...string) (sample, string, error) {
	if split {
		// taskset sets the affinity and execs: the client's every thread
		// starts on core 0, and its rusage is still the client's own
		name, args = "taskset", append([]string{"-c", "0", name}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	s := sample{wall: time.Since(start).Seconds(), ended: time.Now()}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.cpu = float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
			s.cliSwitch = float64(ru.Nvcsw + ru.Nivcsw)
		}
	}
	return s, string(out), err
}

var (
	reTx = regexp.MustCompile(`transactions:\s+(\d+)\s+\(([\d.]+) per sec`)
	reQ  = regexp.MustCompile(`queries:\s+(\d+)\s+\(([\d.]+) per sec`)
	// from its threads' start to its timer's end: its measured window
	reTotal = regexp.MustCompile(`total time:\s+([\d.]+)s`)
)

func parseSysbench(out string, s *sample) error {
	t, q, tt := reTx.FindStringSubmatch(out), reQ.FindStringSubmatch(out), reTotal.FindStringSubmatch(out)
	if t == nil || q == nil || tt == nil {
		return fmt.Errorf("cannot read sysbench's summary:\n%s", out)
	}
	s.tps, _ = strconv.ParseFloat(t[2], 64)
	s.queries, _ = strconv.ParseFloat(q[1], 64)
	s.qps, _ = strconv.ParseFloat(q[2], 64)
	s.wallRun, _ = strconv.ParseFloat(tt[1], 64)
	return nil
}

func readShootout(dir string, s *sample) error {
	files, err := result.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(files) != 1 || !files[0].OK() {
		b, _ := json.Marshal(files)
		return fmt.Errorf("shootout run did not succeed: %s", b)
	}
	tp := files[0].Throughput
	s.tps, s.qps, s.wallRun, s.started = tp.TPS, tp.QPS, tp.Seconds, tp.StartedAt
	s.queries = float64(tp.Reads + tp.Writes + tp.Other)
	s.cliWindow = files[0].Client.CPUSeconds
	return nil
}

func values(ss []sample, v func(sample) float64) []float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = v(s)
	}
	return xs
}

func median(ss []sample, v func(sample) float64) float64 {
	if len(ss) == 0 {
		return 0
	}
	return stats.Median(values(ss, v))
}

// verdict says whether shootout's figure differs from the yardstick's
// beyond the run-to-run noise, as shootout compare says it of two runs: the
// change with its interval and p, or "~". A ratio of medians alone would
// call any difference real; on this shared machine one tool's runs often
// spread wider than the gap between the tools.
func verdict(yardstick, ours []sample, v func(sample) float64) string {
	return stats.Compare(values(yardstick, v), values(ours, v), 0.05).String()
}
