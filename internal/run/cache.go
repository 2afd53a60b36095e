package run

import (
	"fmt"
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
}

// startCacheWindow is nil (and every method a no-op) for a server whose
// files shootout cannot see (an external one). The control file goes in
// workDir, on the machine's own disk, and is written and synced before
// the caller's disk window starts.
func startCacheWindow(dataDir, workDir string) *cacheWindow {
	if dataDir == "" {
		return nil
	}
	w := &cacheWindow{dir: dataDir, minAvailable: metrics.MemAvailable()}
	w.control, w.controlStart, w.controlErr = cachedControlFile(workDir)
	w.start, w.err = metrics.PageCache(dataDir)
	return w
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
	if w != nil && w.control != nil {
		w.control.Close()
		w.control = nil
	}
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
