// Package cloop runs one client's point reads in a loop of C on a thread
// of its own, through libmariadb's prepared statements, as sysbench does.
//
// Why: with 8 clients sharing 2 cores with the server, every client in Go
// (the pure-Go driver, or libmariadb called from a goroutine) trailed
// sysbench's point selects by 14-25%, while a C thread running the whole
// loop tied with it (docs/bench-log.md#2026-11-27--innodbs-io_uring-stall-and-a-client-on-libmariadb): what costs
// is Go's scheduler between the kernel's wake-up and the next query, not
// the driver. So the loop runs without Go; Go only hands it the reads
// (which ids, which statement, the row expected) and takes back what each
// event took, through a ring in C memory, every few milliseconds.
package cloop

/*
#cgo CFLAGS: -I/usr/include/mariadb -O2
#cgo LDFLAGS: -lmariadb -lpthread
#include "cloop.h"
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/proto"
	"shootout/internal/workload"
)

// ClientParam is the value of a workload's client parameter that runs
// its clients on this package's loops.
const ClientParam = "libmariadb"

// Check is what a read's row is checked for.
type Check int

const (
	// AnyRow reads the row and drops it: sysbench's point select.
	AnyRow Check = C.CLOOP_ANY
	// Values checks value1 (BIGINT) and value2 (DOUBLE) against the
	// read's Want1 and Want2: kv's point read.
	Values Check = C.CLOOP_VALUES
)

// Status is what a read found.
type Status int

const (
	OK       Status = C.CLOOP_OK
	NoRow    Status = C.CLOOP_NO_ROW
	ManyRows Status = C.CLOOP_ROWS
	Wrong    Status = C.CLOOP_WRONG // Values: not the row expected
)

// Options say where the server is and what one event reads.
type Options struct {
	// Server is where the server is (tcp or unix), with its credentials.
	Server proto.Endpoint
	// Queries are the statements a read may name by index, each taking
	// one id and returning the columns Check reads.
	Queries []string
	Check   Check
	// PerEvent is how many reads make one event, timed as one.
	PerEvent int
}

// Read is one read asked of the loop, and what it found.
type Read struct {
	Stmt  int
	ID    int64
	Want1 int64
	Want2 float64
	// filled in by the loop
	Status Status
	Got1   int64
	Got2   float64
}

// Handler feeds a running loop and takes what it did.
type Handler interface {
	// Next fills the reads of the next event (len PerEvent), or says
	// there are no more (the client has done its share).
	Next(event []Read) bool
	// Finished is one event done, its reads with what they found.
	Finished(event []Read, took time.Duration)
	// InFlight is when the event in flight began (UnixNano), 0 for none.
	InFlight(since int64)
}

// ringReads is how many reads Go hands the loop ahead: Go drains every
// drainEvery, so the loop waits on Go only if one client did more than
// 2048 reads in that time (here about 20 k/s a client at the most).
const ringReads = 2048

// drainEvery is how often Go takes what the loops did (one goroutine for
// all of them: 50 wake-ups a second).
const drainEvery = 20 * time.Millisecond

// Conn is one client: its connection and statements, and its loop.
type Conn struct {
	l     *C.cloop
	ring  []C.cloop_read
	per   int64
	event []Read
	// what Go has handed the loop, in reads since the connection opened
	filled int64
}

// libraryInit is libmariadb's set-up, which is not safe to run from
// several threads at once, as the first mysql_init of each would.
var libraryInit sync.Once

// Open connects and prepares the statements.
func Open(o Options) (*Conn, error) {
	libraryInit.Do(func() { C.mysql_server_init(0, nil, nil) })
	if o.PerEvent < 1 || len(o.Queries) == 0 {
		return nil, errors.New("cloop: an event needs a read and a statement")
	}
	size := int64(ringReads)
	for size < int64(4*o.PerEvent) {
		size *= 2
	}
	l := (*C.cloop)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cloop{}))))
	cs := func(s string) *C.char { return C.CString(s) }
	h, port := o.Server.HostPort()
	socket := o.Server.Socket()
	strs := []*C.char{cs(h), cs(o.Server.User), cs(o.Server.Password), cs(o.Server.Database), cs(socket)}
	queries := (**C.char)(C.calloc(C.size_t(len(o.Queries)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	qs := unsafe.Slice(queries, len(o.Queries))
	for i, q := range o.Queries {
		qs[i] = cs(q)
		strs = append(strs, qs[i])
	}
	host, sock := strs[0], strs[4]
	if socket != "" {
		host = nil // libmariadb takes the socket only for host NULL or localhost
	} else {
		sock = nil
	}
	msg := C.cloop_open(l, host, C.uint(port), sock, strs[1], strs[2], strs[3], queries, C.int(len(o.Queries)), C.int(o.Check), C.int(o.PerEvent), C.int64_t(size))
	for _, s := range strs {
		C.free(unsafe.Pointer(s))
	}
	C.free(unsafe.Pointer(queries))
	c := &Conn{l: l, per: int64(o.PerEvent), event: make([]Read, o.PerEvent)}
	if msg != nil {
		err := c.lastError()
		c.Close()
		return nil, err
	}
	c.ring = unsafe.Slice(l.ring, size)
	return c, nil
}

// Close ends the connection. It must not overlap Run: the driver closes a
// worker only once its Loop has returned, and Run returns only once its
// thread has ended.
func (c *Conn) Close() {
	if c.l == nil {
		return
	}
	C.cloop_store32(&c.l.stop, 1)
	C.cloop_close(c.l)
	C.free(unsafe.Pointer(c.l))
	c.l, c.ring = nil, nil
}

// ErrDone is what Run and Once return when the handler has no more
// reads and every one it gave has finished.
var ErrDone = errors.New("cloop: no more reads")

// Once runs one event from Go (a cgo call): for a run the loop cannot
// serve (a fixed rate, an operation count).
func (c *Conn) Once(h Handler) error {
	pos := C.cloop_load(&c.l.done)
	if !h.Next(c.event) {
		return ErrDone
	}
	c.put(int64(pos))
	began := time.Now()
	if C.cloop_once(c.l, pos) != 0 {
		return c.lastError()
	}
	took := time.Since(began)
	c.filled = int64(pos) + c.per
	C.cloop_store(&c.l.filled, C.int64_t(c.filled))
	C.cloop_store(&c.l.done, C.int64_t(c.filled))
	h.Finished(c.take(int64(pos)), took)
	return nil
}

// Run runs events on the loop's thread until until, ctx ends, or one
// fails: its error is returned, and the next Run starts with that event
// again; or until h has no more reads (ErrDone once they have finished).
// What each finished event took is handed to h as it is drained.
func (c *Conn) Run(ctx context.Context, until time.Time, h Handler) error {
	r := &run{c: c, h: h, ctx: ctx, drained: int64(C.cloop_load(&c.l.done)), result: make(chan error, 1)}
	if c.filled < r.drained {
		c.filled = r.drained
	}
	r.fill()
	if rc := C.cloop_start(c.l, C.cloop_now()+C.int64_t(time.Until(until))); rc != 0 {
		return fmt.Errorf("cloop: start the client's thread: error %d", rc)
	}
	pumps.add(r)
	return <-r.result
}

// run is one Run under way: the pump drains and refills it.
type run struct {
	c         *Conn
	h         Handler
	ctx       context.Context
	drained   int64 // events handed to h.Finished, in reads
	exhausted bool  // h has no more reads
	stopping  bool
	result    chan error
}

func (r *run) fill() {
	c := r.c
	for !r.exhausted && c.filled+c.per <= r.drained+int64(len(c.ring)) {
		if !r.h.Next(c.event) {
			r.exhausted = true
			break
		}
		c.put(c.filled)
		c.filled += c.per
	}
	C.cloop_store(&c.l.filled, C.int64_t(c.filled))
}

// step hands h what the loop finished since the last step and refills
// the ring; once the thread has ended it returns true and the run's error.
func (r *run) step() (ended bool, err error) {
	c, l := r.c, r.c.l
	size := int64(len(c.ring))
	finished := C.cloop_load32(&l.finished) != 0
	for end := int64(C.cloop_load(&l.done)); r.drained < end; r.drained += c.per {
		ev := c.take(r.drained)
		r.h.Finished(ev, time.Duration(c.ring[(r.drained+c.per-1)%size].latency))
	}
	r.h.InFlight(int64(C.cloop_load(&l.since)))
	if finished {
		C.cloop_join(l)
		r.h.InFlight(0)
		switch {
		case l.errnum != 0 || l.errmsg[0] != 0:
			return true, c.lastError()
		case r.exhausted && r.drained == c.filled:
			return true, ErrDone
		}
		return true, nil
	}
	r.fill()
	if !r.stopping && (r.ctx.Err() != nil || r.exhausted && r.drained == c.filled) {
		// the thread ends after the event in flight; the next steps
		// wait for it without blocking the other runs
		C.cloop_store32(&l.stop, 1)
		r.stopping = true
	}
	return false, nil
}

// pumps is the one goroutine that steps every run under way, every
// drainEvery: one Go wake-up for all the clients, not one per client,
// so Go's scheduler does not come between the loops and the server.
var pumps pump

type pump struct {
	mu      sync.Mutex
	runs    []*run
	running bool
}

func (p *pump) add(r *run) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs = append(p.runs, r)
	if !p.running {
		p.running = true
		go p.loop()
	}
}

func (p *pump) loop() {
	tick := time.NewTicker(drainEvery)
	defer tick.Stop()
	for range tick.C {
		p.mu.Lock()
		going := p.runs[:0]
		for _, r := range p.runs {
			if ended, err := r.step(); ended {
				r.result <- err
			} else {
				going = append(going, r)
			}
		}
		clear(p.runs[len(going):])
		p.runs = going
		if len(going) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

func (c *Conn) put(first int64) {
	size := int64(len(c.ring))
	for i, r := range c.event {
		s := &c.ring[(first+int64(i))%size]
		*s = C.cloop_read{stmt: C.int32_t(r.Stmt), id: C.int64_t(r.ID), want1: C.int64_t(r.Want1), want2: C.double(r.Want2)}
	}
}

func (c *Conn) take(first int64) []Read {
	size := int64(len(c.ring))
	for i := range c.event {
		s := &c.ring[(first+int64(i))%size]
		c.event[i] = Read{Stmt: int(s.stmt), ID: int64(s.id), Want1: int64(s.want1), Want2: float64(s.want2),
			Status: Status(s.status), Got1: int64(s.got1), Got2: float64(s.got2)}
	}
	return c.event
}

// lastError is the error the loop kept, as the MySQL driver would give
// it, so it is classified the same (2006/2013: the connection was lost).
func (c *Conn) lastError() error {
	e := &mysql.MySQLError{Number: uint16(c.l.errnum), Message: C.GoString(&c.l.errmsg[0])}
	for i := range e.SQLState {
		e.SQLState[i] = byte(c.l.sqlstate[i])
	}
	return e
}

// Reads is what a workload makes of a client's loop: the reads of each
// event, and what each finished event did (its checks, its counts).
type Reads interface {
	// Next fills the next event's reads, or says the client is done.
	Next(event []Read) bool
	// Done is a finished event's outcome, after checking its reads.
	Done(event []Read) workload.Outcome
}

// Worker is a workload.Looper on a Conn: the driver runs a timed closed
// loop with Loop, and anything else with Do, one cgo call an event. A
// workload embeds it and adds its Counters (and error policy).
type Worker struct {
	conn  *Conn
	reads Reads
	rec   workload.LoopRecorder
	out   workload.Outcome // Do's, from Finished
	did   bool
}

// NewWorker runs reads' events on conn; Close closes conn.
func NewWorker(conn *Conn, reads Reads) *Worker { return &Worker{conn: conn, reads: reads} }

func (w *Worker) Next(event []Read) bool { return w.reads.Next(event) }

func (w *Worker) Finished(event []Read, took time.Duration) {
	w.out, w.did = w.reads.Done(event), true
	if w.rec != nil {
		w.rec.Finished(w.out, took)
	}
}

func (w *Worker) InFlight(since int64) {
	if w.rec != nil {
		w.rec.InFlight(since)
	}
}

func (w *Worker) Loop(ctx context.Context, until time.Time, rec workload.LoopRecorder) (workload.Outcome, error) {
	w.rec = rec
	defer func() { w.rec = nil }()
	err := w.conn.Run(ctx, until, w)
	if errors.Is(err, ErrDone) {
		err = workload.ErrClientDone
	}
	return workload.Outcome{}, err
}

func (w *Worker) Do(ctx context.Context) (workload.Outcome, error) {
	w.did = false
	switch err := w.conn.Once(w); {
	case errors.Is(err, ErrDone):
		return workload.Outcome{}, workload.ErrClientDone
	case err != nil:
		return workload.Outcome{}, err
	case !w.did:
		return workload.Outcome{}, errors.New("libmariadb client: an event finished without its reads")
	}
	return w.out, nil
}

func (w *Worker) Abort(context.Context) {}

func (w *Worker) Close() error {
	w.conn.Close()
	return nil
}
