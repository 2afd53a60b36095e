package metrics

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Device is the block device (the partition, where there is one) that
// holds a server's data. Its counters are what the disk was sent, which
// is the honest "bytes written": a process's /proc/PID/io write_bytes is
// charged when it dirties the page cache, and on kernels that cache files
// in large folios one 8 kB write into a 2 MB folio is charged 2 MB
// (measured here: PostgreSQL's WAL pwrite+fdatasync at 2048 kB per 8 kB
// write), while blkio v1 does not see the kernel's background writeback.
type Device struct {
	Name string // as in /proc/diskstats, e.g. vda or nvme0n1p2
	Dev  string // major:minor
	// Disk is the whole disk's major:minor, Dev's parent for a
	// partition: what blkio and io.max throttle
	Disk string
	stat string
}

// DeviceOf finds the block device of path; an error for tmpfs, overlay
// and other file systems without one.
func DeviceOf(path string) (Device, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return Device{}, fmt.Errorf("find the device of %s: %w", path, err)
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	sys := "/sys/dev/block/" + dev
	target, err := filepath.EvalSymlinks(sys)
	if err != nil {
		return Device{}, fmt.Errorf("%s is on device %s, which is not a block device (tmpfs or overlay?)", path, dev)
	}
	d := Device{Name: filepath.Base(target), Dev: dev, Disk: dev, stat: filepath.Join(sys, "stat")}
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		b, err := os.ReadFile(filepath.Join(target, "..", "dev"))
		if err != nil {
			return Device{}, fmt.Errorf("find the disk of partition %s: %w", d.Name, err)
		}
		d.Disk = strings.TrimSpace(string(b))
	}
	return d, nil
}

// Bytes are the bytes read from and written to the device since boot.
func (d Device) Bytes() (read, written int64, err error) {
	b, err := os.ReadFile(d.stat)
	if err != nil {
		return 0, 0, err
	}
	// Documentation/block/stat.rst: field 3 is sectors read, field 7
	// sectors written, in 512-byte units whatever the device's sector
	f := strings.Fields(string(b))
	if len(f) < 7 {
		return 0, 0, fmt.Errorf("%s: %d fields, want at least 7", d.stat, len(f))
	}
	r, err1 := strconv.ParseInt(f[2], 10, 64)
	w, err2 := strconv.ParseInt(f[6], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%s: unreadable sector counts %q %q", d.stat, f[2], f[6])
	}
	return r * 512, w * 512, nil
}

// SyncFS writes out what is dirty in the page cache of path's file system,
// so that what a server handed the kernel during a run has reached the
// device before its counters are read.
func SyncFS(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Syncfs(fd)
}
