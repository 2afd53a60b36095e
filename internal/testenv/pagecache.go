package testenv

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// DropFromPageCache writes a file back and asks the kernel to let go of
// its cached pages, as a machine short of memory (or one that drops
// cached files on its own) would.
func DropFromPageCache(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		tb.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		tb.Fatal(err)
	}
}
