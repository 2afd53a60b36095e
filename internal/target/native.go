package target

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"shootout/internal/proto"
)

// The native key-value servers (Redis, memcached, Tarantool) are started
// like MariaDB: a directory of their own, loopback only (a unix socket in
// that directory, or 127.0.0.1 on a free port), inside the cell's cgroups,
// stopped by PID and swept the same way.

// nativeInstance is a running native server.
type nativeInstance struct {
	managed
	endpoint proto.Endpoint
	logFile  string
	version  string
	// settings reads every setting the server reports
	settings func(ctx context.Context) (map[string]string, error)
	// dataBytes is what the server says its data takes
	dataBytes func(ctx context.Context) (int64, error)
	// settle writes a snapshot where the server keeps one (Tarantool)
	settle func(ctx context.Context) (string, error)
	// onStop runs before the process is signalled (clients closed)
	onStop func()
}

func (in *nativeInstance) Endpoint() proto.Endpoint { return in.endpoint }
func (in *nativeInstance) Death() string            { return in.death(in.logFile) }
func (in *nativeInstance) Version(ctx context.Context) (string, error) {
	return in.version, nil
}
func (in *nativeInstance) Settings(ctx context.Context) (map[string]string, error) {
	s, err := in.settings(ctx)
	if err != nil {
		return nil, err
	}
	// the allocator is shootout's to apply, and shows in the settings
	// as for MariaDB's malloc_lib
	for _, k := range []string{MallocSetting, "malloc_lib_mapped"} {
		if v, ok := in.applied[k]; ok {
			s[k] = v
		}
	}
	return s, nil
}
func (in *nativeInstance) DataBytes(ctx context.Context) (int64, error) { return in.dataBytes(ctx) }

func (in *nativeInstance) Settle(ctx context.Context) (string, error) {
	if in.settle == nil {
		return "", nil
	}
	return in.settle(ctx)
}

// WriteBack writes what the server holds dirty: nothing for a server that
// keeps no files; Tarantool's snapshot is its Settle, and its WAL is
// written as it goes.
func (in *nativeInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	return WriteBackResult{}, nil
}

// nativeProbe is what a protocol's client reads from a running server.
type nativeProbe struct {
	version   string
	settings  func(ctx context.Context) (map[string]string, error)
	dataBytes func(ctx context.Context) (int64, error)
	settle    func(ctx context.Context) (string, error)
	close     func()
}

// probe connects the instance's own client by the protocol's probe.
func (in *nativeInstance) probe(ctx context.Context, probe func(context.Context, proto.Endpoint) (*nativeProbe, error)) error {
	p, err := probe(ctx, in.endpoint)
	if err != nil {
		return err
	}
	in.version, in.settings, in.dataBytes, in.settle, in.onStop = p.version, p.settings, p.dataBytes, p.settle, p.close
	return nil
}

func (in *nativeInstance) Stop(ctx context.Context) error {
	if in.onStop != nil {
		in.onStop()
	}
	return in.shutdown(syscall.SIGTERM)
}

// nativeStart is what a native target gives startNative.
type nativeStart struct {
	name, binary string
	// args is the server's command line: it listens on a unix socket in
	// its directory, so no port can be taken from under it
	args []string
	env  []string
	// stdin is written to the server's standard input (a secret that
	// must not be on its command line)
	stdin string
	// ready succeeds once the server answers its protocol
	ready func(ctx context.Context) error
}

// startNative starts the server under opt's wrap with the allocator the
// settings ask for, and proves the allocator from its memory map.
func startNative(ctx context.Context, opt StartOptions, in *nativeInstance, s nativeStart, malloc string) error {
	cmd := ServerCmd(nil, s.binary, s.args...)
	cmd.Dir = in.dir
	cmd.Env = append(os.Environ(), s.env...)
	if malloc != "" {
		cmd.Env = append(cmd.Env, "LD_PRELOAD="+malloc)
	}
	if log, err := os.OpenFile(in.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		// a server that logs to stdout (memcached) logs here
		cmd.Stdout, cmd.Stderr = log, log
		defer log.Close()
	}
	if s.stdin != "" {
		cmd.Stdin = strings.NewReader(s.stdin)
	}
	if opt.Wrap != nil {
		if err := opt.Wrap(cmd); err != nil {
			return err
		}
	}
	var err error
	if in.proc, err = StartProcess(cmd); err != nil {
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	logf(opt.Log, "started %s (pid %d, %s, dir %s)", s.name, in.proc.PID(), in.endpoint.Address, in.dir)
	if err := in.proc.waitReady(ctx, s.ready, s.name, in.logFile); err != nil {
		in.proc.Stop(syscall.SIGKILL, 5*time.Second)
		return err
	}
	in.applied["malloc_lib_mapped"] = mappedAllocator(in.proc.PID())
	if err := checkMapped(in.applied[MallocSetting], in.applied["malloc_lib_mapped"]); err != nil {
		in.proc.Stop(syscall.SIGKILL, 5*time.Second)
		return err
	}
	return nil
}

// mappedAllocator proves which allocator a process runs on: the library
// of lib's name in its /proc/PID/maps, or that none is there.
func mappedAllocator(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return "unknown: " + err.Error()
	}
	var found []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		path := f[5]
		for _, lib := range []string{"libjemalloc", "libtcmalloc"} {
			if strings.Contains(path, lib) && !slices.Contains(found, path) {
				found = append(found, path)
			}
		}
	}
	if len(found) == 0 {
		return "glibc (no jemalloc or tcmalloc mapped)"
	}
	return strings.Join(found, ", ")
}

// nativeBinary finds a server program or says which package has it.
func nativeBinary(name, pkg string) (string, error) {
	for _, p := range []string{"/usr/bin/" + name, "/usr/sbin/" + name, "/usr/local/bin/" + name} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found; fix: apt-get install -y %s", name, pkg)
}

// settingArgs turns plan settings into --key value arguments, the
// allocator left out (shootout applies it).
func settingArgs(settings map[string]string, skip ...string) []string {
	var out []string
	for _, k := range slicesSorted(settings) {
		if k == MallocSetting || slices.Contains(skip, k) {
			continue
		}
		out = append(out, "--"+strings.ReplaceAll(k, "_", "-"), settings[k])
	}
	return out
}

// nativeMalloc resolves the allocator of a server that may link one
// itself (redis-server links jemalloc): that one is its default, and
// glibc's cannot be put under it by LD_PRELOAD.
func nativeMalloc(server, linked string, settings map[string]string) (name, lib string, err error) {
	v, asked := settings[MallocSetting]
	switch {
	case !asked && linked != "":
		return linked, "", nil
	case asked && v == linked:
		return linked, "", nil
	case asked && linked != "" && (v == "system" || v == "glibc"):
		return "", "", fmt.Errorf("%s links %s itself: glibc's malloc cannot be put under it (use %s or tcmalloc)", server, linked, linked)
	}
	return mallocFor("", settings)
}

func slicesSorted(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// nativeSpec is what prepareNative needs of a native target.
type nativeSpec struct {
	server, pkg string // the program and its Debian package
	dir         string // the server directory's prefix
	kind        string // sizeNative's rule
	dashed      bool   // settings are named with dashes (redis, memcached)
	linked      string // the allocator the program links itself, if any
}

// prepareNative finds the program, makes the server's directory and its
// instance with the memory rule's settings, the plan's on top and the
// allocator resolved; the caller removes in.dir if its start then fails.
func prepareNative(opt StartOptions, s nativeSpec) (in *nativeInstance, bin, lib string, err error) {
	if bin, err = nativeBinary(s.server, s.pkg); err != nil {
		return nil, "", "", err
	}
	dir, err := makeServerDir(opt, s.dir)
	if err != nil {
		return nil, "", "", err
	}
	// data/ under the server's directory, as MariaDB's: the ledger and
	// the sweep take the directory above the data as the server's own
	in = &nativeInstance{managed: managed{dir: dir, keep: opt.KeepData, dataDir: filepath.Join(dir, "data"), applied: map[string]string{}},
		logFile: filepath.Join(dir, s.server+".log")}
	fail := func(err error) (*nativeInstance, string, string, error) {
		removeServerDir(dir, opt.KeepData)
		return nil, "", "", err
	}
	if err := os.Mkdir(in.dataDir, 0o700); err != nil {
		return fail(err)
	}
	if opt.MemoryBudget > 0 {
		plan, err := sizeNative(s.kind, opt.MemoryBudget, opt.Clients)
		if err != nil {
			return fail(err)
		}
		logf(opt.Log, "%s", plan)
		in.applied = plan.Settings
	}
	for k, v := range opt.Settings {
		if k == MallocSetting {
			continue
		}
		if s.dashed {
			k = strings.ReplaceAll(k, "_", "-")
		}
		in.applied[k] = v
	}
	malloc, lib, err := nativeMalloc(s.server, s.linked, opt.Settings)
	if err != nil {
		return fail(err)
	}
	in.applied[MallocSetting] = malloc
	return in, bin, lib, nil
}
