package capture

import (
	"fmt"
	"strconv"
)

// myPhase is where in its answer a command is.
type myPhase int

const (
	phaseFirst   myPhase = iota // the answer's first packet: OK, ERR, LOCAL INFILE or a column count
	phaseColumns                // column definitions
	phaseColEOF                 // the EOF after them (without CLIENT_DEPRECATE_EOF)
	phaseRows                   // rows up to EOF, OK or ERR
	phaseDefs                   // a prepared statement's parameter and column definitions
)

const statusMoreResults = 0x0008

func (my *mySession) fromServer(p *pipe) string {
	var buf []byte
	greeted := false
	for {
		frames, payload, err := readPacket(p, buf)
		if err != nil {
			// the server closes its end once it reads the client's
			// COM_QUIT: the session ended because the client quit, even
			// when this side sees it before the client's side returns
			if my.s.quit.Load() {
				return "client quit"
			}
			return "server closed"
		}
		buf = frames
		at := now()
		switch {
		case !greeted:
			greeted = true
			my.greeting(frames, payload)
		case !my.s.authed.Load():
			if len(payload) > 0 && payload[0] == 0xff {
				p.forward(frames)
				return "refused by the server: " + myError(payload, my.caps.Load()).Message
			}
			if len(payload) > 0 && payload[0] == 0x00 {
				my.s.authed.Store(true)
			}
		default:
			my.answer(payload, at)
		}
		if err := p.forward(frames); err != nil {
			return "client closed"
		}
	}
}

// greeting reads the server's version and capabilities, and clears its
// TLS and compression flags (the only bits the proxy changes) so that a
// client which would take either goes on in plain packets instead: the
// proxy could read nothing of an encrypted or compressed session.
func (my *mySession) greeting(frames, b []byte) {
	r := &reader{b: b}
	if r.byte1() != 10 {
		return
	}
	version := r.nulString()
	my.s.p.serverVersion(version)
	r.take(4 + 8 + 1) // thread id, scramble, filler
	low := r.uint(2)
	if r.err == nil {
		at := 4 + (len(b) - len(r.b) - 2) // the flags' offset in the frame
		frames[at] &^= capCompress
		frames[at+1] &^= capSSL >> 8
	}
	r.take(1 + 2)
	caps := low | r.uint(2)<<16
	r.take(1 + 6)
	if caps&capMySQL == 0 {
		caps |= r.uint(4) << 32
	}
	my.caps.Store(caps &^ (capSSL | capCompress))
}

// answer hands one packet of the server's answer to the oldest command.
func (my *mySession) answer(b []byte, at int64) {
	my.mu.Lock()
	defer my.mu.Unlock()
	if len(my.pending) == 0 || len(b) == 0 {
		return
	}
	h := my.pending[0]
	caps := my.caps.Load()
	switch {
	case b[0] == 0xff && h.phase != phaseColumns && h.phase != phaseDefs:
		h.cmd.Error = myError(b, caps)
		my.done(at)
	case h.com == comStmtPrepare && h.phase == phaseFirst:
		my.prepared(h, b, caps, at)
	case h.phase == phaseDefs:
		if h.left--; h.left == 0 {
			my.done(at)
		}
	case h.phase == phaseFirst:
		my.first(h, b, caps, at)
	case h.phase == phaseColumns:
		if h.left--; h.left == 0 {
			h.phase = phaseRows
			if caps&capDeprecateEOF == 0 {
				h.phase = phaseColEOF
			}
		}
	case h.phase == phaseColEOF:
		h.phase = phaseRows
	case b[0] == 0xfe && (len(b) < 9 || (caps&capDeprecateEOF != 0 && len(b) < 0xffffff)):
		my.resultEnd(h, b, caps, at)
	default:
		h.rows.Add(b)
	}
}

// first reads the first packet of a query's or an execute's answer.
func (my *mySession) first(h *myPending, b []byte, caps uint64, at int64) {
	r := &reader{b: b[1:]}
	switch b[0] {
	case 0x00:
		n, _ := r.lenenc()
		h.cmd.Affected += int64(n)
		r.lenenc()
		if r.uint(2)&statusMoreResults == 0 || h.com != comQuery && h.com != comStmtExecute {
			my.done(at)
		}
	case 0xfb:
		my.infile.Store(true) // the client's file follows, then the server's OK or ERR
	default:
		r = &reader{b: b}
		n, _ := r.lenenc()
		if caps&capCacheMeta != 0 && r.byte1() == 0 {
			h.phase = phaseRows // the client has these columns' definitions cached
			return
		}
		h.phase, h.left = phaseColumns, int(n)
	}
}

// resultEnd reads the EOF or OK that ends a result's rows: another
// result may follow (several statements, a procedure's results).
func (my *mySession) resultEnd(h *myPending, b []byte, caps uint64, at int64) {
	r := &reader{b: b[1:]}
	var status uint64
	if caps&capDeprecateEOF != 0 {
		r.lenenc()
		r.lenenc()
		status = r.uint(2)
	} else {
		r.take(2)
		status = r.uint(2)
	}
	if status&statusMoreResults != 0 {
		h.phase = phaseFirst
		return
	}
	my.done(at)
}

// prepared reads COM_STMT_PREPARE's OK: the statement's id and how many
// parameter and column definitions follow.
func (my *mySession) prepared(h *myPending, b []byte, caps uint64, at int64) {
	r := &reader{b: b[1:]}
	id := uint32(r.uint(4))
	cols, params := int(r.uint(2)), int(r.uint(2))
	my.stmts[id] = &myStmt{text: h.cmd.Text, params: params}
	my.last = id
	h.cmd.Stmt = strconv.FormatUint(uint64(id), 10)
	eof := 0
	if caps&capDeprecateEOF == 0 {
		eof = 1
	}
	for _, n := range []int{params, cols} {
		if n > 0 {
			h.left += n + eof
		}
	}
	if h.left == 0 {
		my.done(at)
		return
	}
	h.phase = phaseDefs
}

// done ends the oldest command; called with mu held.
func (my *mySession) done(at int64) {
	h := my.pending[0]
	my.pending = my.pending[1:]
	my.s.finish(h.cmd, &h.rows, at)
}

func myError(b []byte, caps uint64) *Error {
	r := &reader{b: b[1:]}
	e := &Error{Code: strconv.FormatUint(r.uint(2), 10)}
	if caps&capProtocol41 != 0 && len(r.b) > 0 && r.b[0] == '#' {
		r.take(1)
		e.State = string(r.take(5))
	}
	e.Message = string(r.b)
	if r.err != nil {
		e.Message = fmt.Sprintf("a malformed error packet (%d bytes)", len(b))
	}
	return e
}
