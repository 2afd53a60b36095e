package run

import (
	"errors"
	"strings"
	"testing"
	"time"

	"shootout/internal/result"
)

func TestDiskWindowReplacesProcessBytesAndTakesOutTheNeighbour(t *testing.T) {
	process := result.Server{ReadBytes: 4 << 20, WriteBytes: 400 << 20, ReadBytesPerOp: 4 << 10, WriteBytesPerOp: 400 << 10}
	from := time.Unix(1000, 0)
	d := &diskWindow{r0: 1 << 30, w0: 2 << 30, r1: 1<<30 + 10<<20, w1: 2<<30 + 30<<20, from: from, to: from.Add(10 * time.Second)}

	s := process
	d.fill(&s, 1024, nil)
	if s.WriteBytes != 30<<20 || s.WriteBytesPerOp != 30<<10 || s.ReadBytes != 10<<20 || !strings.HasPrefix(s.BytesSource, "device ") {
		t.Fatalf("without a neighbour: %+v", s)
	}
	if s.ProcessWriteBytes != 400<<20 || s.ProcessWriteBytesPerOp != 400<<10 || s.ProcessReadBytes != 4<<20 {
		t.Fatalf("process figures not kept: %+v", s)
	}

	// 100 write IOPS of 4 kB for 10 s is 4,096,000 bytes of the 30 MB
	s = process
	d.fill(&s, 1024, map[string]string{"neighbour.read_iops": "200", "neighbour.write_iops": "100"})
	if s.WriteBytes != 30<<20-4096000 || s.ReadBytes != 10<<20-8192000 || !strings.Contains(s.BytesSource, "neighbour") {
		t.Fatalf("with a neighbour: %+v", s)
	}
	// a neighbour that did more than the device saw (rates are averages) is
	// never negative
	s = process
	d.fill(&s, 1024, map[string]string{"neighbour.read_iops": "100000", "neighbour.write_iops": "100000"})
	if s.WriteBytes != 0 || s.ReadBytes != 0 {
		t.Fatalf("over-subtracted: %+v", s)
	}

	s = process
	(&diskWindow{err: errors.New("/x is on device 0:45, which is not a block device")}).fill(&s, 1024, nil)
	if s.WriteBytes != 400<<20 || s.BytesSource != "process" || !strings.Contains(s.Note, "not a block device") {
		t.Fatalf("no device: %+v", s)
	}
}
