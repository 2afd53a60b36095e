package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"shootout/internal/target"
	"shootout/internal/workload/kv"
)

// runRedis compares shootout's kv reads with redis-benchmark (Debian's
// redis-tools) on one private redis-server, alternating, both over its
// unix socket: GET one at a time on conns connections, then 16 per round
// trip (redis-benchmark -P 16 against kv's batch path of 16 ids, the same
// pipelined GETs).
func runRedis(ctx context.Context, bin string, conns, repeats int) error {
	if _, err := exec.LookPath("redis-benchmark"); err != nil {
		return fmt.Errorf("redis-benchmark not found; fix: apt-get install -y redis-tools")
	}
	work, err := os.MkdirTemp("", "shootout-bench-redis-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	tg := target.Redis{}
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: work, MemoryBudget: 2 << 30})
	if err != nil {
		return err
	}
	defer inst.Stop(context.Background())
	if err := placeServer(inst.PIDs()); err != nil {
		return err
	}
	ep := inst.(target.NativeInstance).Endpoint()
	version, _ := inst.Version(ctx)
	const keys = 100000
	url := "redis://:" + ep.Password + "@127.0.0.1/?socket=" + ep.Address
	// redis-benchmark reads keys it wrote (key:000000000000 …), with
	// values as long as kv's: the server's and both clients' work per GET
	// grows with the bytes of the answer
	valueBytes := kv.MeanValueBytes(keys)
	if _, out, err := timed(ctx, "redis-benchmark", "-s", ep.Address, "-a", ep.Password, "-t", "set", "-r", strconv.Itoa(keys),
		"-d", strconv.Itoa(valueBytes), "-n", strconv.Itoa(4*keys), "-q"); err != nil {
		return fmt.Errorf("redis-benchmark set: %v\n%s", err, out)
	}
	fmt.Printf("\nprivate redis-server %s (unix socket), %d keys of %d-byte values, %d connections, %d runs per tool, alternating\n\n", version, keys, valueBytes, conns, repeats)
	results := map[int]*redisPair{1: {}, 16: {}}
	for _, pipeline := range []int{1, 16} {
		for i := 0; i < repeats; i++ {
			n := 1000000 * pipeline / 4
			s, out, err := serverTimed(ctx, inst.PIDs(), "redis-benchmark", "-s", ep.Address, "-a", ep.Password, "-t", "get", "-r", strconv.Itoa(keys),
				"-c", strconv.Itoa(conns), "-n", strconv.Itoa(n), "-P", strconv.Itoa(pipeline), "-q")
			if err != nil {
				return fmt.Errorf("redis-benchmark get: %v\n%s", err, out)
			}
			if err := parseRedisBenchmark(out, &s); err != nil {
				return err
			}
			s.queries = float64(n)
			results[pipeline].rb = append(results[pipeline].rb, s)
			s, err = kvRun(ctx, inst.PIDs(), bin, url, filepath.Join(work, fmt.Sprintf("get-%d-%d", pipeline, i)), conns, keys, pipeline, n)
			if err != nil {
				return err
			}
			// a batch operation is 16 reads: compare reads with requests
			s.qps = s.queries / s.wallRun
			results[pipeline].so = append(results[pipeline].so, s)
			rb := results[pipeline].rb[i]
			fmt.Printf("GET -P %d, run %d: redis-benchmark %.0f requests/s, shootout %.0f reads/s; redis-server's CPU %.0f%% / %.0f%% of a core\n", pipeline, i+1, rb.qps, s.qps,
				100*rb.srvCPU/rb.wall, 100*s.srvCPU/s.wall)
		}
	}
	printRedis(results, conns, repeats)
	return nil
}

// redisPair is one pipeline depth's runs of each tool.
type redisPair struct{ rb, so []sample }

// kvRun is shootout's kv reads of the keys on conns connections, n
// requests in all, pipeline GETs per round trip, timed with the server.
func kvRun(ctx context.Context, pids []int, bin, url, outDir string, conns, keys, pipeline, n int) (sample, error) {
	path := []string{"--path", "get"}
	if pipeline > 1 {
		path = []string{"--path", "batch", "--param", "batch=" + strconv.Itoa(pipeline)}
	}
	// the ids: as many reads as redis-benchmark's requests
	args := append([]string{"run", "--targets", url, "--workload", "kv", "--dataset", strconv.Itoa(keys), "--clients", strconv.Itoa(conns),
		"--param", "id_count=" + strconv.Itoa(keys), "--param", "rounds=" + strconv.Itoa(n/keys), "--param", "warmup=0",
		"--duration", "10m", "--interval", "0", "--out", outDir}, path...)
	s, out, err := serverTimed(ctx, pids, bin, args...)
	if err != nil {
		return s, fmt.Errorf("shootout kv: %v\n%s", err, out)
	}
	err = readShootout(outDir, &s)
	return s, err
}

// printRedis is the table of medians and the verdict per pipeline depth.
func printRedis(results map[int]*redisPair, conns, repeats int) {
	fmt.Printf("\n%-24s %16s %16s %7s %20s %20s\n", "GET (medians)", "redis-benchmark/s", "shootout reads/s", "ratio", "redis-benchmark µs CPU/r", "shootout µs CPU/r")
	for _, pipeline := range []int{1, 16} {
		p := results[pipeline]
		qps := func(s sample) float64 { return s.qps }
		cpq := func(s sample) float64 { return s.cpu / s.queries * 1e6 }
		fmt.Printf("%-24s %16.0f %16.0f %7.2f %20.2f %20.2f\n", fmt.Sprintf("%d conns, -P %d", conns, pipeline),
			median(p.rb, qps), median(p.so, qps), median(p.so, qps)/median(p.rb, qps), median(p.rb, cpq), median(p.so, cpq))
	}
	fmt.Printf("\nshootout against redis-benchmark over the %d runs of each (~: within the noise)\n", repeats)
	for _, pipeline := range []int{1, 16} {
		p := results[pipeline]
		fmt.Printf("%-24s reads/s %s; client µs CPU/r %s\n", fmt.Sprintf("%d conns, -P %d", conns, pipeline),
			verdict(p.rb, p.so, func(s sample) float64 { return s.qps }), verdict(p.rb, p.so, func(s sample) float64 { return s.cpu / s.queries * 1e6 }))
	}
}

var reRedisBench = regexp.MustCompile(`GET: ([\d.]+) requests per second`)

func parseRedisBenchmark(out string, s *sample) error {
	m := reRedisBench.FindStringSubmatch(out)
	if m == nil {
		return fmt.Errorf("cannot read redis-benchmark's summary:\n%s", out)
	}
	s.qps, _ = strconv.ParseFloat(m[1], 64)
	return nil
}
