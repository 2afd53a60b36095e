package target

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"shootout/internal/proto"
)

// NativeExternal is a Redis, Tarantool or memcached server the user runs,
// given by URL: redis://[user]:pass@127.0.0.1:6379[/db],
// tarantool://user:pass@127.0.0.1:3301[?engine=vinyl],
// memcached://127.0.0.1:11211, or ?socket=PATH for a unix socket.
// shootout only connects; the workload writes only where it finds its
// own marker or nothing of anyone's (docs/workloads.md, kv).
type NativeExternal struct {
	ep      proto.Endpoint
	display string
}

func parseNativeExternal(u *url.URL, display string) (*NativeExternal, error) {
	e := &NativeExternal{display: display}
	q := u.Query()
	pass, _ := u.User.Password()
	e.ep = proto.Endpoint{User: u.User.Username(), Password: pass, External: true}
	switch u.Scheme {
	case "redis":
		e.ep.Protocol = proto.Redis
		e.ep.Database = strings.TrimPrefix(u.Path, "/")
	case "tarantool":
		e.ep.Protocol = proto.Tarantool
		e.ep.Engine = q.Get("engine")
		if e.ep.Engine == "" {
			e.ep.Engine = "memtx"
		}
		if e.ep.Engine != "memtx" && e.ep.Engine != "vinyl" {
			return nil, fmt.Errorf("target %s: engine=%s is not memtx or vinyl", display, e.ep.Engine)
		}
		if e.ep.User == "" {
			e.ep.User = "guest"
		}
	case "memcached":
		e.ep.Protocol = proto.Memcached
		if e.ep.User != "" {
			return nil, fmt.Errorf("target %s: memcached's text protocol has no users (SASL is not spoken): give memcached://127.0.0.1:PORT", display)
		}
	}
	if socket := q.Get("socket"); socket != "" {
		e.ep.Network, e.ep.Address = "unix", socket
		return e, nil
	}
	port := u.Port()
	if port == "" {
		port = map[proto.Name]string{proto.Redis: "6379", proto.Tarantool: "3301", proto.Memcached: "11211"}[e.ep.Protocol]
	}
	e.ep.Network, e.ep.Address = "tcp", net.JoinHostPort(u.Hostname(), port)
	return e, nil
}

func (e *NativeExternal) Name() string         { return e.display }
func (e *NativeExternal) Protocol() proto.Name { return e.ep.Protocol }
func (e *NativeExternal) Engine() string       { return e.ep.Engine }
func (e *NativeExternal) Available() error     { return nil }
func (e *NativeExternal) Embedded() bool       { return false }
func (e *NativeExternal) Managed() bool        { return false }
func (e *NativeExternal) transport() string    { return e.ep.Transport() }

// Start connects and reads the server's version; it starts nothing.
func (e *NativeExternal) Start(ctx context.Context, opt StartOptions) (Instance, error) {
	probe := map[proto.Name]func(context.Context, proto.Endpoint) (*nativeProbe, error){
		proto.Redis: redisProbe, proto.Memcached: memcachedProbe, proto.Tarantool: tarantoolProbe}[e.ep.Protocol]
	p, err := probe(ctx, e.ep)
	if err != nil {
		return nil, fmt.Errorf("target %s: cannot connect: %s", e.display, e.scrub(err))
	}
	if len(opt.Settings) > 0 {
		logf(opt.Log, "note: settings for %s are not applied: shootout does not reconfigure a server it did not start", e.display)
	}
	// Settle does not snapshot a server shootout does not own
	p.settle = nil
	return &externalNativeInstance{e: e, p: p}, nil
}

func (e *NativeExternal) scrub(err error) string {
	if e.ep.Password == "" {
		return err.Error()
	}
	return strings.ReplaceAll(err.Error(), e.ep.Password, "***")
}

type externalNativeInstance struct {
	e *NativeExternal
	p *nativeProbe
}

func (x *externalNativeInstance) Endpoint() proto.Endpoint { return x.e.ep }
func (x *externalNativeInstance) Version(ctx context.Context) (string, error) {
	return x.p.version, nil
}
func (x *externalNativeInstance) Settings(ctx context.Context) (map[string]string, error) {
	return x.p.settings(ctx)
}
func (x *externalNativeInstance) DataBytes(ctx context.Context) (int64, error) {
	return x.p.dataBytes(ctx)
}
func (x *externalNativeInstance) PIDs() []int                                { return nil }
func (x *externalNativeInstance) DataDir() string                            { return "" }
func (x *externalNativeInstance) Applied() map[string]string                 { return nil }
func (x *externalNativeInstance) Settle(ctx context.Context) (string, error) { return "", nil }
func (x *externalNativeInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	return WriteBackResult{Skipped: "external server: nothing written back (shootout does not own it)"}, nil
}
func (x *externalNativeInstance) Stop(ctx context.Context) error {
	if x.p.close != nil {
		x.p.close()
	}
	return nil
}
