package metrics_test

import (
	"os"
	"path/filepath"
	"testing"

	"shootout/internal/metrics"
	"shootout/internal/testenv"
)

func TestPageCacheCountsWhatTheKernelHolds(t *testing.T) {
	dir := t.TempDir()
	// a size that is not a whole number of pages, so the last page's
	// share is tested too
	const size = 3<<20 + 1234
	path := filepath.Join(dir, "sub", "data")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.DropFromPageCache(t, path)
	r, err := metrics.PageCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Files != 2 || r.Bytes != size {
		t.Fatalf("counted %d files of %d bytes, want 2 of %d", r.Files, r.Bytes, size)
	}
	if r.CachedBytes != 0 || r.Uncached() != size {
		t.Fatalf("%d bytes cached after FADV_DONTNEED, want 0", r.CachedBytes)
	}
	// measuring must not have brought anything in
	if again, _ := metrics.PageCache(dir); again.CachedBytes != 0 {
		t.Fatalf("measuring cached %d bytes", again.CachedBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) != size {
		t.Fatal(err)
	}
	if r, err = metrics.PageCache(dir); err != nil {
		t.Fatal(err)
	}
	if r.CachedBytes != size || r.Uncached() != 0 {
		t.Fatalf("%d of %d bytes cached after reading it all", r.CachedBytes, size)
	}
	files, err := metrics.CachedFiles(dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("%d files (%v), want 2", len(files), err)
	}
	for _, f := range files {
		if f.Path == path && (f.Bytes != size || f.CachedBytes != size) {
			t.Errorf("%s: %d of %d bytes cached, want all %d", f.Path, f.CachedBytes, f.Bytes, size)
		}
	}
}
