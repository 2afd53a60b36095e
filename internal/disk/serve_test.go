package disk

import (
	"context"
	"os"
	"path/filepath"
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
