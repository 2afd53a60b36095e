package disk

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The model serves the server's disk from inside shootout's process: the
// CPU its commands take is counted apart, so that it can be taken out of
// the client's figure. No mount is needed: the node's methods are called
// as FUSE would.
func TestModelCountsItsOwnCPU(t *testing.T) {
	s, err := Parse("ssd")
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.newEngine()
	if err != nil {
		t.Fatal(err)
	}
	const size = 8 << 20
	img, err := os.Create(filepath.Join(t.TempDir(), imageName))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if err := img.Truncate(size); err != nil {
		t.Fatal(err)
	}
	d := newDevice(e, img, size)
	defer d.close()
	n := &imageNode{dev: d}
	buf := make([]byte, 1<<20)
	for i := 0; i < 64; i++ {
		if _, errno := n.Write(context.Background(), nil, buf, int64(i%8)<<20); errno != 0 {
			t.Fatal(errno)
		}
		if _, errno := n.Read(context.Background(), nil, buf, int64(i%8)<<20); errno != 0 {
			t.Fatal(errno)
		}
	}
	// 64 MiB copied each way through the page cache: milliseconds of CPU
	if got := time.Duration(d.cpu.Load()); got < time.Millisecond {
		t.Fatalf("128 commands of 1 MiB counted %v of the model's CPU", got)
	}
}

// Early answers are counted as late ones are: an answer sent before its
// model time by a round trip longer than the one it took reaches its
// client early, and the client's next command arrives before that time.
func TestEarlyAnswersAreCounted(t *testing.T) {
	if !earlyReply(5, 10, 0) || earlyReply(10, 10, 0) || earlyReply(5, 10, 1) {
		t.Fatal("early: a command alone in flight, arriving before the last answer's model time")
	}
	for _, c := range []struct {
		roundTrip time.Duration // what the device takes off each answer
		early     bool
	}{{0, false}, {50 * time.Millisecond, true}} {
		s, err := Parse("cloud")
		if err != nil {
			t.Fatal(err)
		}
		e, err := s.newEngine()
		if err != nil {
			t.Fatal(err)
		}
		d := newDevice(e, nil, 1<<30)
		table := overheadTable{{0, c.roundTrip}}
		d.overhead.Store(&table)
		d.flushOverhead.Store(&table)
		d.active.Store(true)
		// a client at queue depth 1: each command sent when the last is answered
		for i := 0; i < 20; i++ {
			d.serve(opRead, int64(i)*4096, 4096, func() error { return nil })
		}
		d.close()
		if early := d.early.Load(); (early > 0) != c.early || c.early && early < 19 {
			t.Errorf("answers sent %v before the model's time: %d of 20 counted early", c.roundTrip, early)
		}
	}
}

// A write that reaches the image after it was closed (a lazily unmounted
// file system's last pages) is answered EIO, quietly: go-fuse's own
// conversion printed "can't convert error type" lines into the run's output.
func TestLateWriteToAClosedImageIsEIOQuietly(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "img")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = f.WriteAt([]byte("x"), 0)
	if got := imageErrno(err); got != syscall.EIO {
		t.Errorf("a write to a closed image: %v, want EIO", got)
	}
	if got := imageErrno(syscall.ENOSPC); got != syscall.ENOSPC {
		t.Errorf("an errno passes through: %v", got)
	}
}
