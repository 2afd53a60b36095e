package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"shootout/internal/metrics"
	"shootout/internal/result"
)

// controlFileBytes is the size of the file a memory-bound window caches
// and leaves alone, to see whether the machine's page cache keeps what it
// holds when nothing needs the room.
const controlFileBytes = 32 << 20

// roomToSpare is the memory available below which a kernel that drops
// cached pages may simply need them.
const roomToSpare = 1 << 30

// cacheWindow watches the page cache over the measured window of a
// workload that must read from memory, so that a cell which read from
// storage can say why: how much of the server's files was cached, and
// whether the kernel let go of a cached file nobody touched — which a
// machine with memory to spare does not do, and some VMs' kernels do on
// their own.
type cacheWindow struct {
	dir          string
	start, end   metrics.Residency
	minAvailable int64
	err          error
	// control is an unnamed file (O_TMPFILE: nothing is left behind,
	// whatever ends shootout) cached at the start and never read again
	control                  *os.File
	controlStart, controlEnd int64
	controlErr               error
	// pinned are the server's files locked in the page cache for the
	// window; pinErr why they could not be
	pin         bool
	pinned      [][]byte
	pinnedBytes int64
	pinErr      error
}

// startCacheWindow is nil (and every method a no-op) for a server whose
// files shootout cannot see (an external one). The control file goes in
// workDir, on the machine's own disk, and is written and synced before
// the caller's disk window starts.
//
// With pin, the server's files that the page cache mostly held (those it
// reads through the cache: MyISAM's rows, Aria, SQLite, PostgreSQL; not
// InnoDB's or MyRocks', read with O_DIRECT) are locked there until close,
// as vmtouch -l does: a machine that drops cached files on its own (this
// project's VM lets go of 2-5% a minute with 22 GiB free) would otherwise
// make those engines read from storage in a window meant to be in memory,
// while one that keeps them is not changed by it. Not under a --memory
// cap, where what the page cache keeps is the condition being measured.
func startCacheWindow(dataDir, workDir string, pin bool) *cacheWindow {
	if dataDir == "" {
		return nil
	}
	w := &cacheWindow{dir: dataDir, minAvailable: metrics.MemAvailable(), pin: pin}
	w.control, w.controlStart, w.controlErr = cachedControlFile(workDir)
	w.start, w.err = metrics.PageCache(dataDir)
	if pin && w.err == nil {
		w.pinned, w.pinnedBytes, w.pinErr = pinCachedFiles(dataDir, w.minAvailable)
	}
	return w
}

// pinCachedFiles maps and locks every file under dir the page cache holds
// at least half of, faulting in the rest of it (before the window), if
// that leaves memory to spare.
func pinCachedFiles(dir string, available int64) (maps [][]byte, bytes int64, err error) {
	all, err := metrics.CachedFiles(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("pin the server's files: %w", err)
	}
	var files []string
	for _, f := range all {
		if f.Bytes > 0 && f.CachedBytes*2 >= f.Bytes {
			files = append(files, f.Path)
			bytes += f.Bytes
		}
	}
	if available-bytes < roomToSpare {
		return nil, 0, fmt.Errorf("pin the server's files: %.0f MiB of them with %.0f MiB of memory available would leave too little", float64(bytes)/(1<<20), float64(available)/(1<<20))
	}
	unpin := func() {
		for _, m := range maps {
			unix.Munmap(m) // unlocks it too
		}
	}
	for _, path := range files {
		m, err := lockFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			unpin()
			return nil, 0, fmt.Errorf("pin the server's files: %w", err)
		}
		maps = append(maps, m)
	}
	return maps, bytes, nil
}

func lockFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// the mapping outlives the descriptor
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil, err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, &fs.PathError{Op: "mmap", Path: path, Err: err}
	}
	if err := unix.Mlock(m); err != nil {
		unix.Munmap(m)
		return nil, &fs.PathError{Op: "mlock", Path: path, Err: err}
	}
	return m, nil
}

func cachedControlFile(dir string) (*os.File, int64, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("control file in %s: %w", dir, err)
	}
	f := os.NewFile(uintptr(fd), dir+"/(page cache control)")
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(i)
	}
	for n := 0; n < controlFileBytes; n += len(block) {
		if _, err := f.Write(block); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("control file in %s: %w", dir, err)
		}
	}
	// written back now, so that none of it reaches the disk in the window
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("control file in %s: %w", dir, err)
	}
	cached, _, err := metrics.FileCached(f)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, cached, nil
}

// stop measures; close, after the caller's disk window has ended, frees
// the control file (freeing its blocks writes to the file system's
// journal).
func (w *cacheWindow) stop() {
	if w == nil {
		return
	}
	w.minAvailable = min(w.minAvailable, metrics.MemAvailable())
	if w.control != nil {
		w.controlEnd, _, w.controlErr = metrics.FileCached(w.control)
	}
	if w.err == nil {
		w.end, w.err = metrics.PageCache(w.dir)
	}
}

func (w *cacheWindow) close() {
	if w == nil {
		return
	}
	if w.control != nil {
		w.control.Close()
		w.control = nil
	}
	for _, m := range w.pinned {
		unix.Munmap(m)
	}
	w.pinned = nil
}

// limitsNote says what the window did to the page cache, for every cell
// it watched: the files it locked there and what the machine let go of
// meanwhile.
func (w *cacheWindow) limitsNote() string {
	if w == nil {
		return ""
	}
	var s string
	switch {
	case w.pinErr != nil:
		s = "the server's files were not locked in the page cache: " + w.pinErr.Error()
	case w.pinnedBytes > 0:
		s = fmt.Sprintf("the server's files the page cache held (%.0f MiB) were locked there for the window (mlock)", float64(w.pinnedBytes)/(1<<20))
	case !w.pin:
		s = "the server's files were not locked in the page cache: under a --memory cap what it keeps is the condition measured"
	default:
		s = "none of the server's files were locked in the page cache: it held none of them"
	}
	if w.controlErr == nil && w.controlStart > 0 {
		s += fmt.Sprintf("; a %.0f MiB control file cached at the start and left alone lost %.1f MiB meanwhile", float64(w.controlStart)/(1<<20), float64(max(w.controlStart-w.controlEnd, 0))/(1<<20))
	}
	return s
}

func (w *cacheWindow) fill(im *result.InMemory) {
	if w == nil {
		return
	}
	if w.err == nil {
		im.FilesBytes = w.start.Bytes
		im.CachedAtStartBytes = w.start.CachedBytes
		im.CachedAtEndBytes = w.end.CachedBytes
	}
	im.AvailableBytes = w.minAvailable
	im.PinnedBytes = w.pinnedBytes
	if w.controlErr == nil && w.controlStart > 0 {
		im.ControlDroppedBytes = max(w.controlStart-w.controlEnd, 0)
	} else {
		im.ControlDroppedBytes = -1
	}
}

// why is what the page cache says about reads from storage, to follow
// "the server read N MiB".
func (w *cacheWindow) why(memoryCapped bool) string {
	if w == nil {
		return ""
	}
	const mib = 1 << 20
	var s string
	if w.err == nil && w.start.Bytes > 0 {
		pct := func(r metrics.Residency) float64 { return 100 * float64(r.CachedBytes) / float64(r.Bytes) }
		s = fmt.Sprintf("; its files (%.0f MiB) were %.1f%% in the page cache when the window started, %.1f%% when it ended",
			float64(w.start.Bytes)/mib, pct(w.start), pct(w.end))
		if memoryCapped {
			s += ", under a --memory cap that counts the page cache"
		}
		if w.pinnedBytes > 0 {
			s += fmt.Sprintf(", %.0f MiB of them locked there", float64(w.pinnedBytes)/mib)
		}
	}
	if w.controlErr == nil && w.controlStart > 0 && w.controlEnd < w.controlStart {
		s += fmt.Sprintf("; a %.0f MiB file shootout cached at the start and left alone lost %.1f MiB of it from the page cache",
			float64(w.controlStart)/mib, float64(w.controlStart-w.controlEnd)/mib)
		if w.minAvailable >= roomToSpare {
			s += fmt.Sprintf(" with %.1f GiB of memory available: this machine's kernel drops cached files it has room for (docs/results.md)",
				float64(w.minAvailable)/(1<<30))
		} else {
			s += fmt.Sprintf(" with only %.0f MiB of memory available", float64(w.minAvailable)/mib)
		}
	}
	return s
}
