// Package ping is each server's round-trip floor: one request that does
// no work per operation (SELECT 1 on SQL, PING on Redis and Tarantool,
// version on memcached), through the same clients the other workloads
// use. What any other operation costs on a server is read against it.
package ping

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tarantool/go-tarantool/v3"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/workload"
	"shootout/internal/workload/kv"
)

func init() {
	workload.Register(workload.Spec{Name: "ping",
		Description: "each server's round-trip floor: SELECT 1 on SQL, PING on Redis and Tarantool, version on memcached",
		// no parameters: the declaration refuses any
		New: func(workload.Values) (workload.Workload, error) { return Workload{}, nil }})
}

// Workload has no data: nothing to load, nothing to check but the answers.
type Workload struct{}

// InAgents: a ping's worker is its connection alone.
func (Workload) InAgents(int) error { return nil }

func (Workload) Name() string           { return "ping" }
func (Workload) Description() string    { return workload.Describe("ping") }
func (Workload) Ops() []string          { return []string{"ping"} }
func (Workload) DefaultDataset() string { return "none" }

// Dataset is "none": ping reads and writes nothing.
func (Workload) Dataset(spec string, seed int64) (workload.Dataset, error) {
	if spec != "" && spec != "none" {
		return workload.Dataset{}, fmt.Errorf("workload ping has no dataset: give --dataset none (or none at all), not %q", spec)
	}
	return workload.Dataset{Name: "none", Seed: seed}, nil
}

func (Workload) Schema(dialect.Dialect, workload.Dataset) []string   { return nil }
func (Workload) PostLoad(dialect.Dialect, workload.Dataset) []string { return nil }

func (Workload) Load(context.Context, *sql.DB, dialect.Dialect, workload.Dataset, workload.Progress) (workload.LoadStats, error) {
	return workload.LoadStats{}, nil
}

func (Workload) Loaded(context.Context, *sql.DB, dialect.Dialect, workload.Dataset) (bool, error) {
	return true, nil
}

func (Workload) Before(context.Context, *sql.DB, dialect.Dialect, workload.Dataset) (workload.State, error) {
	return workload.State{}, nil
}

// Check has nothing to compare: a wrong answer already failed its ping.
func (Workload) Check(context.Context, *sql.DB, dialect.Dialect, workload.Dataset, workload.State, map[string]int64) workload.Invariants {
	return workload.Invariants{OK: true, Checked: []string{"every ping answered as its protocol says"}}
}

// Speaks: every protocol shootout has.
func (Workload) Speaks(proto.Name, dialect.Dialect) error { return nil }

// NewWorker pings over SQL: SELECT 1, its one row checked.
func (Workload) NewWorker(ctx context.Context, conn *sql.Conn, _ dialect.Dialect, _ workload.Dataset, _ int) (workload.Worker, error) {
	return &worker{close: func() error { return nil }, ping: func(ctx context.Context) error {
		var one int
		if err := conn.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			return err
		}
		if one != 1 {
			return fmt.Errorf("SELECT 1 answered %d", one)
		}
		return nil
	}}, nil
}

// Native is ping on a server of a native protocol.
func (Workload) Native(ep proto.Endpoint) (workload.Session, error) {
	switch ep.Protocol {
	case proto.Redis, proto.Memcached, proto.Tarantool:
		return nativeSession{ep}, nil
	}
	return nil, fmt.Errorf("ping does not speak %s", ep.Protocol)
}

// nativeSession is ping's session on a native server: each worker its own client.
type nativeSession struct{ ep proto.Endpoint }

func (nativeSession) Load(context.Context, workload.Dataset, workload.Progress) (workload.LoadStats, error) {
	return workload.LoadStats{}, nil
}
func (nativeSession) Before(context.Context, workload.Dataset) (workload.State, error) {
	return workload.State{}, nil
}
func (s nativeSession) Check(ctx context.Context, ds workload.Dataset, before workload.State, counters map[string]int64) workload.Invariants {
	return Workload{}.Check(ctx, nil, dialect.Dialect{}, ds, before, counters)
}
func (nativeSession) Close() error { return nil }

// NewWorker is one client with a connection of its own, kv's client of
// the protocol.
func (s nativeSession) NewWorker(ctx context.Context, _ workload.Dataset, _ int) (workload.Worker, error) {
	switch s.ep.Protocol {
	case proto.Redis:
		c, err := kv.RedisClient(s.ep)
		if err != nil {
			return nil, err
		}
		ping := c.B().Ping().Build().Pin()
		return &worker{close: func() error { c.Close(); return nil }, ping: func(ctx context.Context) error {
			return c.Do(ctx, ping).Error()
		}}, nil
	case proto.Memcached:
		c := kv.MemcachedClient(s.ep)
		// gomemcache's Ping is memcached's version command
		return &worker{close: c.Close, ping: func(context.Context) error { return c.Ping() }}, nil
	case proto.Tarantool:
		c, err := kv.TarantoolConnect(ctx, s.ep)
		if err != nil {
			return nil, err
		}
		return &worker{close: c.Close, ping: func(ctx context.Context) error {
			_, err := c.Do(tarantool.NewPingRequest().Context(ctx)).Get()
			return err
		}}, nil
	}
	return nil, fmt.Errorf("ping does not speak %s", s.ep.Protocol)
}

// worker does one ping per operation.
type worker struct {
	ping  func(context.Context) error
	close func() error
}

func (w *worker) Do(ctx context.Context) (workload.Outcome, error) {
	if err := w.ping(ctx); err != nil {
		return workload.Outcome{}, err
	}
	return workload.Outcome{Other: 1}, nil
}
func (w *worker) Abort(context.Context)      {}
func (w *worker) Counters() map[string]int64 { return nil }
func (w *worker) Close() error               { return w.close() }

var _ workload.NativeWorkload = Workload{}
