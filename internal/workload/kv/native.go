package kv

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

// On a native server a row is a key per id: "kv:ID" holding "value1
// value2" on Redis and memcached, a tuple {id, value1, value2} in a space
// keyvalue with a primary index on Tarantool.

// store is one protocol's way to the rows.
type store interface {
	// claim makes the server ready for the dataset's rows (Tarantool's
	// space) and reports whether it already holds them, loaded by
	// shootout. On a server shootout did not start it refuses to write
	// where something not shootout's is.
	claim(ctx context.Context, rows int64) (reuse bool, err error)
	// loaded records that the rows are all there.
	loaded(ctx context.Context, rows int64) error
	// connect is one client with a connection of its own.
	connect(ctx context.Context) (storeClient, error)
	close() error
}

type storeClient interface {
	// put writes the rows of ids first…last, the protocol's fastest way.
	put(ctx context.Context, first, last int64) error
	get(ctx context.Context, id int64) (v1 int64, v2 float64, found bool, err error)
	// getMany reads ids in one round trip, calling found for each row
	// that came back, with its place in ids, or -1 when the protocol does
	// not say (memcached's multi-get).
	getMany(ctx context.Context, ids []int64, found func(at int, id, v1 int64, v2 float64)) error
	close() error
}

// Native is the kv reads on a native server.
func (w *Workload) Native(ep proto.Endpoint) (workload.Session, error) {
	if err := w.Speaks(ep.Protocol, dialect.Dialect{}); err != nil {
		return nil, err
	}
	var s store
	var err error
	switch ep.Protocol {
	case proto.Redis:
		s, err = newRedisStore(ep)
	case proto.Memcached:
		s, err = newMemcachedStore(ep)
	case proto.Tarantool:
		s, err = newTarantoolStore(ep)
	default:
		return nil, fmt.Errorf("kv does not speak %s", ep.Protocol)
	}
	if err != nil {
		return nil, err
	}
	return &nativeSteps{w: w, s: s, path: w.Path(ep.Protocol)}, nil
}

type nativeSteps struct {
	w    *Workload
	s    store
	path string
}

// loaders is how many connections load at once, as for SQL.
const loaders = 4

// nativeLoadBatch is the rows a loader writes per round trip.
const nativeLoadBatch = 1000

func (n *nativeSteps) Load(ctx context.Context, ds workload.Dataset, progress workload.Progress) (workload.LoadStats, error) {
	reuse, err := n.s.claim(ctx, ds.Rows)
	if err != nil || reuse {
		return workload.LoadStats{Reused: reuse}, err
	}
	start := time.Now()
	var next atomic.Int64
	next.Store(1)
	// every loader connects before any starts: a refused connection
	// leaves no loader writing behind the failed cell
	conns := make([]storeClient, 0, loaders)
	for range loaders {
		c, err := n.s.connect(ctx)
		if err != nil {
			for _, c := range conns {
				c.close()
			}
			return workload.LoadStats{}, err
		}
		conns = append(conns, c)
	}
	errs := make(chan error, loaders)
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.close()
			for {
				first := next.Add(nativeLoadBatch) - nativeLoadBatch
				if first > ds.Rows || ctx.Err() != nil {
					return
				}
				last := min(first+nativeLoadBatch-1, ds.Rows)
				if err := c.put(ctx, first, last); err != nil {
					errs <- fmt.Errorf("rows %d to %d: %w", first, last, err)
					// the others stop at their next batch
					next.Store(ds.Rows + 1)
					return
				}
				if progress != nil {
					progress(last - first + 1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return workload.LoadStats{}, err
	}
	if err := ctx.Err(); err != nil {
		return workload.LoadStats{}, err
	}
	if err := n.s.loaded(ctx, ds.Rows); err != nil {
		return workload.LoadStats{}, err
	}
	secs := time.Since(start).Seconds()
	return workload.LoadStats{Rows: ds.Rows, Seconds: secs, Tables: map[string]int64{"keyvalue": ds.Rows}, TableSeconds: map[string]float64{"keyvalue": secs}}, nil
}

// Before warms the server as on SQL: every id of the file read warmup
// times, in batches, before the measured window.
func (n *nativeSteps) Before(ctx context.Context, ds workload.Dataset) (workload.State, error) {
	n.w.resetMisses()
	ids := n.w.idsFor(ds)
	if n.w.opt.Warmup == 0 {
		return workload.State{}, nil
	}
	c, err := n.s.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.close()
	for r := 0; r < n.w.opt.Warmup; r++ {
		for from := 0; from < len(ids); from += 100 {
			if err := c.getMany(ctx, ids[from:min(from+100, len(ids))], func(int, int64, int64, float64) {}); err != nil {
				return nil, fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	return workload.State{}, nil
}

func (n *nativeSteps) Check(ctx context.Context, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	return n.w.Check(ctx, nil, dialectNone, ds, before, counters)
}

func (n *nativeSteps) Close() error { return n.s.close() }

func (n *nativeSteps) NewWorker(ctx context.Context, ds workload.Dataset, client int) (workload.Worker, error) {
	c, err := n.s.connect(ctx)
	if err != nil {
		return nil, err
	}
	slice, total := n.w.sliceOf(ds, client)
	wk := &nativeWorker{w: n.w, c: c, slice: slice, total: total, batch: n.path == "batch"}
	if wk.batch {
		wk.ids = make([]int64, n.w.opt.Batch)
		wk.got = make([]bool, n.w.opt.Batch)
	}
	return wk, nil
}

// nativeWorker reads its slice of the ids, rounds times, by get or batch.
type nativeWorker struct {
	w     *Workload
	c     storeClient
	slice []int64
	next  int
	total int
	rows  int64
	batch bool
	ids   []int64
	// got says which places of the batch were answered
	got []bool
}

func (wk *nativeWorker) Do(ctx context.Context) (workload.Outcome, error) {
	if wk.next >= wk.total || len(wk.slice) == 0 {
		return workload.Outcome{}, workload.ErrClientDone
	}
	if wk.batch {
		return wk.getMany(ctx)
	}
	id := wk.slice[wk.next%len(wk.slice)]
	wk.next++
	v1, v2, found, err := wk.c.get(ctx, id)
	if err != nil {
		return workload.Outcome{}, err
	}
	if !found {
		wk.w.miss(fmt.Sprintf("id %d: no row", id))
		return workload.Outcome{Reads: 1}, nil
	}
	wk.check(id, v1, v2)
	return workload.Outcome{Reads: 1}, nil
}

func (wk *nativeWorker) getMany(ctx context.Context) (workload.Outcome, error) {
	n := min(len(wk.ids), wk.total-wk.next)
	ids, got := wk.ids[:n], wk.got[:n]
	for i := range ids {
		ids[i] = wk.slice[(wk.next+i)%len(wk.slice)]
		got[i] = false
	}
	wk.next += n
	err := wk.c.getMany(ctx, ids, func(at int, id, v1 int64, v2 float64) {
		if at >= 0 {
			// the answers come in the order asked: no lookup
			if at >= n || ids[at] != id || got[at] {
				wk.w.miss(fmt.Sprintf("id %d: not asked for", id))
				return
			}
			got[at] = true
			wk.check(id, v1, v2)
			return
		}
		wk.w.answer(&wk.rows, ids, got, id, v1, v2)
	})
	if err != nil {
		return workload.Outcome{}, err
	}
	for i, ok := range got {
		if !ok {
			wk.w.miss(fmt.Sprintf("id %d: no row", ids[i]))
		}
	}
	return workload.Outcome{Reads: int32(n)}, nil
}

func (wk *nativeWorker) check(id, v1 int64, v2 float64) bool {
	return wk.w.checkRow(&wk.rows, id, v1, v2)
}

func (wk *nativeWorker) Abort(ctx context.Context) {}

func (wk *nativeWorker) Counters() map[string]int64 { return map[string]int64{"rows_read": wk.rows} }

func (wk *nativeWorker) Close() error { return wk.c.close() }

// The text value of Redis and memcached: "value1 value2", value2 written
// so that it reads back to the same float64.
func appendValue(b []byte, id int64) []byte {
	b = strconv.AppendInt(b, value1(id), 10)
	b = append(b, ' ')
	return strconv.AppendFloat(b, value2(id), 'g', -1, 64)
}

// parseValue reads "value1 value2" without allocating: it is on every
// read's path.
func parseValue(b []byte) (v1 int64, v2 float64, err error) {
	i := 0
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		i++
	}
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		v1 = v1*10 + int64(b[i]-'0')
	}
	if i == start || i >= len(b)-1 || b[i] != ' ' || i-start > 18 {
		return 0, 0, fmt.Errorf("value %q is not \"value1 value2\"", b)
	}
	if neg {
		v1 = -v1
	}
	rest := b[i+1:]
	if v2, err = strconv.ParseFloat(unsafe.String(&rest[0], len(rest)), 64); err != nil {
		return 0, 0, fmt.Errorf("value %q is not \"value1 value2\"", b)
	}
	return v1, v2, nil
}

func appendKey(b []byte, id int64) []byte {
	return strconv.AppendInt(append(b, "kv:"...), id, 10)
}

// MeanValueBytes is the mean length of the text values of ids 1…rows on
// Redis and memcached: a yardstick that reads its own keys (make bench's
// redis-benchmark) is given values of this size, so both clients move
// the same bytes.
func MeanValueBytes(rows int64) int {
	var b []byte
	total := 0
	for id := int64(1); id <= rows; id++ {
		b = appendValue(b[:0], id)
		total += len(b)
	}
	return int(math.Round(float64(total) / float64(max(rows, 1))))
}
