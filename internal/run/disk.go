package run

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"shootout/internal/limits"
	"shootout/internal/metrics"
	"shootout/internal/result"
	"shootout/internal/workload"
)

// diskWindow counts what the device holding the data directory was sent
// during the run: the figure iostat would show, and the one bytes written
// and write amplification use. The page cache is synced at both ends, so
// the load's leftovers stay out and what the server handed the kernel
// during the run is in.
type diskWindow struct {
	dir      string
	dev      metrics.Device
	err      error
	r0, w0   int64
	r1, w1   int64
	from, to time.Time
}

// errNoDataDir: an external server, whose process figures are not
// measured either (its note says so).
var errNoDataDir = errors.New("data directory unknown")

func startDiskWindow(dataDir string) *diskWindow {
	d := &diskWindow{dir: dataDir}
	if dataDir == "" {
		d.err = errNoDataDir
		return d
	}
	if d.dev, d.err = metrics.DeviceOf(dataDir); d.err != nil {
		return d
	}
	if d.err = metrics.SyncFS(dataDir); d.err != nil {
		return d
	}
	d.r0, d.w0, d.err = d.dev.Bytes()
	d.from = time.Now()
	return d
}

func (d *diskWindow) stop() {
	if d.err != nil {
		return
	}
	if d.err = metrics.SyncFS(d.dir); d.err != nil {
		return
	}
	d.r1, d.w1, d.err = d.dev.Bytes()
	d.to = time.Now()
}

// fill puts the device's figures in place of the process tree's, which
// move to process_*; a fio neighbour's share is taken out at the rate fio
// reported, in its 4 kB blocks.
func (d *diskWindow) fill(s *result.Server, events int64, neighbour map[string]string) {
	s.ProcessReadBytes, s.ProcessWriteBytes = s.ReadBytes, s.WriteBytes
	s.ProcessReadBytesPerOp, s.ProcessWriteBytesPerOp = s.ReadBytesPerOp, s.WriteBytesPerOp
	if d.err != nil || events == 0 {
		s.BytesSource = "process"
		if d.err != nil && d.err != errNoDataDir {
			s.Note = joinNotes(s.Note, "bytes read and written are the process tree's (/proc/PID/io): no device counters: "+d.err.Error())
		}
		return
	}
	secs := d.to.Sub(d.from).Seconds()
	read, written := d.r1-d.r0, d.w1-d.w0
	s.BytesSource = fmt.Sprintf("device %s (%s)", d.dev.Name, d.dev.Dev)
	// absent when fio gave no report; the cell fails then anyway
	if _, reported := neighbour["neighbour.write_iops"]; reported {
		r, _ := strconv.ParseFloat(neighbour["neighbour.read_iops"], 64)
		w, _ := strconv.ParseFloat(neighbour["neighbour.write_iops"], 64)
		read -= int64(r * limits.NeighbourBlockBytes * secs)
		written -= int64(w * limits.NeighbourBlockBytes * secs)
		s.BytesSource += ", less the neighbour's IO at the rate fio reported"
	}
	s.ReadBytes, s.WriteBytes = max(read, 0), max(written, 0)
	s.ReadBytesPerOp, s.WriteBytesPerOp = float64(s.ReadBytes)/float64(events), float64(s.WriteBytes)/float64(events)
}

// writeAmplification is the server's bytes written per byte of row data
// the workload changed; both span the whole driven run, trimmed operations
// included, so they divide cleanly.
func writeAmplification(s result.Server, counters map[string]int64) *float64 {
	logical := counters[workload.LogicalBytes]
	if !s.Measured || logical <= 0 {
		return nil
	}
	wa := float64(s.WriteBytes) / float64(logical)
	return &wa
}
