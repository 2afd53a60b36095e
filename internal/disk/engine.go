package disk

import (
	"math"
	"sort"
	"time"
)

type opKind int

const (
	opRead opKind = iota
	opWrite
	opFlush
)

// ioreq is one command to the device, as the kernel sent it.
type ioreq struct {
	op      opKind
	off, n  int64
	arrived time.Duration
	seq     uint64        // for a flush: the last write it must see on the platter
	at      time.Duration // completion, once known
	done    chan struct{} // closed at completion by the real-time runner
	tag     int           // the simulation's client
}

// engine is a device model in time relative to the device's birth. It is
// driven by a clock: the real-time runner in serve.go, or the simulation
// in sim.go that gives the documented figures; both run the same code.
type engine interface {
	// arrive takes a command at now; true when its completion time is
	// known at once (r.at), as for a write into a cache.
	arrive(r *ioreq, now time.Duration) bool
	// next returns when the operation in progress ends, starting one if
	// the device is idle and has work; false when there is nothing to do.
	next(now time.Duration) (time.Duration, bool)
	// complete ends the operation in progress at its end time and
	// returns the commands that completed with it.
	complete(at time.Duration) []*ioreq
}

// cached is an engine with a write cache.
type cached interface {
	// cacheFull is true once writes wait for room in the cache: the
	// sustained state.
	cacheFull() bool
}

// destageWindow is how many of its oldest dirty blocks a drive considers
// when it chooses what to write next: with 12 the model sustains ~150
// random 4k writes a second through its cache, about what 7200 rpm drives
// do once their cache is full; a choice among all 32 queue slots would
// give ~600, which no such drive sustains.
const destageWindow = 12

// streamGap: a destage of data that was in the cache before the head
// stopped where it begins, started this soon after, is the drive writing
// on without a pause; the gap only absorbs the real-time runner's wake-up.
const streamGap = time.Millisecond

// interfaceRate is the host link of the HDD (SATA 6 Gb/s): what a hit in
// the drive's cache costs beyond the command.
const interfaceRate = 600e6

func transfer(n int64, rate float64) time.Duration {
	return time.Duration(float64(n) / rate * float64(time.Second))
}

// extent is a dirty range in a write cache; seq is its oldest write,
// ready when its oldest data had crossed the link (a destage takes the
// front of an extent).
type extent struct {
	off, end int64
	seq      uint64
	ready    time.Duration
}

// hdd is a 7200 rpm-class drive: one actuator whose seek time grows with
// the square root of the distance, platters whose angle follows the clock
// (so a request waits for its sector to come round), a read-ahead segment,
// a write cache destaged in the order that needs the least head movement,
// and command queueing that serves the nearest queued request first.
type hdd struct {
	size                  int64
	rpm, mediaRate        float64
	t2t, stroke, command  time.Duration
	cacheCap, raCap       int64
	flushMode             string
	queueMax              int
	rps, trackBytes, nTrk float64

	headTrack float64
	headOff   int64
	headFree  time.Duration // when the last operation ended, at headOff
	queue     []*ioreq
	dirty     []extent // sorted by off, disjoint
	dirtyN    int64
	blocked   []*ioreq // writes that found the cache full
	flushes   []*ioreq
	writeSeq  uint64
	busy      *headOp
	seg       segment
}

type headOp struct {
	end     time.Duration
	req     *ioreq // nil for a destage
	destage extent
}

// segment is the read-ahead buffer: the medium was at end at time at, and
// while reading is true the drive goes on reading into it.
type segment struct {
	start, end int64
	at         time.Duration
	reading    bool
}

func (h *hdd) init() {
	h.rps = h.rpm / 60
	h.trackBytes = h.mediaRate / h.rps
	h.nTrk = math.Max(1, float64(h.size)/h.trackBytes)
}

func (h *hdd) buffered(now time.Duration) int64 {
	if !h.seg.reading {
		return h.seg.end
	}
	return h.seg.end + int64((now-h.seg.at).Seconds()*h.mediaRate)
}

func (h *hdd) inSegment(off, end int64, now time.Duration) bool {
	b := h.buffered(now)
	start := max(h.seg.start, b-h.raCap)
	return off >= start && end <= b && end > off
}

func (h *hdd) cached(off, end int64) bool {
	i := sort.Search(len(h.dirty), func(i int) bool { return h.dirty[i].end > off })
	return i < len(h.dirty) && h.dirty[i].off <= off && h.dirty[i].end >= end
}

func (h *hdd) arrive(r *ioreq, now time.Duration) bool {
	switch r.op {
	case opRead:
		if h.cached(r.off, r.off+r.n) || (h.raCap > 0 && h.inSegment(r.off, r.off+r.n, now)) {
			r.at = now + h.command + transfer(r.n, interfaceRate)
			return true
		}
	case opWrite:
		if h.cacheCap == 0 {
			break
		}
		if len(h.blocked) == 0 && h.dirtyN+r.n <= h.cacheCap {
			r.at = now + h.command + transfer(r.n, interfaceRate)
			h.absorb(r)
			return true
		}
		h.blocked = append(h.blocked, r)
		return false
	case opFlush:
		if h.flushMode == "ignore" || len(h.dirty) == 0 {
			r.at = now + h.command
			return true
		}
		r.seq = h.writeSeq
		h.flushes = append(h.flushes, r)
		return false
	}
	h.queue = append(h.queue, r)
	return false
}

func (h *hdd) cacheFull() bool { return h.cacheCap == 0 || len(h.blocked) > 0 }

// absorb puts a write into the cache, merging it with what it touches.
func (h *hdd) absorb(r *ioreq) {
	h.writeSeq++
	e := extent{r.off, r.off + r.n, h.writeSeq, r.at}
	i := sort.Search(len(h.dirty), func(i int) bool { return h.dirty[i].end >= e.off })
	j := i
	for j < len(h.dirty) && h.dirty[j].off <= e.end {
		d := h.dirty[j]
		h.dirtyN -= d.end - d.off
		e.off, e.end, e.seq, e.ready = min(e.off, d.off), max(e.end, d.end), min(e.seq, d.seq), min(e.ready, d.ready)
		j++
	}
	h.dirty = append(h.dirty[:i], append([]extent{e}, h.dirty[j:]...)...)
	h.dirtyN += e.end - e.off
}

// position is the seek and the rotational wait to reach off when the head
// starts moving at t.
func (h *hdd) position(off int64, t time.Duration) time.Duration {
	track := math.Floor(float64(off) / h.trackBytes)
	var seek time.Duration
	if d := math.Abs(track - h.headTrack); d >= 1 {
		seek = h.t2t + time.Duration(float64(h.stroke-h.t2t)*math.Sqrt(d/h.nTrk))
	}
	there := (t + seek).Seconds() * h.rps
	angle := float64(off)/h.trackBytes - track
	wait := angle - (there - math.Floor(there))
	if wait < 0 {
		wait++
	}
	return seek + time.Duration(wait/h.rps*float64(time.Second))
}

func (h *hdd) next(now time.Duration) (time.Duration, bool) {
	if h.busy != nil {
		return h.busy.end, true
	}
	urgent := len(h.flushes) > 0 || len(h.blocked) > 0 || h.dirtyN*4 > h.cacheCap*3
	switch {
	case len(h.dirty) > 0 && (urgent || len(h.queue) == 0):
		h.startDestage(now)
	case len(h.queue) > 0:
		h.startRequest(now)
	default:
		return 0, false
	}
	return h.busy.end, true
}

// pick is the queued request the drive serves next: the one its head
// reaches soonest among the first queueMax, unless the oldest has waited
// half a second (drives bound starvation too).
func (h *hdd) pick(now time.Duration) int {
	if len(h.queue) == 1 || now-h.queue[0].arrived > 500*time.Millisecond {
		return 0
	}
	best, bestT := 0, time.Duration(math.MaxInt64)
	for i, r := range h.queue[:min(len(h.queue), h.queueMax)] {
		t := h.position(r.off, now+h.command)
		if r.op == opRead && h.seg.reading && r.off >= h.seg.start && r.off <= h.buffered(now) {
			t = 0
		}
		if t < bestT {
			best, bestT = i, t
		}
	}
	return best
}

func (h *hdd) startRequest(now time.Duration) {
	i := h.pick(now)
	r := h.queue[i]
	h.queue = append(h.queue[:i], h.queue[i+1:]...)
	end := r.off + r.n
	if r.op == opRead && h.seg.reading && r.off >= h.seg.start && r.off <= h.buffered(now) {
		// the head is already streaming towards it: wait for the medium
		reach := h.seg.at + transfer(end-h.seg.end, h.mediaRate)
		done := max(now, reach) + h.command + transfer(r.n, interfaceRate)
		h.seg.end, h.seg.at = end, reach
		h.busy = &headOp{end: done, req: r}
		return
	}
	start := now + h.command
	done := start + h.position(r.off, start) + transfer(r.n, h.mediaRate)
	h.moveHead(end)
	h.seg = segment{start: r.off, end: end, at: done, reading: r.op == opRead && h.raCap > 0}
	h.busy = &headOp{end: done, req: r}
}

func (h *hdd) moveHead(to int64) {
	h.headOff = to
	h.headTrack = math.Floor(float64(to) / h.trackBytes)
}

// startDestage writes, of the destageWindow oldest dirty extents, the one
// the head reaches soonest, at most 1 MB of it. A destage that goes on
// where the head is at that moment streams without losing a revolution.
func (h *hdd) startDestage(now time.Duration) {
	start := now + h.command
	best, bestT := -1, time.Duration(math.MaxInt64)
	for _, j := range h.oldest(min(h.queueMax, destageWindow)) {
		d := h.dirty[j]
		if d.off == h.headOff && d.ready <= h.headFree && now-h.headFree < streamGap {
			best, bestT, start = j, 0, now
			break
		}
		if t := h.position(d.off, max(start, d.ready)) + max(0, d.ready-start); t < bestT {
			best, bestT = j, t
		}
	}
	e := h.dirty[best]
	e.end = min(e.end, e.off+1<<20)
	done := start + bestT + transfer(e.end-e.off, h.mediaRate)
	h.seg.end, h.seg.reading = h.buffered(now), false
	h.moveHead(e.end)
	h.busy = &headOp{end: done, destage: e}
}

// oldest returns the indexes of the k dirty extents written first.
func (h *hdd) oldest(k int) []int {
	if len(h.dirty) <= k {
		idx := make([]int, len(h.dirty))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, k+1)
	for i, d := range h.dirty {
		if len(idx) == k && d.seq >= h.dirty[idx[k-1]].seq {
			continue
		}
		at := sort.Search(len(idx), func(j int) bool { return h.dirty[idx[j]].seq > d.seq })
		idx = append(idx, 0)
		copy(idx[at+1:], idx[at:])
		idx[at] = i
		if len(idx) > k {
			idx = idx[:k]
		}
	}
	return idx
}

func (h *hdd) complete(at time.Duration) []*ioreq {
	op := h.busy
	h.busy, h.headFree = nil, at
	if op.req != nil {
		op.req.at = at
		return []*ioreq{op.req}
	}
	// the destaged range leaves the cache
	var out []*ioreq
	for k, d := range h.dirty {
		if d.off == op.destage.off {
			h.dirtyN -= op.destage.end - d.off
			if op.destage.end == d.end {
				h.dirty = append(h.dirty[:k], h.dirty[k+1:]...)
			} else {
				h.dirty[k].off = op.destage.end
			}
			break
		}
	}
	for len(h.blocked) > 0 && h.dirtyN+h.blocked[0].n <= h.cacheCap {
		r := h.blocked[0]
		h.blocked = h.blocked[1:]
		r.at = at + transfer(r.n, interfaceRate)
		h.absorb(r)
		out = append(out, r)
	}
	oldest := uint64(math.MaxUint64)
	for _, d := range h.dirty {
		oldest = min(oldest, d.seq)
	}
	kept := h.flushes[:0]
	for _, f := range h.flushes {
		if f.seq < oldest {
			f.at = at
			out = append(out, f)
		} else {
			kept = append(kept, f)
		}
	}
	h.flushes = kept
	return out
}

// flash is the SSD and the cloud volume: no moving parts, a latency per
// command, a number of commands served in parallel, and rate limits: the
// SATA link for the SSD, the provisioned IOPS and throughput (with burst
// credits) for the cloud volume.
type flash struct {
	size                        int64
	readLat, writeLat, flushLat time.Duration
	command                     time.Duration
	channels                    int
	linkRate                    float64
	iops, bps, burst            float64
	ioUnit                      int64

	chanFree      []time.Duration
	linkFree      time.Duration
	tatIO, tatB   time.Duration // theoretical arrival times of the rate limits (GCRA)
	lastWriteDone time.Duration
}

// gcra admits cost units at rate per second with tolerance burst units; it
// returns the earliest time at or after now the command may start.
func gcra(tat *time.Duration, now time.Duration, cost, rate, burst float64) time.Duration {
	tau := time.Duration(burst / rate * float64(time.Second))
	start := max(now, *tat-tau)
	*tat = max(*tat, start) + time.Duration(cost/rate*float64(time.Second))
	return start
}

func (f *flash) arrive(r *ioreq, now time.Duration) bool {
	if r.op == opFlush {
		r.at = max(now, f.lastWriteDone) + f.command + f.flushLat
		return true
	}
	start := now + f.command
	if f.iops > 0 {
		units := math.Ceil(float64(r.n) / float64(f.ioUnit))
		start = gcra(&f.tatIO, start, units, f.iops, max(f.burst, units))
	}
	if f.bps > 0 {
		start = gcra(&f.tatB, start, float64(r.n), f.bps, max(float64(r.n), f.bps/10))
	}
	lat := f.readLat
	if r.op == opWrite {
		lat = f.writeLat
		if f.linkRate > 0 { // the data crosses the link before it is written
			start = max(start, f.linkFree)
			f.linkFree = start + transfer(r.n, f.linkRate)
			start = f.linkFree
		}
	}
	done := start + lat
	if f.channels > 0 {
		if f.chanFree == nil {
			f.chanFree = make([]time.Duration, f.channels)
		}
		c := 0
		for i, t := range f.chanFree {
			if t < f.chanFree[c] {
				c = i
			}
		}
		done = max(start, f.chanFree[c]) + lat
		f.chanFree[c] = done
	}
	if r.op == opRead && f.linkRate > 0 { // and back over the link
		f.linkFree = max(done, f.linkFree) + transfer(r.n, f.linkRate)
		done = f.linkFree
	}
	if r.op == opWrite {
		f.lastWriteDone = max(f.lastWriteDone, done)
	}
	r.at = done
	return true
}

func (f *flash) next(time.Duration) (time.Duration, bool) { return 0, false }
func (f *flash) complete(time.Duration) []*ioreq          { return nil }
