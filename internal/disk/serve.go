package disk

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// device runs a model in real time over a backing image file. Each command
// the kernel sends is timed by the engine; the caller is answered when the
// model says the device would have finished, less the mechanism's own
// round trip (overhead), which the kernel and FUSE add anyway. That round
// trip grows with how long the CPUs idled before it (in a VM a halted
// vCPU takes a while to wake), so it is a table by the length of the
// sleep before the answer.
type device struct {
	eng      engine
	img      *os.File
	size     int64
	mu       sync.Mutex
	kick     chan struct{}
	stop     chan struct{}
	active   atomic.Bool
	overhead atomic.Pointer[overheadTable]
	// flushOverhead is the same for a flush, which the loop device sends
	// through a work queue as an fsync: a longer way round
	flushOverhead atomic.Pointer[overheadTable]
	// wakeLate is how late sleeps have woken lately (a moving average,
	// ns): tens of µs in a VM, as much as an SSD's whole read, so every
	// sleep ends that much early
	wakeLate atomic.Int64
	// inside counts the time commands spend in serve with the model off
	// (ns, and how many): the part of the round trip the model's own time
	// already covers when it is on
	inside, insideN atomic.Int64

	// late counts answers the mechanism sent after the model's time less
	// the round trip (the IO or a stall took longer); early counts those
	// whose client had them before the model's time: its next command
	// arrived before it, which happens when the round trip subtracted was
	// longer than the one the answer took (the table's figure after idle
	// CPUs, while busy ones carry an answer faster)
	late, early atomic.Int64
	// inFlight counts the commands the model is timing
	inFlight atomic.Int64
	timed    atomic.Int64 // commands the model timed
	// answered is the latest model time of an answer sent. Answers go out
	// early by the mechanism's round trip, so a command sent in reply can
	// reach the model before the answer's own time when the round trip
	// was overestimated. On a disk with a head that is not noise but a
	// revolution: a sequential write + fsync caught the sector it had just
	// missed and ran 1.2-1.4× the model's speed. There a command never
	// arrives before the last answer's time; a flash model keeps the
	// error on both sides, which the round-trip table averages out
	answered atomic.Int64
	// all counts every command; modelled only those sent with the model on
	// (the measured run), so a cell's figures leave its load out
	all, modelled ioCounts
	// cpu is the CPU time (ns) the model's own code used on its threads:
	// serving commands (the image's reads and writes, the engine, the
	// waits) and the drive's clock. It runs in shootout's process, whose
	// CPU is the client's figure: this is taken out of it.
	cpu atomic.Int64
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// onOwnThread runs f on one thread throughout, and counts the CPU the
// thread used meanwhile as the model's.
func (d *device) onOwnThread(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPU()
	f()
	d.cpu.Add(int64(threadCPU() - t0))
}

type ioCounts struct {
	reads, writes, flushes, readBytes, writeBytes atomic.Int64
}

func (c *ioCounts) add(op opKind, n int64) {
	switch op {
	case opRead:
		c.reads.Add(1)
		c.readBytes.Add(n)
	case opWrite:
		c.writes.Add(1)
		c.writeBytes.Add(n)
	case opFlush:
		c.flushes.Add(1)
	}
}

func newDevice(e engine, img *os.File, size int64) *device {
	d := &device{eng: e, img: img, size: size, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	if e != nil {
		go d.run()
	}
	return d
}

// now is the device's clock: CLOCK_MONOTONIC, the clock sleepUntil sleeps
// on, so that no conversion stands between a deadline and the sleep.
func now() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}

// sleepUntil sleeps to an absolute deadline with the thread's timer slack
// at 1 ns: the default 50 µs would be half an SSD read. Go's own timers
// round sub-millisecond waits up when the process is otherwise idle.
func sleepUntil(t time.Duration) {
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(int64(t))
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// run is the drive's own clock for models with a head: it ends each
// operation at its time and starts the next.
func (d *device) run() {
	// the drive's clock keeps its thread: its CPU is counted as it goes
	runtime.LockOSThread()
	last := threadCPU()
	for {
		if t := threadCPU(); t != last {
			d.cpu.Add(int64(t - last))
			last = t
		}
		d.mu.Lock()
		e := d.eng
		at, busy := e.next(now())
		d.mu.Unlock()
		if !busy {
			select {
			case <-d.kick:
				continue
			case <-d.stop:
				return
			}
		}
		d.answerAt(at, d.overhead.Load())
		d.mu.Lock()
		var done []*ioreq
		if d.eng == e { // not reset meanwhile
			done = e.complete(at)
		}
		d.mu.Unlock()
		for _, r := range done {
			close(r.done)
		}
	}
}

// reset gives the device a new engine of the same model: an empty cache,
// the head at the start. Only between loads, with nothing in flight.
func (d *device) reset(e engine) {
	d.mu.Lock()
	d.eng = e
	d.mu.Unlock()
}

func (d *device) close() {
	if d.eng != nil {
		close(d.stop)
	}
}

// serve times one command and does its IO on the image: the IO first, so
// that its own time is hidden in the model's when the model is slower.
func (d *device) serve(op opKind, off int64, n int64, io func() error) error {
	if d.eng == nil || !d.active.Load() {
		t0 := now()
		err := io()
		d.inside.Add(int64(now() - t0))
		d.insideN.Add(1)
		return err
	}
	d.timed.Add(1)
	t0 := now()
	answered := time.Duration(d.answered.Load())
	if earlyReply(t0, answered, d.inFlight.Add(1)-1) {
		d.early.Add(1)
	}
	defer d.inFlight.Add(-1)
	if _, head := d.eng.(*hdd); head {
		t0 = max(t0, answered)
	}
	r := &ioreq{op: op, off: off, n: n, arrived: t0, done: make(chan struct{})}
	d.mu.Lock()
	known := d.eng.arrive(r, t0)
	d.mu.Unlock()
	if !known {
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
	err := io()
	if known {
		table := d.overhead.Load()
		if op == opFlush {
			table = d.flushOverhead.Load()
		}
		d.answerAt(r.at, table)
	} else {
		<-r.done
	}
	return err
}

// earlyReply says whether a command that arrived at t, when the latest
// answer sent was for model time answered and others were in flight,
// shows that answer reached its client early: with nothing else in
// flight the command is the client's next, sent after it had the answer.
// (With other commands in flight it may be another client's, sent
// without waiting for that answer: it shows nothing.)
func earlyReply(t, answered time.Duration, others int64) bool {
	return others == 0 && t < answered
}

// overheadPoint is the mechanism's mean round trip after the CPUs idled.
type overheadPoint struct {
	idle, roundTrip time.Duration
}

// overheadTable holds points in increasing idle.
type overheadTable []overheadPoint

// at interpolates the round trip after idle, flat beyond the ends.
func (o *overheadTable) at(idle time.Duration) time.Duration {
	if o == nil || len(*o) == 0 {
		return 0
	}
	pts := *o
	if idle <= pts[0].idle {
		return pts[0].roundTrip
	}
	for i := 1; i < len(pts); i++ {
		if idle <= pts[i].idle {
			a, b := pts[i-1], pts[i]
			f := float64(idle-a.idle) / float64(b.idle-a.idle)
			return a.roundTrip + time.Duration(f*float64(b.roundTrip-a.roundTrip))
		}
	}
	return pts[len(pts)-1].roundTrip
}

// answerAt sleeps until the model's time t less the mechanism's round
// trip (overhead) after a sleep that long, waking early by how late sleeps have been
// waking, and learns from this one.
func (d *device) answerAt(t time.Duration, overhead *overheadTable) {
	// recorded when the answer goes out, not before: commands that arrive
	// while it waits are not replies to it
	defer d.answering(t)
	target := t - overhead.at(t-now())
	early := time.Duration(d.wakeLate.Load())
	wake := target - early
	if now() >= target {
		d.late.Add(1)
		return
	}
	sleepUntil(wake)
	if woke := now() - wake; woke >= 0 {
		d.wakeLate.Store(int64(early + (woke-early)/16))
	}
	// a sleep that woke before the answer's time (it ends early by how
	// late sleeps have woken) waits the rest out: sent now, the answer
	// would reach its client early, as a late one reaches it late. Only
	// the last few microseconds are spun: this thread shares the client's
	// core, and a longer wait is slept again (a late wake is counted in
	// wakeLate, so the next answer starts earlier)
	if rest := target - now(); rest > maxSpin {
		sleepUntil(target)
	}
	for now() < target {
	}
}

// maxSpin is the longest an answer is held by spinning on the CPU.
const maxSpin = 20 * time.Microsecond

// answering records that an answer of model time t goes out now.
func (d *device) answering(t time.Duration) {
	for {
		prev := d.answered.Load()
		if int64(t) <= prev || d.answered.CompareAndSwap(prev, int64(t)) {
			return
		}
	}
}

func (d *device) commands() int64 {
	return d.all.reads.Load() + d.all.writes.Load() + d.all.flushes.Load()
}

func (d *device) count(op opKind, n int64) {
	d.all.add(op, n)
	if d.active.Load() {
		d.modelled.add(op, n)
	}
}

// imageNode is the one file of the FUSE file system: the disk image the
// loop device reads and writes with direct IO.
type imageNode struct {
	fs.Inode
	dev *device
}

var (
	_ fs.NodeGetattrer = (*imageNode)(nil)
	_ fs.NodeOpener    = (*imageNode)(nil)
	_ fs.NodeReader    = (*imageNode)(nil)
	_ fs.NodeWriter    = (*imageNode)(nil)
	_ fs.NodeFsyncer   = (*imageNode)(nil)
	_ fs.NodeSetattrer = (*imageNode)(nil)
)

func (n *imageNode) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o600
	out.Size = uint64(n.dev.size)
	out.Blocks = uint64(n.dev.size / 512)
	return 0
}

func (n *imageNode) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return n.Getattr(ctx, fh, out)
}

// Open asks for direct IO so that the image has no page cache of its
// own: the server's file system on the loop device has one already, and
// every miss in it must reach the model.
func (n *imageNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO | fuse.FOPEN_PARALLEL_DIRECT_WRITES, 0
}

func (n *imageNode) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	var k int
	var err error
	n.dev.count(opRead, int64(len(dest)))
	n.dev.onOwnThread(func() {
		err = n.dev.serve(opRead, off, int64(len(dest)), func() error {
			var err error
			k, err = n.dev.img.ReadAt(dest, off)
			if k == len(dest) || k > 0 && off+int64(k) >= n.dev.size {
				return nil
			}
			return err
		})
	})
	if err != nil {
		return nil, imageErrno(err)
	}
	return fuse.ReadResultData(dest[:k]), 0
}

func (n *imageNode) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	var k int
	var err error
	n.dev.count(opWrite, int64(len(data)))
	n.dev.onOwnThread(func() {
		err = n.dev.serve(opWrite, off, int64(len(data)), func() error {
			var err error
			k, err = n.dev.img.WriteAt(data, off)
			return err
		})
	})
	if err != nil {
		return uint32(k), imageErrno(err)
	}
	return uint32(k), 0
}

// Fsync is the device's cache flush: the loop device turns a flush
// request into an fsync of its backing file. The image itself is never
// synced: it is scratch, thrown away with the device, and a real fsync
// would put the host disk's time into the model's.
func (n *imageNode) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	n.dev.count(opFlush, 0)
	n.dev.onOwnThread(func() { n.dev.serve(opFlush, 0, 0, func() error { return nil }) })
	return 0
}

// imageErrno is err as FUSE answers it. A read or write that reaches the
// image after Close closed it (a file system unmounted lazily, whose last
// writes land late: the disk is scratch, thrown away) is answered EIO
// rather than through go-fuse's conversion, which logs every such error
// on stderr between the run's lines.
func imageErrno(err error) syscall.Errno {
	if errors.Is(err, os.ErrClosed) {
		return syscall.EIO
	}
	return fs.ToErrno(err)
}

type rootNode struct {
	fs.Inode
	image *imageNode
}

func (r *rootNode) OnAdd(ctx context.Context) {
	ch := r.NewPersistentInode(ctx, r.image, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
	r.AddChild(imageName, ch, false)
}

const imageName = "disk.img"

func mountImage(dir string, dev *device) (*fuse.Server, error) {
	root := &rootNode{image: &imageNode{dev: dev}}
	timeout := time.Hour
	srv, err := fs.Mount(dir, root, &fs.Options{
		EntryTimeout: &timeout,
		AttrTimeout:  &timeout,
		MountOptions: fuse.MountOptions{
			DirectMountStrict: true,
			FsName:            "shootout-disk",
			Name:              "shootout",
			MaxWrite:          1 << 20,
			MaxBackground:     128,
			DisableSplice:     true,
			// the loop device submits direct IO asynchronously only when
			// FUSE may answer it out of order: the model's queue depth
			ExtraCapabilities: fuse.CAP_ASYNC_DIO,
		},
	})
	if err == nil {
		closeFuseOnExec()
	}
	return srv, err
}

// closeFuseOnExec keeps /dev/fuse out of every process shootout starts
// (servers, fio). go-fuse opens it inheritable; a child that holds it
// keeps the connection alive after shootout dies, and a child whose IO
// waits on the disk then waits on itself: fio exiting with direct IO in
// flight to the loop device never finishes, and neither does anything
// that asks the loop device for its status.
func closeFuseOnExec() {
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, e := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == "/dev/fuse" {
			if fd, err := strconv.Atoi(e.Name()); err == nil {
				unix.CloseOnExec(fd)
			}
		}
	}
}
