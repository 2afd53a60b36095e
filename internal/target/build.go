package target

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"

	"shootout/internal/child"
)

// Build names the server program a managed target would start — its path
// and the first line of its --version — and Transport how shootout's
// clients reach it. Both belong to a cell's identity: an upgraded server or
// a socket instead of TCP changes the figures, so --resume and compare must
// see the difference. External servers give no build before they are
// reached (their version is recorded in the cell's target once they are).
func Build(t Target) (build, transport string) {
	switch t := t.(type) {
	case MariaDB:
		server, _, err := t.binaries()
		if err != nil {
			return "", "tcp 127.0.0.1"
		}
		b := versionOf(server, "--version")
		if t.Engine == "rocksdb" {
			if dir, ok := t.pluginDir(); ok {
				b += " + " + filepath.Join(dir, "ha_rocksdb.so")
			}
		}
		// the allocator a plan does not choose is part of the build
		if name, lib, err := mallocFor(t.Engine, nil); err == nil && lib != "" {
			b += " + " + name + " (" + lib + ")"
		}
		return b, "tcp 127.0.0.1"
	case Galera:
		server, _, err := mariadbBinaries()
		if err != nil {
			return "", "tcp 198.18.0.0/15 (veth)"
		}
		return versionOf(server, "--version") + " + " + GaleraProvider, "tcp 198.18.0.0/15 (veth)"
	case Postgres:
		dir, err := postgresBinDir()
		if err != nil {
			return "", "tcp 127.0.0.1"
		}
		return versionOf(filepath.Join(dir, "postgres"), "--version"), "tcp 127.0.0.1"
	case Spider:
		server, _, err := mariadbBinaries()
		if err != nil {
			return "", "tcp 198.18.0.0/15 (veth)"
		}
		return versionOf(server, "--version") + " + " + filepath.Join(spiderPluginDir(), "ha_spider.so"), "tcp 198.18.0.0/15 (veth)"
	case PgSync:
		dir, err := postgresBinDir()
		if err != nil {
			return "", "tcp 198.18.0.0/15 (veth)"
		}
		return versionOf(filepath.Join(dir, "postgres"), "--version"), "tcp 198.18.0.0/15 (veth)"
	case SQLite:
		v, _, _ := sqlite3.Version()
		return "libsqlite3 " + v + " (go-sqlite3, in the shootout process)", "in-process"
	case Redis:
		if bin, err := nativeBinary("redis-server", "redis-server"); err == nil {
			return versionOf(bin, "--version"), "unix socket"
		}
	case Memcached:
		if bin, err := nativeBinary("memcached", "memcached"); err == nil {
			return versionOf(bin, "--version"), "unix socket"
		}
	case Tarantool:
		if bin, err := nativeBinary("tarantool", "tarantool"); err == nil {
			return versionOf(bin, "--version"), "unix socket"
		}
	case *External:
		return "", t.transport()
	case *NativeExternal:
		return "", t.transport()
	}
	return "", ""
}

var versions sync.Map // program path -> "path: version line"

func versionOf(path string, arg string) string {
	if v, ok := versions.Load(path); ok {
		return v.(string)
	}
	out, err := child.Output(exec.Command(path, arg))
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil || line == "" {
		line = "version unknown"
	}
	v := path + ": " + line
	versions.Store(path, v)
	return v
}
