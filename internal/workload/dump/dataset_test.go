package dump

import (
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// The load's progress counts the SQL text the scanner reads, gunzipped:
// the total it is measured against must be that text's size, not the .gz
// file's, or a load reads past 100%.
func TestDatasetCountsTheDumpsSQLBytes(t *testing.T) {
	const file = "testdata/redmine.sql.gz"
	w := &Workload{file: file, loadParallel: 1}
	if err := w.read(); err != nil {
		t.Fatal(err)
	}
	ds, err := w.Dataset("redmine.sql.gz", 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sql, err := io.Copy(io.Discard, z)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	if !ds.LoadInBytes || ds.LoadRows != sql {
		t.Errorf("the load's total is %d (in bytes: %v); the dump's SQL is %d bytes (the .gz %d)", ds.LoadRows, ds.LoadInBytes, sql, st.Size())
	}
}
