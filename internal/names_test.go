package internal_test

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/target"
	"shootout/internal/workload"
	_ "shootout/internal/workload/all"
)

// The core hands every difference between workloads, targets and
// protocols to their registries: run, plan, report, driver and the
// command import none of the packages below and name none of them. A new
// workload, target or protocol then touches its own package and a
// registry line (docs/adding.md).
var coreDirs = []string{"cmd/shootout", "internal/run", "internal/plan", "internal/report", "internal/driver"}

// forbiddenImports are, per core package, the packages it must not
// import (a path prefix: internal/workload covers every workload).
var forbiddenImports = map[string][]string{
	"cmd/shootout":    {"internal/workload", "internal/target", "internal/dialect", "internal/proto", "internal/app", "internal/metrics"},
	"internal/plan":   {"internal/target", "internal/app", "internal/disk", "internal/limits"},
	"internal/driver": {"internal/dialect"},
	"internal/report": {"internal/workload"},
}

// registryFiles are core files that are registries themselves: their
// names are data, the one place a name belongs.
var registryFiles = map[string]string{
	"internal/plan/studies.go":  "the preset studies: each names the seed's targets and workload",
	"internal/plan/settings.go": "the run's settings: each flag's help, as --help shows it, names the workloads and targets it applies to",
}

// names are the workload, target and protocol names the registries
// hold, as words: a workload family (oltp of oltp_read_write), each part
// of a target's name (mariadb, innodb), the native protocols, the SQL
// flavours.
func names() []string {
	set := map[string]bool{}
	for _, n := range workload.Names() {
		family, _, _ := strings.Cut(n, "_")
		set[family] = true
	}
	for _, n := range target.Names() {
		for _, part := range strings.Split(n, "-") {
			set[part] = true
		}
	}
	for _, p := range []proto.Name{proto.Redis, proto.Tarantool, proto.Memcached} {
		set[string(p)] = true
	}
	for _, f := range []dialect.Flavor{dialect.MySQL, dialect.Postgres, dialect.SQLite} {
		set[string(f)] = true
	}
	// MariaDB's MEMORY engine names a target (mariadb-memory), but memory
	// is also every cell's --memory: the word says nothing by itself
	delete(set, "memory")
	// postgres-sync's second word is Go's sync package and every fsync:
	// it too says nothing by itself (postgres, its first, still counts)
	delete(set, "sync")
	return slices.Sorted(func(yield func(string) bool) {
		for n := range set {
			if !yield(n) {
				return
			}
		}
	})
}

// wordStarts are the positions in s where a word begins: after a
// character that is not a letter or digit, at an upper-case letter after
// a lower-case one or a digit (camelCase), and at the last capital of a
// run followed by lower case (the D of SQLDriver).
func wordStarts(s string) []int {
	r := []rune(s)
	var starts []int
	for i := range r {
		if !unicode.IsLetter(r[i]) && !unicode.IsDigit(r[i]) {
			continue
		}
		switch {
		case i == 0 || (!unicode.IsLetter(r[i-1]) && !unicode.IsDigit(r[i-1])):
		case unicode.IsUpper(r[i]) && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])):
		case unicode.IsUpper(r[i]) && unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1]):
		default:
			continue
		}
		starts = append(starts, len(string(r[:i])))
	}
	return starts
}

// namedIn is every name that begins a word of text (isMariaDB,
// "mariadb-innodb", "kv%d", "PostgreSQL").
func namedIn(text string, names []string) []string {
	lower := strings.ToLower(text)
	var found []string
	for _, at := range wordStarts(text) {
		for _, n := range names {
			if strings.HasPrefix(lower[at:], n) {
				found = append(found, n)
			}
		}
	}
	return found
}

// offences are a file's forbidden imports and the names its identifiers
// and string literals hold (comments say why and may cite anything).
func offences(t *testing.T, path, dir string, names []string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		for _, bad := range forbiddenImports[dir] {
			if p == "shootout/"+bad || strings.HasPrefix(p, "shootout/"+bad+"/") {
				set["import "+bad] = true
			}
		}
	}
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
	inImports := false
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch {
		case tok == token.IMPORT:
			inImports = true
		case inImports && (tok == token.FUNC || tok == token.TYPE || tok == token.VAR || tok == token.CONST):
			inImports = false
		case !inImports && tok == token.IDENT:
			// a name of two letters (kv) is, in an identifier, the common
			// abbreviation of key/value: it counts in strings only
			for _, n := range namedIn(lit, names) {
				if len(n) > 2 {
					set[n] = true
				}
			}
		case !inImports && (tok == token.STRING || tok == token.CHAR):
			for _, n := range namedIn(lit, names) {
				set[n] = true
			}
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for o := range set {
			if !yield(o) {
				return
			}
		}
	})
}

func TestCoreNamesNoWorkloadTargetOrProtocol(t *testing.T) {
	ns := names()
	for _, must := range []string{"kv", "shop", "oltp", "mariadb", "innodb", "postgres", "sqlite", "redis", "memcached", "tarantool"} {
		if !slices.Contains(ns, must) {
			t.Fatalf("the registries' names %v lack %s: the test would look for nothing", ns, must)
		}
	}
	for _, dir := range coreDirs {
		paths, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, path := range paths {
			rel := filepath.ToSlash(strings.TrimPrefix(path, "../"))
			if strings.HasSuffix(rel, "_test.go") || registryFiles[rel] != "" {
				continue
			}
			for _, o := range offences(t, path, dir, ns) {
				t.Errorf("%s: %s (a workload, target or protocol belongs behind its registry: docs/adding.md)", rel, o)
			}
		}
	}
}

// The word rule the test stands on: a name counts where a word begins,
// in camelCase as in text, and not inside another word.
func TestNamedInFindsNamesAtWordStarts(t *testing.T) {
	ns := []string{"kv", "mariadb", "postgres", "redis", "dump"}
	for text, want := range map[string]string{
		"isMariaDB": "mariadb", `"kv%d"`: "kv", "PostgreSQL": "postgres", "kvRowOf": "kv", "a redis server": "redis",
		"pkValue": "", "mysqldump": "", "predis": "", "KVStore": "kv", "MARIADB_HOME": "mariadb",
	} {
		got := strings.Join(namedIn(text, ns), ",")
		if got != want {
			t.Errorf("namedIn(%q) = %q, want %q", text, got, want)
		}
	}
}
