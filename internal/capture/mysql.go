package capture

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// MySQL capability flags the capture reads.
const (
	capMySQL        = 1 << 0 // unset by MariaDB, whose extended flags follow
	capConnectDB    = 1 << 3
	capCompress     = 1 << 5
	capProtocol41   = 1 << 9
	capSSL          = 1 << 11
	capPluginAuth   = 1 << 19
	capConnectAttrs = 1 << 20
	capLenencAuth   = 1 << 21
	capDeprecateEOF = 1 << 24
	capCacheMeta    = 1 << 36 // MariaDB's MARIADB_CLIENT_CACHE_METADATA
)

// Commands (the first byte of a command packet).
const (
	comQuit         = 0x01
	comInitDB       = 0x02
	comQuery        = 0x03
	comFieldList    = 0x04
	comPing         = 0x0e
	comChangeUser   = 0x11
	comStmtPrepare  = 0x16
	comStmtExecute  = 0x17
	comStmtLongData = 0x18
	comStmtClose    = 0x19
	comStmtReset    = 0x1a
	comResetConn    = 0x1f
)

type myStmt struct {
	text   string
	params int
	types  []byte
}

// myPending is a command the server has still to answer.
type myPending struct {
	cmd   *Command
	com   byte
	phase myPhase
	left  int // column or parameter definitions still to come
	rows  RowSum
}

// mySession follows one MariaDB/MySQL session.
type mySession struct {
	s       *session
	caps    atomic.Uint64 // the server's, then those both sides have
	infile  atomic.Bool   // the client is sending a LOAD DATA LOCAL file
	mu      sync.Mutex
	pending []*myPending
	stmts   map[uint32]*myStmt
	last    uint32 // the last prepared statement (MariaDB's id 0xFFFFFFFF)
}

func runMySQL(s *session) string {
	my := &mySession{s: s, stmts: map[uint32]*myStmt{}}
	done := make(chan string, 2)
	go func() { done <- my.fromClient(newPipe(s.client, s.server)) }()
	go func() { done <- my.fromServer(newPipe(s.server, s.client)) }()
	reason := <-done
	s.client.Close()
	s.server.Close()
	<-done
	my.mu.Lock()
	var left []*Command
	for _, p := range my.pending {
		left = append(left, p.cmd)
	}
	my.mu.Unlock()
	s.unanswered(left)
	return reason
}

// readPacket reads one logical packet: its frames as they came (a
// payload of 16 MiB or more spans several) and the joined payload.
func readPacket(p *pipe, buf []byte) (frames, payload []byte, err error) {
	frames = buf[:0]
	for first := true; ; first = false {
		start := len(frames)
		frames = slices.Grow(frames, 4)[:start+4]
		if _, err := io.ReadFull(p.r, frames[start:]); err != nil {
			return nil, nil, err
		}
		n := int(frames[start]) | int(frames[start+1])<<8 | int(frames[start+2])<<16
		frames = slices.Grow(frames, n)[:start+4+n]
		if _, err := io.ReadFull(p.r, frames[start+4:]); err != nil {
			return nil, nil, err
		}
		if first && n < 0xffffff {
			return frames, frames[4:], nil // the usual packet: its payload is read in place
		}
		payload = append(payload, frames[start+4:]...)
		if n < 0xffffff {
			return frames, payload, nil
		}
	}
}

func (my *mySession) fromClient(p *pipe) string {
	var buf []byte
	first := true
	for {
		frames, payload, err := readPacket(p, buf)
		if err != nil {
			if my.s.quit.Load() {
				return "client quit"
			}
			return "client closed"
		}
		buf = frames
		at := now()
		switch {
		case first:
			first = false
			if reason, ok := my.handshake(payload); !ok {
				return reason
			}
		case my.infile.Load():
			if len(payload) == 0 {
				my.infile.Store(false)
			}
		case my.s.authed.Load():
			if reason := my.clientCommand(payload, at); reason != "" {
				p.forward(frames)
				return reason
			}
		}
		if err := p.forward(frames); err != nil {
			return "server closed"
		}
	}
}

// handshake reads the client's handshake response: its user, database
// and connection attributes; its auth data is skipped, never kept.
func (my *mySession) handshake(b []byte) (string, bool) {
	r := &reader{b: b}
	caps := r.uint(4)
	if caps&capSSL != 0 {
		fmt.Fprintf(my.s.p.opt.Log, "capture: a client from %s asked for TLS, refused: the proxy cannot read encrypted traffic; connect without TLS (--skip-ssl, tls=false)\n",
			my.s.client.RemoteAddr())
		return "refused: the client asked for TLS", false
	}
	r.take(4 + 1 + 19)
	ext := r.uint(4) << 32
	both := my.caps.Load() & (caps | ext)
	my.caps.Store(both)
	user := r.nulString()
	switch {
	case caps&capLenencAuth != 0:
		r.lenencBytes()
	default:
		r.take(int(r.byte1()))
	}
	var db string
	if caps&capConnectDB != 0 {
		db = r.nulString()
	}
	if caps&capPluginAuth != 0 {
		r.nulString()
	}
	attrs := map[string]string{}
	if caps&capConnectAttrs != 0 {
		a := &reader{b: r.lenencBytes()}
		for len(a.b) > 0 && a.err == nil {
			k, v := string(a.lenencBytes()), string(a.lenencBytes())
			attrs[k] = v
		}
	}
	my.s.open(user, db, attrs)
	return "", true
}

// clientCommand queues a command before it goes to the server; the
// commands that get no answer are recorded at once.
func (my *mySession) clientCommand(b []byte, at int64) string {
	if len(b) == 0 {
		return ""
	}
	com, arg := b[0], b[1:]
	var cmd *Command
	switch com {
	case comQuit:
		my.s.quit.Store(true)
		return "client quit"
	case comQuery:
		cmd = my.s.command(TextKind(string(arg)), string(arg), at)
	case comInitDB:
		cmd = my.s.command(KindInitDB, "USE `"+string(arg)+"`", at)
	case comStmtPrepare:
		cmd = my.s.command(KindPrepare, string(arg), at)
	case comStmtExecute:
		cmd = my.execute(arg, at)
	case comStmtClose, comStmtLongData:
		my.noAnswer(com, arg, at)
		return ""
	case comChangeUser:
		// its auth data goes to a new authentication, never recorded
		my.s.authed.Store(false)
		return ""
	case comPing:
		cmd = my.s.command(KindPing, "", at)
	case comStmtReset, comResetConn:
		cmd = my.s.command(KindReset, "", at)
	default:
		cmd = my.s.command(KindOther, fmt.Sprintf("command 0x%02x", com), at)
	}
	my.mu.Lock()
	my.pending = append(my.pending, &myPending{cmd: cmd, com: com})
	my.mu.Unlock()
	return ""
}

func (my *mySession) stmt(id uint32) (*myStmt, uint32) {
	if id == 0xffffffff {
		id = my.last
	}
	st := my.stmts[id]
	if st == nil {
		st = &myStmt{}
		my.stmts[id] = st
	}
	return st, id
}

func (my *mySession) execute(arg []byte, at int64) *Command {
	r := &reader{b: arg}
	id := uint32(r.uint(4))
	r.take(5) // flags, iteration count
	my.mu.Lock()
	st, id := my.stmt(id)
	params, types, err := executeParams(r, st.params, st.types)
	st.types = types
	text := st.text
	my.mu.Unlock()
	c := my.s.command(KindExecute, text, at)
	c.Stmt, c.Params = strconv.FormatUint(uint64(id), 10), params
	if err != nil {
		c.Error = &Error{Message: "capture: " + err.Error()}
	}
	return c
}

func (my *mySession) noAnswer(com byte, arg []byte, at int64) {
	r := &reader{b: arg}
	id := uint32(r.uint(4))
	my.mu.Lock()
	st, id := my.stmt(id)
	text := st.text
	if com == comStmtClose {
		delete(my.stmts, id)
	}
	my.mu.Unlock()
	kind := KindClose
	if com == comStmtLongData {
		kind = KindOther
	}
	c := my.s.command(kind, text, at)
	c.Stmt = strconv.FormatUint(uint64(id), 10)
	my.s.finish(c, nil, at)
}
