package run

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/workload"
)

// blkioWritten sums the Write lines of blkio.throttle.io_service_bytes.
func blkioWritten(ev map[string]string) int64 {
	var n int64
	for _, line := range strings.Split(ev["blkio.throttle.io_service_bytes"], "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "Write" {
			v, _ := strconv.ParseInt(f[2], 10, 64)
			n += v
		}
	}
	return n
}

// TestWindowCountsTheWindowAndWritesBack: a read-only window after a load
// must show the window's IO only (the load's writes are not in it), and
// every engine writes back what a write window dirtied before the bytes
// are counted, and says how long it took.
func TestWindowCountsTheWindowAndWritesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	requireLimits(t)
	read := runOne(t, &plan.Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_point_select"}, Datasets: []string{"50000"},
		Clients: []int{2}, Duration: "2s", Interval: "0s", IOPS: 5000, Memory: "512M"})
	ev := read.Limits.Evidence
	if _, ok := ev["blkio.throttle.io_service_bytes"]; !ok {
		t.Fatalf("no blkio evidence: %v", ev)
	}
	// the load wrote the 50,000 rows (over 10 MiB with the index) through
	// this group; a read-only window writes next to nothing
	if w := blkioWritten(ev); w > 4<<20 {
		t.Errorf("the window's evidence shows %d bytes written by a read-only workload: the load is counted in it", w)
	}
	if _, ok := ev["memory.failcnt"]; !ok {
		t.Errorf("no memory evidence: %v", ev)
	}

	for _, tg := range []string{"mariadb-innodb", "postgres"} {
		f := runOne(t, &plan.Plan{Targets: []string{tg}, Workloads: []string{"oltp_write_only"}, Datasets: []string{"20000"},
			Clients: []int{2}, Duration: "2s", Interval: "0s"})
		if f.Server.WriteBackS <= 0 || f.Server.WriteBytes <= 0 {
			t.Errorf("%s: write-back %.3f s, %d bytes written: the window's dirty data must be written back and counted", tg, f.Server.WriteBackS, f.Server.WriteBytes)
		}
		if f.Server.EngineWrites == nil || f.Server.EngineWrites.DataBytesPerOp <= 0 {
			t.Errorf("%s: the engine's data-page writes of the window are missing: %+v", tg, f.Server.EngineWrites)
		}
	}
}

type countedWorker struct {
	client int
	closed *[]int
}

func (w countedWorker) Do(context.Context) (workload.Outcome, error) { return workload.Outcome{}, nil }
func (w countedWorker) Abort(context.Context)                        {}
func (w countedWorker) Counters() map[string]int64                   { return nil }
func (w countedWorker) Close() error                                 { *w.closed = append(*w.closed, w.client); return nil }

// Clients connected before the window go to the driver once each; a
// reconnect gets a new connection, and what the driver never took is
// closed.
func TestPreConnectedClientsAreHandedOutOnce(t *testing.T) {
	ctx := context.Background()
	var connects []int
	var closed []int
	connect := func(_ context.Context, client int) (workload.Worker, error) {
		connects = append(connects, client)
		return countedWorker{client, &closed}, nil
	}
	p, err := connectAll(ctx, connect, 3)
	if err != nil || len(connects) != 3 {
		t.Fatalf("%v, %d connects", err, len(connects))
	}
	for _, client := range []int{0, 2, 0} {
		if _, err := p.handOut(ctx, client); err != nil {
			t.Fatal(err)
		}
	}
	if want := []int{0, 1, 2, 0}; fmt.Sprint(connects) != fmt.Sprint(want) {
		t.Errorf("connects %v, want %v: client 0's second is a reconnect", connects, want)
	}
	p.closeUnused()
	if fmt.Sprint(closed) != "[1]" {
		t.Errorf("closed %v, want client 1's only, which the driver never took", closed)
	}
	// a client that cannot connect closes those before it
	closed = nil
	_, err = connectAll(ctx, func(c context.Context, client int) (workload.Worker, error) {
		if client == 2 {
			return nil, errors.New("refused")
		}
		return connect(c, client)
	}, 3)
	if err == nil || err.Error() != "client 3: refused" || fmt.Sprint(closed) != "[0 1]" {
		t.Errorf("%v; closed %v", err, closed)
	}
}
