package kv

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"shootout/internal/proto"
)

// markerKey says a Redis or memcached server holds kv's rows, written by
// shootout: "loading" while they are, then the number of rows.
const markerKey = "kv:shootout"

type redisStore struct {
	ep    proto.Endpoint
	admin *redis.Client
}

func redisOptions(ep proto.Endpoint) *redis.Options {
	db, _ := strconv.Atoi(ep.Database)
	// one connection per client, as sysbench's threads and
	// redis-benchmark's clients have; RESP2 and no CLIENT SETINFO, so a
	// connection costs the server what redis-benchmark's does
	return &redis.Options{Network: ep.Network, Addr: ep.Address, Username: ep.User, Password: ep.Password, DB: db,
		PoolSize: 1, MaxRetries: -1, Protocol: 2, DisableIdentity: true}
}

func newRedisStore(ep proto.Endpoint) (store, error) {
	return &redisStore{ep: ep, admin: redis.NewClient(redisOptions(ep))}, nil
}

func (s *redisStore) claim(ctx context.Context, rows int64) (bool, error) {
	mark, err := s.admin.Get(ctx, markerKey).Result()
	switch {
	case err == nil && mark == strconv.FormatInt(rows, 10):
		return true, nil
	case errors.Is(err, redis.Nil) && s.ep.External:
		// someone else's keys of the same names would be overwritten
		keys, _, err := s.admin.Scan(ctx, 0, "kv:*", 10000).Result()
		if err != nil {
			return false, err
		}
		if len(keys) > 0 {
			return false, fmt.Errorf("this Redis database holds keys such as %s that shootout did not write (no %s marker): give an empty database, such as redis://…/15", keys[0], markerKey)
		}
	case err != nil && !errors.Is(err, redis.Nil):
		return false, err
	}
	return false, s.admin.Set(ctx, markerKey, "loading", 0).Err()
}

func (s *redisStore) loaded(ctx context.Context, rows int64) error {
	return s.admin.Set(ctx, markerKey, rows, 0).Err()
}

func (s *redisStore) close() error { return s.admin.Close() }

func (s *redisStore) connect(ctx context.Context) (storeClient, error) {
	c := redis.NewClient(redisOptions(s.ep))
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, err
	}
	return &redisClient{c: c}, nil
}

type redisClient struct {
	c   *redis.Client
	key []byte
	// cmds are the pipeline's GETs, kept between batches
	cmds []*redis.StringCmd
}

func (r *redisClient) close() error { return r.c.Close() }

// put writes a batch with one MSET.
func (r *redisClient) put(ctx context.Context, first, last int64) error {
	args := make([]any, 0, 2*(last-first+1))
	for id := first; id <= last; id++ {
		args = append(args, string(appendKey(nil, id)), string(appendValue(nil, id)))
	}
	return r.c.MSet(ctx, args...).Err()
}

func (r *redisClient) get(ctx context.Context, id int64) (int64, float64, bool, error) {
	r.key = appendKey(r.key[:0], id)
	b, err := r.c.Get(ctx, string(r.key)).Bytes()
	if errors.Is(err, redis.Nil) {
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
func (r *redisClient) getMany(ctx context.Context, ids []int64, found func(id, v1 int64, v2 float64)) error {
	p := r.c.Pipeline()
	r.cmds = r.cmds[:0]
	for _, id := range ids {
		r.key = appendKey(r.key[:0], id)
		r.cmds = append(r.cmds, p.Get(ctx, string(r.key)))
	}
	if _, err := p.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for i, cmd := range r.cmds {
		b, err := cmd.Bytes()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return err
		}
		v1, v2, err := parseValue(b)
		if err != nil {
			return err
		}
		found(ids[i], v1, v2)
	}
	return nil
}
