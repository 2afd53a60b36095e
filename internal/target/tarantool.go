package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tarantool/go-tarantool/v3"

	"shootout/internal/proto"
)

// Tarantool is a private tarantool with one storage engine for the
// workload's spaces: memtx (in memory, the default) or vinyl (an LSM on
// disk). It listens on a unix socket in its own directory; a generated
// password guards a user of its own.
type Tarantool struct{ Storage string }

func (t Tarantool) Name() string         { return "tarantool-" + t.Storage }
func (t Tarantool) Protocol() proto.Name { return proto.Tarantool }
func (t Tarantool) Engine() string       { return t.Storage }
func (Tarantool) Embedded() bool         { return false }
func (Tarantool) Managed() bool          { return true }
func (Tarantool) Available() error {
	_, err := nativeBinary("tarantool", "tarantool")
	return err
}

// tarantoolInit configures the server from box.cfg settings and makes the
// benchmark user; the password comes from the environment, never the
// command line.
const tarantoolInit = `local pw = os.getenv('SHOOTOUT_TARANTOOL_PASSWORD')
box.cfg{%s}
box.once('shootout-user', function()
  box.schema.user.create('shootout', {password = pw})
  box.schema.user.grant('shootout', 'read,write,execute,create,drop,alter', 'universe')
end)
`

func (t Tarantool) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	in, bin, lib, err := prepareNative(opt, nativeSpec{server: "tarantool", pkg: "tarantool", dir: t.Name(), kind: "tarantool-" + t.Storage})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeServerDir(in.dir, opt.KeepData)
		}
	}()
	dir := in.dir
	sock, pw := filepath.Join(dir, "tarantool.sock"), password()
	in.endpoint = proto.Endpoint{Protocol: proto.Tarantool, Network: "unix", Address: sock, User: "shootout", Password: pw, Engine: t.Storage}
	cfg := []string{"listen = " + luaString("unix/:"+sock), "memtx_dir = " + luaString(in.dataDir),
		"wal_dir = " + luaString(in.dataDir), "vinyl_dir = " + luaString(in.dataDir), "background = false"}
	for _, k := range slicesSorted(in.applied) {
		if k == MallocSetting {
			continue
		}
		cfg = append(cfg, k+" = "+luaValue(in.applied[k]))
	}
	initFile := filepath.Join(dir, "init.lua")
	if err := os.WriteFile(initFile, []byte(fmt.Sprintf(tarantoolInit, strings.Join(cfg, ", "))), 0o600); err != nil {
		return nil, err
	}
	ep := in.endpoint
	ready := func(ctx context.Context) error {
		c, err := tarantoolConnect(ctx, ep)
		if err == nil {
			c.Close()
		}
		return err
	}
	err = startNative(ctx, opt, in, nativeStart{name: "tarantool", binary: bin, args: []string{initFile},
		env: []string{"SHOOTOUT_TARANTOOL_PASSWORD=" + pw}, ready: ready}, lib)
	if err != nil {
		return nil, err
	}
	if err := in.probe(ctx, tarantoolProbe); err != nil {
		in.Stop(ctx)
		return nil, err
	}
	return in, nil
}

func tarantoolConnect(ctx context.Context, ep proto.Endpoint) (*tarantool.Connection, error) {
	addr := ep.Address
	if ep.Network == "unix" {
		addr = "unix/:" + addr
	}
	return tarantool.Connect(ctx, tarantool.NetDialer{Address: addr, User: ep.User, Password: ep.Password}, tarantool.Opts{Timeout: 30 * time.Second})
}

// tarantoolProbe reads a Tarantool's version, box.cfg and data size, and
// writes its snapshot to settle.
func tarantoolProbe(ctx context.Context, ep proto.Endpoint) (*nativeProbe, error) {
	conn, err := tarantoolConnect(ctx, ep)
	if err != nil {
		return nil, err
	}
	eval := func(ctx context.Context, expr string) ([]any, error) {
		return conn.Do(tarantool.NewEvalRequest(expr).Context(ctx)).Get()
	}
	v, err := eval(ctx, "return box.info.version")
	if err != nil || len(v) == 0 {
		conn.Close()
		return nil, fmt.Errorf("tarantool box.info.version: %v", err)
	}
	p := &nativeProbe{version: fmt.Sprint(v[0]), close: func() { conn.Close() }}
	p.settings = func(ctx context.Context) (map[string]string, error) {
		r, err := eval(ctx, "local t = {} for k, v in pairs(box.cfg) do t[k] = tostring(v) end return t")
		if err != nil || len(r) == 0 {
			return nil, fmt.Errorf("tarantool box.cfg: %v", err)
		}
		out := map[string]string{}
		switch m := r[0].(type) {
		case map[any]any:
			for k, v := range m {
				out[fmt.Sprint(k)] = fmt.Sprint(v)
			}
		case map[string]any:
			for k, v := range m {
				out[k] = fmt.Sprint(v)
			}
		}
		return out, nil
	}
	p.dataBytes = func(ctx context.Context) (int64, error) {
		// memtx: the tuples and every index; vinyl: its indexes' bytes
		r, err := eval(ctx, tarantoolBsize)
		if err != nil || len(r) == 0 {
			return 0, fmt.Errorf("tarantool bsize: %v", err)
		}
		return strconv.ParseInt(fmt.Sprint(r[0]), 10, 64)
	}
	p.settle = func(ctx context.Context) (string, error) {
		if _, err := eval(ctx, "box.snapshot()"); err != nil {
			return "", fmt.Errorf("box.snapshot(): %w", err)
		}
		return "", nil
	}
	return p, nil
}

// tarantoolBsize sums the user spaces' bytes (ids from 512).
const tarantoolBsize = `local n = 0
for _, s in box.space._space:pairs() do
  local sp = box.space[s[3]]
  if s[1] >= 512 and sp ~= nil then
    if sp.engine == 'memtx' then n = n + sp:bsize() end
    for k, i in pairs(sp.index) do if type(k) == 'number' then n = n + i:bsize() end end
  end
end
return n`

func luaString(s string) string { return strconv.Quote(s) }

// luaValue writes a setting as Lua: numbers and booleans as they are,
// anything else as a string.
func luaValue(v string) string {
	if _, err := strconv.ParseFloat(v, 64); err == nil || v == "true" || v == "false" {
		return v
	}
	return luaString(v)
}
