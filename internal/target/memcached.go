package target

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
			_, err := memcachedAsk(ctx, in.endpoint, "version")
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
	v, err := memcachedAsk(ctx, ep, "version")
	if err != nil {
		return nil, err
	}
	return &nativeProbe{version: strings.TrimPrefix(v[0], "VERSION "),
		settings: func(ctx context.Context) (map[string]string, error) {
			return memcachedStats(ctx, ep, "stats settings")
		},
		dataBytes: func(ctx context.Context) (int64, error) {
			s, err := memcachedStats(ctx, ep, "stats")
			if err != nil {
				return 0, err
			}
			return strconv.ParseInt(s["bytes"], 10, 64)
		}}, nil
}

// memcachedAsk sends one command of the text protocol and returns its
// answer's lines (up to END for stats).
func memcachedAsk(ctx context.Context, ep proto.Endpoint, cmd string) ([]string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, ep.Network, ep.Address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Now().Add(10 * time.Second))
	}
	if _, err := fmt.Fprintf(c, "%s\r\n", cmd); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	var lines []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "ERROR") || strings.HasPrefix(line, "SERVER_ERROR") || strings.HasPrefix(line, "CLIENT_ERROR") {
			return nil, fmt.Errorf("memcached %s: %s", cmd, line)
		}
		if line == "END" {
			return lines, nil
		}
		lines = append(lines, line)
		if !strings.HasPrefix(cmd, "stats") {
			return lines, nil
		}
	}
}

func memcachedStats(ctx context.Context, ep proto.Endpoint, cmd string) (map[string]string, error) {
	lines, err := memcachedAsk(ctx, ep, cmd)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "STAT" {
			out[f[1]] = f[2]
		}
	}
	return out, nil
}
