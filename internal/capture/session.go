package capture

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// session is one client connection through the proxy: both directions
// are read by one goroutine each, which parse each message and only then
// pass its bytes on unchanged, so a command is queued before the server
// can answer it, and the end of authentication is known before the
// client can send a command after it.
type session struct {
	p      *proxy
	id     int64
	client net.Conn
	server net.Conn
	seq    int64 // the client side's goroutine alone counts
	authed atomic.Bool
	quit   atomic.Bool // the client said goodbye (COM_QUIT, Terminate)
	mu     sync.Mutex
	opened bool
	done   bool
}

func now() int64 { return time.Now().UnixNano() }

// open writes the session's first line once its user and database are
// known (the client's first message). Sessions are numbered here, so
// connections that never got as far (a refused TLS attempt, a cancel
// request) leave no gap.
func (s *session) open(user, db string, attrs map[string]string) {
	s.mu.Lock()
	s.opened = true
	s.id = s.p.ids.Add(1)
	s.mu.Unlock()
	s.p.w.line(Open{Type: "open", Session: s.id, AtNs: now(), Client: s.client.RemoteAddr().String(),
		User: user, Database: db, Attrs: attrs})
}

// command starts a command's record; the client side calls it, in order.
// The text is redacted here, the one place every protocol's statements
// pass, so no password a statement carries reaches the capture.
func (s *session) command(kind, text string, at int64) *Command {
	s.seq++
	return &Command{Type: "command", Session: s.id, Seq: s.seq, Kind: kind, Text: redact(text), StartNs: at}
}

func (s *session) finish(c *Command, r *RowSum, at int64) {
	c.EndNs = at
	if r != nil {
		c.Rows, c.Checksum = r.N, r.Sum()
	}
	s.p.w.line(*c)
}

// unanswered records commands the server never answered (the capture or
// the connection stopped first).
func (s *session) unanswered(cs []*Command) {
	for _, c := range cs {
		c.Unanswered = true
		s.p.w.line(*c)
	}
}

// close writes the session's last line, once.
func (s *session) close(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || !s.opened {
		s.done = true
		return
	}
	s.done = true
	s.p.w.line(Close{Type: "close", Session: s.id, AtNs: now(), Reason: reason})
}

// RowSum counts a result's rows and sums them: SHA-256 over each row's
// payload as the server sent it, each preceded by its length as 4 bytes
// big-endian, the first 8 bytes in hex (docs/capture.md). A replay sums
// its answers with it, so the two agree by construction.
type RowSum struct {
	N int64
	h hash.Hash
}

// Add counts one row, payload as the protocol carries it.
func (r *RowSum) Add(payload []byte) {
	if r.h == nil {
		r.h = sha256.New()
	}
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(payload)))
	r.h.Write(l[:])
	r.h.Write(payload)
	r.N++
}

// Sum is the checksum of the rows added, "" when there were none.
func (r *RowSum) Sum() string {
	if r.h == nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(r.h.Sum(nil)[:8])
}

// pipe carries one direction's bytes: whole messages are read, handed to
// the parser, then written on; the writer is flushed whenever nothing
// more is waiting, so no message waits for the next.
type pipe struct {
	r *bufio.Reader
	w *bufio.Writer
}

func newPipe(src io.Reader, dst io.Writer) *pipe {
	return &pipe{r: bufio.NewReaderSize(src, 64<<10), w: bufio.NewWriterSize(dst, 64<<10)}
}

// forward writes a message's bytes, unchanged.
func (p *pipe) forward(frame []byte) error {
	if _, err := p.w.Write(frame); err != nil {
		return err
	}
	if p.r.Buffered() == 0 {
		return p.w.Flush()
	}
	return nil
}

// readFull reads n bytes into buf (grown as needed).
func (p *pipe) readFull(buf []byte, n int) ([]byte, error) {
	if cap(buf) < n {
		buf = make([]byte, n, n*2)
	}
	buf = buf[:n]
	_, err := io.ReadFull(p.r, buf)
	return buf, err
}
