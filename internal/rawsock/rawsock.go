// Package rawsock gives clients a socket whose reads and writes do not
// pass through the Go scheduler's system-call bookkeeping.
//
// A client at a few connections spends most of its time in write and read
// on a socket that never blocks (Go sets every socket non-blocking). Made
// through package syscall, each of those calls marks its P as in a system
// call; Go's monitor thread, waking every 20 µs, then hands the P to
// another thread, which costs futex wake-ups and thread switches on every
// query. On this project's 2-core machine that was 11% of the client's CPU
// per point select (perf; docs/bench-log.md#2026-11-26--make-bench-after-rawsock-and-the-resp-batch-issue-17-both-placements).
// The calls here are raw: they
// cannot block, so the P stays with its thread, and a read that finds
// nothing waits on Go's network poller exactly as net.Conn does, honouring
// the connection's deadlines.
package rawsock

import (
	"context"
	"io"
	"net"
	"syscall"
	"unsafe"
)

// Conn is a net.Conn whose Read and Write are raw non-blocking system
// calls; everything else is the wrapped connection's.
type Conn struct {
	net.Conn
	raw syscall.RawConn
}

// Wrap returns c with raw reads and writes, or c itself when it is not a
// socket of the os (a TLS connection, a pipe in a test).
func Wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &Conn{Conn: c, raw: raw}
}

// Dial dials as net.Dialer does and wraps the connection.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return Wrap(c), nil
}

// SyscallConn keeps what callers of the wrapped socket relied on (the
// MySQL driver's liveness check of a pooled connection).
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return c.raw, nil }

func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait on the poller, then call again
			}
			n, errno = int(r), e
			return true
		}
	})
	if err != nil {
		return 0, renamed(err, "read")
	}
	if errno != 0 {
		return 0, c.opError("read", errno)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (c *Conn) Write(p []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := c.raw.Write(func(fd uintptr) bool {
		for written < len(p) {
			rest := p[written:]
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
			switch e {
			case 0:
				written += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the socket's buffer is full: wait on the poller
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err != nil {
		return written, renamed(err, "write")
	}
	if errno != 0 {
		return written, c.opError("write", errno)
	}
	return written, nil
}

// renamed gives the poller's error (a *net.OpError "raw-read" around
// os.ErrDeadlineExceeded or net.ErrClosed) the name net.Conn's would have.
func renamed(err error, op string) error {
	if oe, ok := err.(*net.OpError); ok {
		oe.Op = op
	}
	return err
}

// opError wraps a failed system call as net.Conn's own would be.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
