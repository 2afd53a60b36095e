package target

import (
	"fmt"
	"os"
	"strings"
)

// MallocSetting is the per-target setting that picks the server's memory
// allocator, named after mariadbd-safe's --malloc-lib. shootout consumes it
// (LD_PRELOAD) instead of passing it to the server; the server's own
// version_malloc_library then shows in the cell's settings.
const MallocSetting = "malloc_lib"

// mallocLibs are the allocators Debian packages, by the name a plan uses.
var mallocLibs = map[string]struct{ path, pkg string }{
	"jemalloc": {"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "libjemalloc2"},
	"tcmalloc": {"/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", "libtcmalloc-minimal4"},
}

// defaultMalloc is the allocator an engine runs on unless the plan says
// otherwise. MyRocks is built and run on jemalloc by its authors; on
// glibc's malloc its memory grew here to 2.4× its block cache (13 clients,
// 512M cap: 507 MB anonymous against 96 MB of server, 212 MB of cache and
// 8 MB of memtables by RocksDB's own count) until the OOM killer stopped
// it, where jemalloc stayed at 296 MB. The other engines keep Debian's
// build as it is (glibc).
func defaultMalloc(engine string) string {
	if engine == "rocksdb" {
		return "jemalloc"
	}
	return "system"
}

// mallocFor resolves the allocator of a MariaDB engine under the plan's
// settings: its name and the library to preload ("" for the system's).
func mallocFor(engine string, settings map[string]string) (name, lib string, err error) {
	name = defaultMalloc(engine)
	if v, ok := settings[MallocSetting]; ok {
		name = v
	}
	switch {
	case name == "system" || name == "glibc":
		return "system", "", nil
	case mallocLibs[name].path != "":
		m := mallocLibs[name]
		if _, err := os.Stat(m.path); err != nil {
			return name, "", fmt.Errorf("%s (%s) not found; fix: apt-get install -y %s, or set %s=system", name, m.path, m.pkg, MallocSetting)
		}
		return name, m.path, nil
	case strings.HasPrefix(name, "/"):
		if _, err := os.Stat(name); err != nil {
			return name, "", fmt.Errorf("%s %s: %v", MallocSetting, name, err)
		}
		return name, name, nil
	}
	return name, "", fmt.Errorf("%s %q: use system, jemalloc, tcmalloc or a library's absolute path", MallocSetting, name)
}

// TakesAllocator is nil when shootout can put allocator (glibc, jemalloc
// or tcmalloc) under t's server, else why not.
func TakesAllocator(t Target, allocator string) error {
	settings := map[string]string{MallocSetting: allocator}
	switch t := t.(type) {
	case MariaDB:
		_, _, err := mallocFor(t.Engine, settings)
		return err
	case Redis:
		_, _, err := nativeMalloc("redis-server", redisLinked, settings)
		return err
	case Memcached, Tarantool:
		_, _, err := nativeMalloc(t.Name(), "", settings)
		return err
	}
	switch {
	case t.Embedded():
		return fmt.Errorf("%s runs inside shootout's own process: no allocator can be put under it alone", t.Name())
	case !t.Managed():
		return fmt.Errorf("%s is a server shootout does not start", t.Name())
	}
	return fmt.Errorf("shootout puts no allocator under %s", t.Name())
}

// checkMapped proves the allocator asked for is the one the process runs
// on, from what /proc/PID/maps shows mapped.
func checkMapped(name, mapped string) error {
	want := map[string]string{"jemalloc": "libjemalloc", "tcmalloc": "libtcmalloc"}[name]
	switch {
	case want != "" && !strings.Contains(mapped, want):
		return fmt.Errorf("allocator %s asked for, but the server's /proc/PID/maps shows %s", name, mapped)
	case name == "system" && strings.Contains(mapped, "libtcmalloc"):
		return fmt.Errorf("glibc's allocator asked for, but the server's /proc/PID/maps shows %s", mapped)
	}
	return nil
}
