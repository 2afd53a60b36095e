package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
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
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// written back and dropped: the kernel holds none of it
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	r, err := PageCache(dir)
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
	if again, _ := PageCache(dir); again.CachedBytes != 0 {
		t.Fatalf("measuring cached %d bytes", again.CachedBytes)
	}
	if _, err := f.ReadAt(make([]byte, size), 0); err != nil {
		t.Fatal(err)
	}
	if r, err = PageCache(dir); err != nil {
		t.Fatal(err)
	}
	if r.CachedBytes != size || r.Uncached() != 0 {
		t.Fatalf("%d of %d bytes cached after reading it all", r.CachedBytes, size)
	}
}
