package kv

import (
	"context"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/rueidis"
	"github.com/tarantool/go-tarantool/v3"

	"shootout/internal/proto"
)

// The protocols' clients as kv's reads use them (rawsock sockets, one
// connection per client, no pipelining or client-side cache), for other
// workloads that must measure the same client: ping's round-trip floor.

// RedisClient is one connection to the Redis server at ep.
func RedisClient(ep proto.Endpoint) (rueidis.Client, error) { return redisClient(ep) }

// MemcachedClient is a client of the memcached server at ep.
func MemcachedClient(ep proto.Endpoint) *memcache.Client { return memcachedClient(ep) }

// TarantoolConnect is one connection to the Tarantool server at ep.
func TarantoolConnect(ctx context.Context, ep proto.Endpoint) (*tarantool.Connection, error) {
	return tarantoolConnect(ctx, ep)
}
