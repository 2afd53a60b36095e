package kv

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"

	"github.com/redis/rueidis"

	"shootout/internal/proto"
	"shootout/internal/rawsock"
)

// markerKey says a Redis or memcached server holds kv's rows, written by
// shootout: "loading" while they are, then the number of rows.
const markerKey = "kv:shootout"

type redisStore struct {
	ep    proto.Endpoint
	admin rueidis.Client
}

// redisClient is one connection to ep: rueidis (measured here at 9.4-9.8
// µs of client CPU per GET against go-redis's 12.2-12.3, 50 connections
// on one private server) with its auto-pipelining off, so each client is
// one connection that waits for its answer, as redis-benchmark's are, and
// RESP2 with no client-side cache.
func redisClient(ep proto.Endpoint) (rueidis.Client, error) {
	db, _ := strconv.Atoi(ep.Database)
	return rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{ep.Address}, Username: ep.User, Password: ep.Password, SelectDB: db,
		DisableCache: true, AlwaysRESP2: true, DisableAutoPipelining: true, DisableRetry: true,
		ReadBufferEachConn: 64 << 10, WriteBufferEachConn: 64 << 10,
		DialCtxFn: func(ctx context.Context, addr string, d *net.Dialer, _ *tls.Config) (net.Conn, error) {
			c, err := d.DialContext(ctx, ep.Network, addr)
			if err != nil {
				return nil, err
			}
			return rawsock.Wrap(c), nil
		}})
}

func newRedisStore(ep proto.Endpoint) (store, error) {
	c, err := redisClient(ep)
	if err != nil {
		return nil, err
	}
	return &redisStore{ep: ep, admin: c}, nil
}

func (s *redisStore) claim(ctx context.Context, rows int64) (bool, error) {
	c := s.admin
	mark, err := c.Do(ctx, c.B().Get().Key(markerKey).Build()).ToString()
	switch {
	case err == nil && mark == strconv.FormatInt(rows, 10):
		return true, nil
	case rueidis.IsRedisNil(err) && s.ep.External:
		// someone else's keys of the same names would be overwritten
		for cursor := uint64(0); ; {
			e, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match("kv:*").Count(10000).Build()).AsScanEntry()
			if err != nil {
				return false, err
			}
			if len(e.Elements) > 0 {
				return false, fmt.Errorf("this Redis database holds keys such as %s that shootout did not write (no %s marker): give an empty database, such as redis://…/15", e.Elements[0], markerKey)
			}
			if cursor = e.Cursor; cursor == 0 {
				break
			}
		}
	case err != nil && !rueidis.IsRedisNil(err):
		return false, err
	}
	return false, c.Do(ctx, c.B().Set().Key(markerKey).Value("loading").Build()).Error()
}

func (s *redisStore) loaded(ctx context.Context, rows int64) error {
	return s.admin.Do(ctx, s.admin.B().Set().Key(markerKey).Value(strconv.FormatInt(rows, 10)).Build()).Error()
}

func (s *redisStore) close() error {
	s.admin.Close()
	return nil
}

func (s *redisStore) connect(ctx context.Context) (storeClient, error) {
	c, err := redisClient(s.ep)
	if err != nil {
		return nil, err
	}
	return &redisConn{c: c, ep: s.ep, ctx: ctx}, nil
}

type redisConn struct {
	c   rueidis.Client
	key []byte
	// pipe is the batch path's connection, opened at its first batch
	pipe *respPipe
	ep   proto.Endpoint
	ctx  context.Context
}

func (r *redisConn) close() error {
	if r.pipe != nil {
		r.pipe.close()
	}
	r.c.Close()
	return nil
}

// put writes a batch with one MSET.
func (r *redisConn) put(ctx context.Context, first, last int64) error {
	b := r.c.B().Mset().KeyValue()
	for id := first; id <= last; id++ {
		b = b.KeyValue(string(appendKey(nil, id)), string(appendValue(nil, id)))
	}
	return r.c.Do(ctx, b.Build()).Error()
}

func (r *redisConn) get(ctx context.Context, id int64) (int64, float64, bool, error) {
	r.key = appendKey(r.key[:0], id)
	b, err := r.c.Do(ctx, r.c.B().Get().Key(string(r.key)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	v1, v2, err := parseValue(b)
	return v1, v2, err == nil, err
}

// getMany pipelines one GET per id: redis-benchmark -P's batches, the
// same commands as the single get.
func (r *redisConn) getMany(ctx context.Context, ids []int64, found func(at int, id, v1 int64, v2 float64)) error {
	if r.pipe == nil {
		p, err := dialRESP(r.ctx, r.ep)
		if err != nil {
			return err
		}
		r.pipe = p
	}
	return r.pipe.getMany(ids, found)
}
