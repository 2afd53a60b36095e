package metrics

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Residency is how much of the files under a directory the kernel holds
// in its page cache: what fincore(1) prints, summed.
type Residency struct {
	Files       int
	Bytes       int64 // the files' sizes
	CachedBytes int64 // their pages in the page cache
}

// Uncached is what a reader of every file would have to fetch from
// storage.
func (r Residency) Uncached() int64 { return r.Bytes - r.CachedBytes }

// PageCache measures the residency of every regular file under dir. It
// asks the kernel with mincore(2) on a mapping it never touches, so it
// reads nothing and brings nothing into the cache.
func PageCache(dir string) (Residency, error) {
	var r Residency
	files, err := CachedFiles(dir)
	for _, f := range files {
		r.Files++
		r.Bytes += f.Bytes
		r.CachedBytes += f.CachedBytes
	}
	return r, err
}

// FileResidency is one file's share of the page cache.
type FileResidency struct {
	Path               string
	Bytes, CachedBytes int64
}

// CachedFiles is PageCache file by file. Files that vanish while it walks
// (a server's temporary files) are skipped.
func CachedFiles(dir string) ([]FileResidency, error) {
	var files []FileResidency
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		cached, size, err := fileResidency(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		files = append(files, FileResidency{Path: path, Bytes: size, CachedBytes: cached})
		return nil
	})
	return files, err
}

func fileResidency(path string) (cached, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return FileCached(f)
}

// FileCached is how many bytes of an open file the page cache holds, and
// the file's size.
func FileCached(f *os.File) (cached, size int64, err error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, 0, err
	}
	size = st.Size()
	page := int64(os.Getpagesize())
	path := f.Name()
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, &fs.PathError{Op: "mmap", Path: path, Err: err}
	}
	defer unix.Munmap(m)
	pages := (size + page - 1) / page
	vec := make([]byte, pages)
	// x/sys/unix has no wrapper for mincore(2)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return 0, 0, &fs.PathError{Op: "mincore", Path: path, Err: errno}
	}
	for _, v := range vec {
		if v&1 != 0 {
			cached += page
		}
	}
	// the last page counts only the part of it the file has
	if vec[pages-1]&1 != 0 {
		cached -= pages*page - size
	}
	return cached, size, nil
}
