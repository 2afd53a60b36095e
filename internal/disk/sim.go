package disk

import (
	"container/heap"
	"math/rand/v2"
	"sync"
	"time"
)

// Pattern is one of the calibration loads, as fio runs it on the device.
type Pattern struct {
	Name  string
	RW    string // fio's: randread, randwrite, read, write
	BS    int64
	Depth int
	Fsync bool // a flush after every write, as fio --fsync=1
}

// Patterns are the figures every model documents and calibrate checks.
var Patterns = []Pattern{
	{"randread_4k_qd1", "randread", 4 << 10, 1, false},
	{"randwrite_4k_qd1", "randwrite", 4 << 10, 1, false},
	{"randread_4k_qd16", "randread", 4 << 10, 16, false},
	{"randwrite_4k_qd16", "randwrite", 4 << 10, 16, false},
	{"seqread_1m", "read", 1 << 20, 1, false},
	{"seqwrite_1m", "write", 1 << 20, 1, false},
	{"fsync_4k", "write", 4 << 10, 1, true},
}

// randomIOPS remembers RandomIOPS by model: a plan asks once per cell.
var randomIOPS sync.Map

// RandomIOPS is the disk's IOPS as a cap would state it: what the model
// does with random 4k reads at queue depth 16 (hdd 156, cloud 3,000, ssd
// 40,000); the neighbour "25%" takes a quarter of it. 0 for the raw disk.
func (s Spec) RandomIOPS() int {
	if !s.Modelled() {
		return 0
	}
	if v, ok := randomIOPS.Load(s.String()); ok {
		return v.(int)
	}
	for _, p := range Patterns {
		if p.Name == "randread_4k_qd16" {
			v, err := Simulate(s, p, 5*time.Second)
			if err != nil {
				return 0
			}
			randomIOPS.Store(s.String(), int(v+0.5))
			return int(v + 0.5)
		}
	}
	return 0
}

// Ramp is the start of every calibration load left out of its figure, as
// fio's ramp_time: a drive's write cache fills in the first second, and
// the figure is the sustained rate.
const Ramp = 2 * time.Second

// Simulate runs p on the model in virtual time for Ramp + d and returns
// the operations per second after the ramp (writes, for fsync_4k, as fio
// counts them). It is
// how docs/disks.md's figures were made: the device's own code, with a
// clock that does not sleep, and clients that never wait.
func Simulate(s Spec, p Pattern, d time.Duration) (float64, error) {
	e, err := s.newEngine()
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	span := s.Size() / p.BS
	var now time.Duration
	pos := int64(0)
	done := 0
	events := &byTime{}
	issue := func(client int, op opKind) {
		r := &ioreq{op: op, n: p.BS, arrived: now, tag: client}
		if op != opFlush {
			if p.RW == "randread" || p.RW == "randwrite" {
				r.off = rng.Int64N(span) * p.BS
			} else {
				r.off, pos = pos, (pos+p.BS)%(span*p.BS)
			}
			if p.RW == "randread" || p.RW == "read" {
				r.op = opRead
			}
		}
		if e.arrive(r, now) {
			heap.Push(events, r)
		}
	}
	for c := 0; c < p.Depth; c++ {
		issue(c, opWrite)
	}
	finish := func(r *ioreq) {
		now = r.at
		counts := now >= Ramp && now < d
		if r.op == opWrite && p.Fsync {
			if counts {
				done++
			}
			issue(r.tag, opFlush)
			return
		}
		if r.op != opFlush && counts {
			done++
		}
		if now < d {
			issue(r.tag, opWrite)
		}
	}
	d += Ramp
	for now < d {
		busyEnd, busy := e.next(now)
		if events.Len() > 0 && (!busy || (*events)[0].at <= busyEnd) {
			finish(heap.Pop(events).(*ioreq))
			continue
		}
		if !busy {
			break
		}
		now = busyEnd
		for _, r := range e.complete(busyEnd) {
			r.at = max(r.at, busyEnd)
			heap.Push(events, r)
		}
	}
	return float64(done) / (d - Ramp).Seconds(), nil
}

type byTime []*ioreq

func (b byTime) Len() int           { return len(b) }
func (b byTime) Less(i, j int) bool { return b[i].at < b[j].at }
func (b byTime) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }
func (b *byTime) Push(x any)        { *b = append(*b, x.(*ioreq)) }
func (b *byTime) Pop() any {
	old := *b
	x := old[len(old)-1]
	*b = old[:len(old)-1]
	return x
}
