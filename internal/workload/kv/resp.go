package kv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"shootout/internal/proto"
	"shootout/internal/rawsock"
)

// respPipe is the batch path's Redis connection: pipelined GETs written
// into one buffer and their answers read in place, as redis-benchmark -P
// does. rueidis builds a command object per GET (a slice and a key
// string each) and answers each with a message value; on 2 cores that
// was a third of the client's CPU per pipelined read
// (docs/bench-log.md#2026-11-26--make-bench-after-rawsock-and-the-resp-batch-issue-17-both-placements), so
// this one path speaks RESP itself. Everything else stays on rueidis.
type respPipe struct {
	conn net.Conn
	rd   *bufio.Reader
	out  []byte
	key  []byte
	// broken: a reply could not be read to its end, so the stream's
	// place is lost and the connection must not be used again
	broken error
	stop   func() bool
}

func dialRESP(ctx context.Context, ep proto.Endpoint) (*respPipe, error) {
	c, err := rawsock.Dial(ctx, ep.Network, ep.Address)
	if err != nil {
		return nil, err
	}
	p := &respPipe{conn: c, rd: bufio.NewReaderSize(c, 64<<10), out: make([]byte, 0, 4<<10)}
	// a cancelled run ends a read that waits on a server gone quiet,
	// without a timer per batch
	p.stop = context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	var hello [][]string
	if ep.Password != "" {
		if ep.User != "" {
			hello = append(hello, []string{"AUTH", ep.User, ep.Password})
		} else {
			hello = append(hello, []string{"AUTH", ep.Password})
		}
	}
	if ep.Database != "" && ep.Database != "0" {
		hello = append(hello, []string{"SELECT", ep.Database})
	}
	for _, cmd := range hello {
		p.out = appendCommand(p.out[:0], cmd...)
		if _, err := c.Write(p.out); err != nil {
			p.close()
			return nil, err
		}
		line, err := p.line()
		if err == nil && (len(line) == 0 || line[0] != '+') {
			err = fmt.Errorf("redis %s: %s", cmd[0], line)
		}
		if err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

func appendCommand(b []byte, args ...string) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// line reads one reply line without its CRLF; valid until the next read.
func (p *respPipe) line() ([]byte, error) {
	l, err := p.rd.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(l) < 2 || l[len(l)-2] != '\r' {
		return nil, fmt.Errorf("redis: a reply line %q does not end in CRLF", l)
	}
	return l[:len(l)-2], nil
}

// getMany sends a GET for each id in one write and reads the answers in
// the order asked: found(place, id, value1, value2) for each that exists.
func (p *respPipe) getMany(ids []int64, found func(at int, id, v1 int64, v2 float64)) error {
	if p.broken != nil {
		return p.broken
	}
	b := p.out[:0]
	for _, id := range ids {
		// *2 $3 GET $len kv:ID
		p.key = appendKey(p.key[:0], id)
		b = append(b, "*2\r\n$3\r\nGET\r\n$"...)
		b = strconv.AppendInt(b, int64(len(p.key)), 10)
		b = append(b, "\r\n"...)
		b = append(b, p.key...)
		b = append(b, "\r\n"...)
	}
	p.out = b
	if _, err := p.conn.Write(b); err != nil {
		p.broken = err
		return err
	}
	var replyErr error
	for at, id := range ids {
		l, err := p.line()
		if err != nil {
			p.broken = err
			return err
		}
		if len(l) == 0 {
			p.broken = errors.New("redis: an empty reply line")
			return p.broken
		}
		switch l[0] {
		case '$':
			n, err := strconv.Atoi(string(l[1:]))
			if err != nil || n < -1 {
				p.broken = fmt.Errorf("redis: a bulk reply of length %q", l[1:])
				return p.broken
			}
			if n == -1 {
				continue // no such key: the caller counts what was not found
			}
			if n+2 > p.rd.Size() {
				// no value kv writes is near this: the key is not kv's
				p.broken = fmt.Errorf("redis: kv:%d holds %d bytes, not a kv value", id, n)
				return p.broken
			}
			v, err := p.rd.Peek(n + 2)
			if err != nil {
				p.broken = err
				return err
			}
			v1, v2, perr := parseValue(v[:n])
			p.rd.Discard(n + 2)
			if perr != nil {
				if replyErr == nil {
					replyErr = fmt.Errorf("kv:%d: %w", id, perr)
				}
				continue
			}
			found(at, id, v1, v2)
		case '-':
			// the server refused this GET; the rest of the answers still
			// follow and are read, so the stream stays in step
			if replyErr == nil {
				replyErr = fmt.Errorf("redis GET kv:%d: %s", id, l[1:])
			}
		default:
			p.broken = fmt.Errorf("redis: a GET answered %q", l)
			return p.broken
		}
	}
	return replyErr
}

func (p *respPipe) close() error {
	p.stop()
	return p.conn.Close()
}
