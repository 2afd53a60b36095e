package disk

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"shootout/internal/child"
)

// Root holds the modelled disks' directories. It is outside any private
// home so that servers running as their own users reach the mount.
var Root = "/var/tmp/shootout-disks"

// Disk is a modelled device with an ext4 file system mounted on it.
type Disk struct {
	Spec  Spec
	Dir   string // the disk's directory: image, FUSE mount, file system
	Mount string // where the file system is mounted: put data here
	Loop  string // the loop device, e.g. /dev/loop3

	dev *device
	srv *fuse.Server
}

// Check says what attaching a disk needs and is missing, as a fix.
func Check() error {
	for _, tool := range []string{"losetup", "mkfs.ext4"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("--disk needs %s; fix: apt-get install -y util-linux e2fsprogs", tool)
		}
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return errors.New("--disk needs /dev/fuse (the fuse module): modprobe fuse")
	}
	if os.Geteuid() != 0 {
		return errors.New("--disk mounts a loop device: run as root")
	}
	return nil
}

// Attach makes a disk of the model: a sparse image with an ext4 file
// system, served through FUSE by the model, attached to a loop device with
// direct IO, mounted. The model starts inactive (the device at full
// speed, for loading); Activate turns it on. Without withFS the device is
// left bare (calibration writes all over it).
func Attach(spec Spec, name string, withFS bool) (d *Disk, err error) {
	if err := Check(); err != nil {
		return nil, err
	}
	eng, err := spec.newEngine()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(Root, 0o711); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(Root, name+"-")
	if err != nil {
		return nil, err
	}
	d = &Disk{Spec: spec, Dir: dir, Mount: filepath.Join(dir, "fs")}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, err
	}
	img := filepath.Join(dir, imageName)
	f, err := os.OpenFile(img, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	size := spec.Size()
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, err
	}
	// the file system is made before the model serves the image: its
	// format is not what a benchmark measures
	if !withFS {
	} else if out, err := child.CombinedOutput(exec.Command("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=1,lazy_journal_init=1", img)); err != nil {
		f.Close()
		return nil, fmt.Errorf("mkfs.ext4 %s: %v: %s", img, err, strings.TrimSpace(string(out)))
	}
	d.dev = newDevice(eng, f, size)
	devDir := filepath.Join(dir, "dev")
	if err := os.Mkdir(devDir, 0o700); err != nil {
		return nil, err
	}
	if d.srv, err = mountImage(devDir, d.dev); err != nil {
		return nil, fmt.Errorf("serve the disk image through FUSE at %s: %w", devDir, err)
	}
	out, err := child.CombinedOutput(exec.Command("losetup", "--find", "--show", "--direct-io=on", filepath.Join(devDir, imageName)))
	if err != nil {
		return nil, fmt.Errorf("losetup: %v: %s", err, strings.TrimSpace(string(out)))
	}
	d.Loop = strings.TrimSpace(string(out))
	if dio, _ := os.ReadFile("/sys/block/" + filepath.Base(d.Loop) + "/loop/dio"); strings.TrimSpace(string(dio)) != "1" {
		return nil, fmt.Errorf("%s does not do direct IO on its FUSE image: the model would see one command at a time", d.Loop)
	}
	if withFS {
		if err := os.Mkdir(d.Mount, 0o755); err != nil {
			return nil, err
		}
		if err := unix.Mount(d.Loop, d.Mount, "ext4", 0, ""); err != nil {
			return nil, fmt.Errorf("mount %s on %s: %w", d.Loop, d.Mount, err)
		}
		if err := os.Chmod(d.Mount, 0o755); err != nil {
			return nil, err
		}
	} else {
		d.Mount = ""
	}
	if err := d.measureOverhead(); err != nil {
		return nil, err
	}
	return d, nil
}

// overheadIdles are the idle times before a command at which the
// mechanism's round trip is measured: none (a busy run, the SSD's QD16),
// up to a HDD's seek.
var overheadIdles = []time.Duration{0, 250 * time.Microsecond, time.Millisecond, 4 * time.Millisecond}

// measureOverhead times 4k direct reads and flushes through the whole
// mechanism with the model off, each after the CPUs idled a while: what the kernel, the
// loop device and FUSE add to every command. The model answers that much
// earlier than it would otherwise. The figure is the mean of the fastest
// 90%: a rate is set by the mean, while a rare stall of the host is not
// the mechanism's.
func (d *Disk) measureOverhead() error {
	f, err := os.OpenFile(d.Loop, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := alignedBlock(4096)
	rng := rand.New(rand.NewPCG(3, 4))
	read := func() error {
		_, err := f.ReadAt(buf, rng.Int64N(d.dev.size/4096)*4096)
		return err
	}
	// a flush of the loop device reaches the image as an fsync
	flush := func() error { return unix.Fsync(int(f.Fd())) }
	reads, err := d.roundTrips(read, 1000, 300)
	if err != nil {
		return fmt.Errorf("read %s: %w", d.Loop, err)
	}
	flushes, err := d.roundTrips(flush, 300, 100)
	if err != nil {
		return fmt.Errorf("flush %s: %w", d.Loop, err)
	}
	d.dev.overhead.Store(&reads)
	d.dev.flushOverhead.Store(&flushes)
	return nil
}

// roundTrips times cmd at each of overheadIdles (busy times first, then
// idle ones per idle time) and returns the table of mean round trips
// less the time spent inside serve.
func (d *Disk) roundTrips(cmd func() error, busy, idle int) (overheadTable, error) {
	var table overheadTable
	for _, gap := range overheadIdles {
		var lat []time.Duration
		d.dev.inside.Store(0)
		d.dev.insideN.Store(0)
		n := idle
		if gap == 0 {
			n = busy
		}
		// the first commands settle the CPUs into this rhythm
		for i := 0; i < n+50; i++ {
			if gap > 0 {
				sleepUntil(now() + gap)
			}
			t0 := now()
			if err := cmd(); err != nil {
				return nil, err
			}
			if i >= 50 {
				lat = append(lat, now()-t0)
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		var sum time.Duration
		kept := lat[:len(lat)*9/10]
		for _, l := range kept {
			sum += l
		}
		round := sum / time.Duration(len(kept))
		// what the image IO took inside serve is part of the model's time
		// when the model is on, not on top of it
		if n := d.dev.insideN.Load(); n > 0 {
			round -= time.Duration(d.dev.inside.Load() / n)
		}
		table = append(table, overheadPoint{gap, max(round, 0)})
	}
	return table, nil
}

// alignedBlock is a buffer O_DIRECT accepts: aligned to 4096 in memory.
func alignedBlock(n int) []byte {
	b := make([]byte, n+4096)
	for i := range b {
		if uintptr(unsafe.Pointer(&b[i]))%4096 == 0 {
			return b[i : i+n]
		}
	}
	return b[:n]
}

// Overhead is the mechanism's round trip the model subtracts from a
// command that came while the CPUs were busy.
func (d *Disk) Overhead() time.Duration { return d.dev.overhead.Load().at(0) }

// OverheadLine lists the round trips by idle time before the command, of
// reads and writes, then of flushes, e.g. "0s:62µs 1ms:180µs, flush 0s:90µs 1ms:300µs".
func (d *Disk) OverheadLine() string {
	line := func(t *overheadTable) string {
		var parts []string
		for _, p := range *t {
			parts = append(parts, fmt.Sprintf("%v:%.0fµs", p.idle, p.roundTrip.Seconds()*1e6))
		}
		return strings.Join(parts, " ")
	}
	return line(d.dev.overhead.Load()) + ", flush " + line(d.dev.flushOverhead.Load())
}

// CPU is the CPU time the model's own code has used since the disk was
// attached (see device.cpu); what the kernel and go-fuse spend carrying
// each command to it and its answer back is not in it.
func (d *Disk) CPU() time.Duration { return time.Duration(d.dev.cpu.Load()) }

// Activate turns the model on (the run) or off (loading, settling).
func (d *Disk) Activate(on bool) { d.dev.active.Store(on) }

// Evidence is what the device was sent while the model was on (disk.reads,
// ...) and in all (disk.all_reads, ..., the load included), and how many
// commands the mechanism answered later than the model said (its own cost
// showing).
func (d *Disk) Evidence() map[string]string {
	m := map[string]string{
		"disk.model":            d.Spec.String(),
		"disk.loop":             d.Loop,
		"disk.late":             fmt.Sprint(d.dev.late.Load()),
		"disk.early":            fmt.Sprint(d.dev.early.Load()),
		"disk.timed":            fmt.Sprint(d.dev.timed.Load()),
		"disk.overhead_us":      fmt.Sprintf("%.1f", d.Overhead().Seconds()*1e6),
		"disk.overhead_by_idle": d.OverheadLine(),
		"disk.image":            filepath.Join(d.Dir, imageName),
		"disk.mount":            d.Mount,
		"disk.model_params":     fmt.Sprint(d.Spec.Settings()),
	}
	for prefix, c := range map[string]*ioCounts{"disk.": &d.dev.modelled, "disk.all_": &d.dev.all} {
		m[prefix+"reads"] = fmt.Sprint(c.reads.Load())
		m[prefix+"writes"] = fmt.Sprint(c.writes.Load())
		m[prefix+"flushes"] = fmt.Sprint(c.flushes.Load())
		m[prefix+"read_bytes"] = fmt.Sprint(c.readBytes.Load())
		m[prefix+"write_bytes"] = fmt.Sprint(c.writeBytes.Load())
	}
	return m
}

// EarlyShare is the share of the commands timed by the model whose
// answer reached its client before the model's time (see device.early).
func (d *Disk) EarlyShare() float64 {
	if n := d.dev.timed.Load(); n > 0 {
		return float64(d.dev.early.Load()) / float64(n)
	}
	return 0
}

// LateShare is the share of the commands timed by the model that the
// mechanism answered after the model's time.
func (d *Disk) LateShare() float64 {
	if n := d.dev.timed.Load(); n > 0 {
		return float64(d.dev.late.Load()) / float64(n)
	}
	return 0
}

// Close unmounts the file system, detaches the loop device, stops serving
// the image and removes the directory. It tries every step and returns the
// first error.
func (d *Disk) Close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if d.dev != nil {
		d.dev.active.Store(false)
	}
	if d.Mount != "" && isMount(d.Mount) {
		keep(unmount(d.Mount))
	}
	if d.Loop != "" {
		if out, err := child.CombinedOutput(exec.Command("losetup", "-d", d.Loop)); err != nil {
			keep(fmt.Errorf("losetup -d %s: %v: %s", d.Loop, err, strings.TrimSpace(string(out))))
		}
	}
	if d.srv != nil {
		if err := d.srv.Unmount(); err != nil {
			keep(unmount(filepath.Join(d.Dir, "dev")))
		}
	}
	if d.dev != nil {
		d.dev.close()
		d.dev.img.Close()
	}
	if first == nil {
		keep(os.RemoveAll(d.Dir))
	}
	return first
}

// unmount retries a busy file system for a few seconds (a server that
// just exited may still hold it), then detaches it lazily.
func unmount(dir string) error {
	for i := 0; i < 30; i++ {
		if err := unix.Unmount(dir, 0); err == nil || err == unix.EINVAL || err == unix.ENOENT {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
		return fmt.Errorf("unmount %s: %w", dir, err)
	}
	return nil
}

func isMount(dir string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// fuseConnections is where the kernel lists FUSE connections (fusectl).
const fuseConnections = "/sys/fs/fuse/connections"

// abortFUSE ends the FUSE connection mounted on dir, if any. The
// connection is found by the mount's device number in mountinfo, not by
// a stat, which would wait on a connection nobody serves.
func abortFUSE(dir string) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[4] != dir {
			continue
		}
		_, minor, ok := strings.Cut(f[2], ":")
		if !ok {
			return
		}
		if _, err := os.Stat(filepath.Join(fuseConnections, minor)); err != nil {
			unix.Mount("fusectl", fuseConnections, "fusectl", 0, "")
		}
		os.WriteFile(filepath.Join(fuseConnections, minor, "abort"), []byte("1"), 0o200)
		return
	}
}

// Sweep removes a disk directory a dead shootout left: its file system,
// its loop device (found by backing file), its FUSE mount, the directory.
func Sweep(dir string) error {
	fsDir, devDir := filepath.Join(dir, "fs"), filepath.Join(dir, "dev")
	// The shootout that served the image is dead, but a process that
	// inherited /dev/fuse would keep the connection open, and every IO in
	// flight, every losetup and every loop mount would wait on it forever:
	// the connection is ended first, so the IOs fail instead.
	abortFUSE(devDir)
	if isMount(fsDir) {
		if err := unix.Unmount(fsDir, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount %s: %w", fsDir, err)
		}
	}
	backing := filepath.Join(devDir, imageName)
	loops, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, b := range loops {
		if got, _ := os.ReadFile(b); strings.TrimSpace(string(got)) == backing {
			dev := "/dev/" + filepath.Base(filepath.Dir(filepath.Dir(b)))
			if out, err := child.CombinedOutput(exec.Command("losetup", "-d", dev)); err != nil {
				return fmt.Errorf("losetup -d %s: %v: %s", dev, err, strings.TrimSpace(string(out)))
			}
		}
	}
	if isMount(devDir) {
		if err := unix.Unmount(devDir, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount %s: %w", devDir, err)
		}
	}
	return os.RemoveAll(dir)
}
