package target

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"shootout/internal/proto"
)

// Redis is a private redis-server: no persistence (the seed's reads need
// none and a snapshot would only add writes), a generated password, a
// unix socket in its own directory and no TCP port at all.
type Redis struct{}

func (Redis) Name() string         { return "redis" }
func (Redis) Protocol() proto.Name { return proto.Redis }
func (Redis) Engine() string       { return "" }
func (Redis) Embedded() bool       { return false }
func (Redis) Managed() bool        { return true }
func (Redis) Available() error {
	_, err := nativeBinary("redis-server", "redis-server")
	return err
}

// redisLinked is the allocator Debian's redis-server is linked with.
const redisLinked = "jemalloc"

func (r Redis) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	in, bin, lib, err := prepareNative(opt, nativeSpec{server: "redis-server", pkg: "redis-server", dir: "redis", kind: "redis", dashed: true, linked: redisLinked})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeServerDir(in.dir, opt.KeepData)
		}
	}()
	sock, pw := filepath.Join(in.dir, "redis.sock"), password()
	in.endpoint = proto.Endpoint{Protocol: proto.Redis, Network: "unix", Address: sock, Password: pw}
	ep := in.endpoint
	ready := func(ctx context.Context) error {
		c, err := redisAdmin(ep)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Do(ctx, c.B().Ping().Build()).Error()
	}
	// "-": the password comes in a config file on stdin, not on the
	// command line every user of the machine can read; port 0: no TCP
	args := append([]string{"-", "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700", "--bind", "127.0.0.1",
		"--dir", in.dataDir, "--logfile", in.logFile, "--save", "", "--appendonly", "no", "--daemonize", "no",
		"--protected-mode", "yes", "--maxclients", "10000"}, settingArgs(in.applied)...)
	err = startNative(ctx, opt, in, nativeStart{name: "redis-server", binary: bin, args: args, ready: ready,
		stdin: "requirepass " + pw + "\n"}, lib)
	if err != nil {
		return nil, err
	}
	if err := in.probe(ctx, redisProbe); err != nil {
		in.Stop(ctx)
		return nil, err
	}
	return in, nil
}

// redisAdmin is a client for the probe: rueidis, as kv's clients.
func redisAdmin(ep proto.Endpoint) (rueidis.Client, error) {
	db, _ := strconv.Atoi(ep.Database)
	return rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{ep.Address}, Username: ep.User, Password: ep.Password, SelectDB: db,
		DisableCache: true, AlwaysRESP2: true, DisableRetry: true,
		DialCtxFn: func(ctx context.Context, addr string, d *net.Dialer, _ *tls.Config) (net.Conn, error) {
			return d.DialContext(ctx, ep.Network, addr)
		}})
}

// redisProbe reads a Redis server's version, settings and data size.
func redisProbe(ctx context.Context, ep proto.Endpoint) (*nativeProbe, error) {
	c, err := redisAdmin(ep)
	if err != nil {
		return nil, err
	}
	info, err := c.Do(ctx, c.B().Info().Section("server").Build()).ToString()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("redis INFO: %w", err)
	}
	return &nativeProbe{version: RedisInfo(info)["redis_version"], close: c.Close,
		settings: func(ctx context.Context) (map[string]string, error) {
			m, err := c.Do(ctx, c.B().ConfigGet().Parameter("*").Build()).AsStrMap()
			if err != nil {
				return nil, err
			}
			delete(m, "requirepass")
			delete(m, "masterauth")
			return m, nil
		},
		dataBytes: func(ctx context.Context) (int64, error) {
			info, err := c.Do(ctx, c.B().Info().Section("memory").Build()).ToString()
			if err != nil {
				return 0, err
			}
			return strconv.ParseInt(RedisInfo(info)["used_memory_dataset"], 10, 64)
		}}, nil
}

// RedisInfo reads INFO's "key:value" lines.
func RedisInfo(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}
