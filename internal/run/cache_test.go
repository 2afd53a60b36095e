package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/testenv"
)

// A window over which the page cache let go of a server's files says how
// much, and blames the kernel only when a file nobody touched lost pages
// too while memory was to spare.
func TestCacheWindowSaysWhatThePageCacheLetGo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.MYD")
	const size = 4 << 20
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(make([]byte, size), 0); err != nil {
		t.Fatal(err)
	}
	w := startCacheWindow(dir, t.TempDir(), false)
	defer w.close()
	if w.controlErr != nil || w.controlStart != controlFileBytes {
		t.Fatalf("control file: %v, %d bytes cached", w.controlErr, w.controlStart)
	}
	testenv.DropFromPageCache(t, path)
	w.stop()
	var im result.InMemory
	w.fill(&im)
	if im.FilesBytes != size || im.CachedAtStartBytes != size || im.CachedAtEndBytes != 0 || im.AvailableBytes <= 0 {
		t.Fatalf("files %d, cached %d then %d, available %d: want %d, all of it then none, some", im.FilesBytes, im.CachedAtStartBytes, im.CachedAtEndBytes, im.AvailableBytes, size)
	}
	why := w.why(false)
	if want := "; its files (4 MiB) were 100.0% in the page cache when the window started, 0.0% when it ended"; !strings.HasPrefix(why, want) {
		t.Errorf("%q does not start %q", why, want)
	}
	if w.controlEnd == w.controlStart && strings.Contains(why, "left alone") {
		t.Errorf("the control file kept all of it, yet: %q", why)
	}
	if why := w.why(true); !strings.Contains(why, "under a --memory cap") {
		t.Errorf("under a memory cap: %q", why)
	}
	if n := w.limitsNote(); !strings.HasPrefix(n, "the server's files were not locked in the page cache: under a --memory cap") {
		t.Errorf("limits note without locking: %q", n)
	}

	// the kernel drops the untouched control file: that is what is said
	if err := unix.Fadvise(int(w.control.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	w.stop()
	w.fill(&im)
	if im.ControlDroppedBytes != controlFileBytes {
		t.Errorf("control file dropped %d bytes, want %d", im.ControlDroppedBytes, controlFileBytes)
	}
	why = w.why(false)
	want := "a 32 MiB file shootout cached at the start and left alone lost 32.0 MiB of it from the page cache with"
	if !strings.Contains(why, want) {
		t.Errorf("%q lacks %q", why, want)
	}
	if blame := "this machine's kernel drops cached files it has room for"; strings.Contains(why, blame) != (w.minAvailable >= roomToSpare) {
		t.Errorf("%q: blames the kernel with %d bytes available", why, w.minAvailable)
	}
	w.minAvailable = roomToSpare / 2
	if why := w.why(false); strings.Contains(why, "has room") || !strings.Contains(why, "with only 512 MiB of memory available") {
		t.Errorf("short of memory: %q", why)
	}

	// nothing to say about a server whose files shootout cannot see
	none := startCacheWindow("", t.TempDir(), true)
	none.stop()
	none.fill(&im)
	none.close()
	if none.why(false) != "" {
		t.Error("an external server's window said something")
	}
}

// With pin, the files the page cache holds stay there for the window
// whatever the kernel is asked, and are let go at its end.
func TestCacheWindowLocksTheServersCachedFiles(t *testing.T) {
	dir := t.TempDir()
	const size = 4 << 20
	cachedFile := filepath.Join(dir, "table.MYD")
	// a file the server reads with O_DIRECT is not cached: left alone
	uncachedFile := filepath.Join(dir, "table.ibd")
	for _, p := range []string{cachedFile, uncachedFile} {
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.DropFromPageCache(t, uncachedFile)
	w := startCacheWindow(dir, t.TempDir(), true)
	defer w.close()
	if w.pinErr != nil || w.pinnedBytes != size || len(w.pinned) != 1 {
		t.Fatalf("pinned %d bytes in %d files (%v), want the cached file's %d", w.pinnedBytes, len(w.pinned), w.pinErr, size)
	}
	testenv.DropFromPageCache(t, cachedFile)
	w.stop()
	var im result.InMemory
	w.fill(&im)
	if im.CachedAtEndBytes != size || im.PinnedBytes != size {
		t.Errorf("%d bytes cached at the end, %d pinned: the locked file should have stayed", im.CachedAtEndBytes, im.PinnedBytes)
	}
	if n := w.limitsNote(); !strings.HasPrefix(n, "the server's files the page cache held (4 MiB) were locked there for the window (mlock); a 32 MiB control file") {
		t.Errorf("limits note %q", n)
	}
	w.close()
	testenv.DropFromPageCache(t, cachedFile)
	if r, err := metrics.PageCache(dir); err != nil || r.CachedBytes != 0 {
		t.Errorf("after the window %d bytes still cached (%v): the lock was not let go", r.CachedBytes, err)
	}
}
