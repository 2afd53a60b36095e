package report

import (
	"fmt"
	"time"

	"shootout/internal/hist"
	"shootout/internal/result"
)

// The fixture is a small run made by hand: three targets (one an external
// server whose name is a masked URL) over four clients/neighbour labels of
// oltp_read_write, with one failed cell whose reason holds markup, and a
// second group of oltp_point_select on two targets without intervals.
const (
	fxRocks = "mariadb-rocksdb"
	fxInno  = "mariadb-innodb"
	fxExt   = "mysql://root:***@127.0.0.1:3306/sbtest?engine=innodb&tls=false"
	fxWhy   = `failed: run: Error 1045: <script>alert("x")</script> access denied`
)

var fxStart = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

func fixturePage() *Page {
	var files []*result.File
	labels := []struct {
		clients int
		nb      string
	}{{1, "0"}, {1, "x1"}, {4, "0"}, {4, "x1"}}
	speed := map[string]float64{fxRocks: 1.0, fxInno: 0.8, fxExt: 1.3}
	wrote := map[string]float64{fxRocks: 3800, fxInno: 17000, fxExt: 16000}
	space := map[string]int64{fxRocks: 207e6, fxInno: 264e6}
	fileName := map[string]string{fxRocks: fxRocks, fxInno: fxInno, fxExt: "ext-mysql-1a2b3c"}
	n := 0
	add := func(target, wl string, clients int, nb string, ok bool) *result.File {
		n++
		f := &result.File{
			Schema:  result.Schema,
			Cell:    result.Cell{ID: fmt.Sprintf("%s__%s__c%d__n%s", fileName[target], wl, clients, nb), Target: target, Workload: wl, Dataset: "100000", Clients: clients, Conditions: result.Conditions{Neighbour: nb}, Repeat: 1, Duration: "15s"},
			Target:  result.Target{Name: target, Flavor: "mysql", Version: "10.11.19-MariaDB"},
			Started: fxStart.Add(time.Duration(n) * time.Minute),
			Ended:   fxStart.Add(time.Duration(n)*time.Minute + 20*time.Second),
			Status:  "ok",
		}
		files = append(files, f)
		if !ok {
			f.Status = fxWhy
			return f
		}
		load := 1.0 + float64(clients)/4
		if nb != "0" {
			load *= 1.5
		}
		mean := 10 * speed[target] * load
		if wl == "oltp_point_select" {
			mean /= 20
		}
		f.Ops = map[string]result.Op{"event": {Snapshot: hist.Snapshot{Count: 1000, MeanMs: mean, MinMs: mean / 4, P50Ms: mean * 0.9, P95Ms: mean * 2, P99Ms: mean * 4, MaxMs: mean * 30, SumMs: mean * 1000}}}
		tps := float64(clients) * 1000 / mean
		f.Throughput = result.Throughput{Seconds: 15, Events: int64(tps * 15), TPS: tps, QPS: tps * 18, Latency: f.Ops["event"].Snapshot}
		cpu := 0.0004 * speed[target]
		f.Server = result.Server{Measured: target != fxExt, CPUSecondsPerOp: &cpu}
		f.Client = result.Client{CPUSecondsPerOp: 0.0001}
		if wl == "oltp_read_write" {
			f.Server.WriteBytesPerOp = wrote[target]
			f.Server.WriteBytes = int64(wrote[target] * float64(f.Throughput.Events))
			if f.Server.Measured {
				wa := wrote[target] / 752
				f.Server.WriteAmplification = &wa
				f.Server.BytesSource = "device vda (254:0)"
				f.Server.EngineWrites = &result.EngineWrites{LogBytesPerOp: wrote[target] / 3, DataBytesPerOp: wrote[target] / 2, Source: "GLOBAL STATUS"}
			}
			for i := 1; i <= 3; i++ {
				f.Intervals = append(f.Intervals, result.Interval{AtS: float64(5 * i), TPS: tps * (0.9 + 0.05*float64(i))})
			}
		}
		f.Space = result.Space{Bytes: space[target] + 1e6, SettledBytes: space[target]}
		if target == fxExt {
			f.Space = result.Space{Note: "external server: data directory unknown"}
		}
		f.Load = result.Load{Seconds: 3, Rows: 100000}
		f.Limits = result.Limits{Applied: target != fxExt, Notes: []string{"server on CPUs 1, shootout (the client) on CPUs 0"}}
		if target != fxExt {
			engine := map[string]string{fxRocks: "ROCKSDB", fxInno: "InnoDB"}[target]
			// InnoDB's pool is sized from the memory at hand at each start,
			// MyRocks' stays small: a real difference, though one varies
			pool := "33554432"
			if target == fxInno {
				pool = fmt.Sprint(536870912 + n*1048576)
			}
			f.Target.Settings = map[string]string{"default_storage_engine": engine, "version": "10.11.19-MariaDB",
				"port": fmt.Sprint(30000 + n), "innodb_buffer_pool_size": pool, "datadir": "/tmp/work/" + target + "/data/"}
			if target == fxRocks {
				f.Target.Settings["rocksdb_block_cache_size"] = "536870912"
			}
			f.Target.Applied = map[string]string{"innodb_buffer_pool_size": map[string]string{fxRocks: "32M", fxInno: "512M"}[target]}
		} else {
			f.Target.Settings = map[string]string{"default_storage_engine": "InnoDB", "version": "10.11.19-MariaDB"}
		}
		return f
	}
	for _, t := range []string{fxRocks, fxInno, fxExt} {
		for _, l := range labels {
			add(t, "oltp_read_write", l.clients, l.nb, !(t == fxExt && l.clients == 4 && l.nb == "x1"))
		}
	}
	for _, t := range []string{fxRocks, fxInno} {
		add(t, "oltp_point_select", 1, "0", true)
	}
	return &Page{
		Dir:      "/tmp/results/<fixture>",
		Files:    files,
		Baseline: fxRocks,
		Manifest: &result.Manifest{Name: `sysbench <quick> & "co"`, Baseline: fxRocks, Targets: []string{fxRocks, fxInno, fxExt},
			Skipped: map[string]string{"postgres": "postgres not installed (apt-get install postgresql)"},
			Cells:   len(files), Started: fxStart,
			Machine: result.Machine{Cores: 2, MemBytes: 8e9, Kernel: "6.1.0-test", GoVersion: "go1.26"}},
		Calibration: &Calibration{Device: "vda", IOPS: map[string]float64{"randread_qd1": 9000, "randwrite_qd1": 7000}},
		Generated:   fxStart.Add(time.Hour),
	}
}
