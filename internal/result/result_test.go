package result

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteIsAtomicAndReadable(t *testing.T) {
	dir := t.TempDir()
	f := &File{Cell: Cell{ID: "sqlite__oltp__1000__c1__n0__r1", Target: "sqlite"}, Status: "ok"}
	if err := Write(dir, f); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "cells"))
	if len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
	got, err := Read(Path(dir, f.Cell.ID))
	if err != nil || got.Schema != Schema || !got.OK() {
		t.Fatalf("%v %+v", err, got)
	}
}

func TestReadRejectsForeignJSON(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "cells"), 0o755)
	os.WriteFile(filepath.Join(dir, "cells", "x.json"), []byte(`{"hello":1}`), 0o644)
	if _, err := ReadDir(dir); err == nil {
		t.Fatal("a file without the schema was accepted")
	}
	if _, err := ReadDir(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing dir accepted")
	}
}

// target.embedded is new: a cell file written before it still reads as
// embedded where the target was SQLite (the one embedded database then),
// and a new file's field is read as written.
func TestEmbeddedReadsFromFilesWrittenBeforeTheField(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "cells"), 0o755)
	for name, body := range map[string]string{
		"old": `{"schema":"shootout.cell/2","cell":{"id":"old","target":"sqlite"},"target":{"name":"sqlite","flavor":"sqlite"}}`,
		"new": `{"schema":"shootout.cell/2","cell":{"id":"new","target":"lite"},"target":{"name":"lite","flavor":"x","embedded":true}}`,
		"srv": `{"schema":"shootout.cell/2","cell":{"id":"srv","target":"mariadb-innodb"},"target":{"name":"mariadb-innodb","flavor":"mysql"}}`,
	} {
		os.WriteFile(filepath.Join(dir, "cells", name+".json"), []byte(body), 0o644)
	}
	fs, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if want := f.Cell.ID != "srv"; f.Target.Embedded != want {
			t.Errorf("%s: embedded %v, want %v", f.Cell.ID, f.Target.Embedded, want)
		}
	}
}
