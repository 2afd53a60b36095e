package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A target on another build names its directory; a directory without the
// build's programs is refused at once, naming the path and what is missing.
func TestAnotherBuildIsLookedUpByItsDirectory(t *testing.T) {
	dir := t.TempDir()
	empty, err := Lookup("mariadb-innodb@" + dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.Available(); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "mariadbd") {
		t.Fatalf("an empty directory: %v", err)
	}
	if _, err := Lookup("mariadb-innodb@relative/dir"); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("a relative directory: %v", err)
	}
	if _, err := Lookup("mariadb-nosuch@" + dir); err == nil {
		t.Fatal("an unknown engine on a build was accepted")
	}
	for _, f := range []string{"bin/mariadbd", "scripts/mariadb-install-db"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho 'mariadbd  Ver 11.4.5-MariaDB for Linux'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tg, err := Lookup("mariadb-aria-nontx@" + dir + "/")
	if err != nil {
		t.Fatal(err)
	}
	m := tg.(MariaDB)
	if m.Basedir != dir || !m.NonTransactional || tg.Name() != "mariadb-aria-nontx@"+dir {
		t.Fatalf("looked up %+v named %s", m, tg.Name())
	}
	if build, _ := Build(tg); !strings.Contains(build, filepath.Join(dir, "bin", "mariadbd")) || !strings.Contains(build, "11.4.5") {
		t.Fatalf("build %q: want the build's own server and version", build)
	}
	if err := (MariaDB{Engine: "rocksdb", Basedir: dir}).Available(); err == nil || !strings.Contains(err.Error(), "no MyRocks") {
		t.Fatalf("MyRocks on a build without its plugin: %v", err)
	}
}
