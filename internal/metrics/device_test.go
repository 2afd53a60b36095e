package metrics

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDeviceCountsWhatReachedTheDisk writes 4 MB with an fsync into a
// file on the test's disk and expects the device to have been sent at
// least that (other tests may add to it, never take from it).
func TestDeviceCountsWhatReachedTheDisk(t *testing.T) {
	dir := t.TempDir()
	d, err := DeviceOf(dir)
	if err != nil {
		t.Skipf("temporary directory not on a block device: %v", err)
	}
	_, before, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := SyncFS(dir); err != nil {
		t.Fatal(err)
	}
	_, after, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if got := after - before; got < 4<<20 {
		t.Fatalf("device %s (%s) counted %d bytes written after a synced 4 MB write", d.Name, d.Dev, got)
	}
	if _, err := DeviceOf("/proc"); err == nil {
		t.Fatal("/proc taken for a block device")
	}
}
