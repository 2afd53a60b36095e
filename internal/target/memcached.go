package target

import (
	"context"
	"fmt"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"shootout/internal/proto"
)

// Memcached is a private memcached on a unix socket in its own directory
// (memcached then opens no TCP port), with evictions off: a read that
// finds its item gone would be a wrong answer, not a fast one.
type Memcached struct{}

func (Memcached) Name() string         { return "memcached" }
func (Memcached) Protocol() proto.Name { return proto.Memcached }
func (Memcached) Engine() string       { return "" }
func (Memcached) Embedded() bool       { return false }
func (Memcached) Managed() bool        { return true }
func (Memcached) Available() error {
	_, err := nativeBinary("memcached", "memcached")
	return err
}

func (Memcached) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	in, bin, lib, err := prepareNative(opt, nativeSpec{server: "memcached", pkg: "memcached", dir: "memcached", kind: "memcached", dashed: true})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeServerDir(in.dir, opt.KeepData)
		}
	}()
	sock := filepath.Join(in.dir, "memcached.sock")
	in.endpoint = proto.Endpoint{Protocol: proto.Memcached, Network: "unix", Address: sock}
	me, err := user.Current()
	if err != nil {
		return nil, err
	}
	// --user: memcached refuses to run as root without naming a user
	args := []string{"--unix-socket=" + sock, "--unix-mask=700", "--user=" + me.Username,
		"--disable-evictions", "--conn-limit=10000", "--udp-port=0"}
	for _, k := range slicesSorted(in.applied) {
		if k != MallocSetting {
			args = append(args, fmt.Sprintf("--%s=%s", k, in.applied[k]))
		}
	}
	err = startNative(ctx, opt, in, nativeStart{name: "memcached", binary: bin, args: args,
		ready: func(ctx context.Context) error {
			_, err := proto.MemcachedAsk(ctx, in.endpoint, "version")
			return err
		}}, lib)
	if err != nil {
		return nil, err
	}
	if err := in.probe(ctx, memcachedProbe); err != nil {
		in.Stop(ctx)
		return nil, err
	}
	return in, nil
}

// memcachedProbe reads a memcached's version, settings and data size.
func memcachedProbe(ctx context.Context, ep proto.Endpoint) (*nativeProbe, error) {
	v, err := proto.MemcachedAsk(ctx, ep, "version")
	if err != nil {
		return nil, err
	}
	return &nativeProbe{version: strings.TrimPrefix(v[0], "VERSION "),
		settings: func(ctx context.Context) (map[string]string, error) {
			return proto.MemcachedStats(ctx, ep, "stats settings")
		},
		dataBytes: func(ctx context.Context) (int64, error) {
			s, err := proto.MemcachedStats(ctx, ep, "stats")
			if err != nil {
				return 0, err
			}
			return strconv.ParseInt(s["bytes"], 10, 64)
		}}, nil
}
