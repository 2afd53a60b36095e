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
