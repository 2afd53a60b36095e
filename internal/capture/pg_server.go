package capture

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

func (pg *pgSession) fromServer(p *pipe) string {
	var buf []byte
	for {
		frame, body, err := readMessage(p, buf)
		if err != nil {
			// the server closes its end on the client's Terminate: the
			// client quit, whichever side sees the end first
			if pg.s.quit.Load() {
				return "client quit"
			}
			return "server closed"
		}
		buf = frame[:0]
		at := now()
		if pg.s.authed.Load() {
			pg.serverMessage(frame[0], body, at)
		} else if reason, failed := pg.startupAnswer(frame[0], body); failed {
			p.forward(frame)
			return reason
		}
		if err := p.forward(frame); err != nil {
			return "client closed"
		}
	}
}

// startupAnswer follows the server's side of authentication: the
// server's version, an error (the session ends), the first
// ReadyForQuery (commands follow).
func (pg *pgSession) startupAnswer(t byte, body []byte) (string, bool) {
	switch t {
	case 'S':
		var m pgproto3.ParameterStatus
		if m.Decode(body) == nil && m.Name == "server_version" {
			pg.s.p.serverVersion(m.Value)
		}
	case 'E':
		var m pgproto3.ErrorResponse
		m.Decode(body)
		return "refused by the server: " + m.Message, true
	case 'Z':
		pg.s.authed.Store(true)
	}
	return "", false
}

func (pg *pgSession) serverMessage(t byte, body []byte, at int64) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if len(pg.pending) == 0 {
		return // notices, notifications, parameter changes: no answer to anything
	}
	head := pg.pending[0]
	switch t {
	case 'D', 'd':
		head.rows.Add(body)
	case 't':
		var m pgproto3.ParameterDescription
		if head.wait == waitDescribe && m.Decode(body) == nil {
			st := pg.stmts[head.stmt]
			st.types = m.ParameterOIDs
			pg.stmts[head.stmt] = st
		}
	case 'T', 'n':
		if head.wait == waitDescribe {
			pg.pop(at)
		}
	case '1', '2', '3':
		pg.pop(at)
	case 'C', 'I', 's':
		if head.cmd != nil && t == 'C' {
			var m pgproto3.CommandComplete
			if m.Decode(body) == nil {
				head.cmd.Affected += affectedOf(string(m.CommandTag))
			}
		}
		if head.wait == waitExecute {
			pg.pop(at)
		}
	case 'E':
		pg.failed(body, at)
	case 'Z':
		pg.pop(at)
	}
}

// pop ends the oldest pending message; called with mu held.
func (pg *pgSession) pop(at int64) {
	head := pg.pending[0]
	pg.pending = pg.pending[1:]
	if head.cmd != nil {
		pg.s.finish(head.cmd, &head.rows, at)
	}
}

// failed gives the error to the message it answers. In the extended
// protocol the server then skips everything up to the next Sync: those
// commands were sent but never run, and are recorded unanswered.
func (pg *pgSession) failed(body []byte, at int64) {
	var m pgproto3.ErrorResponse
	m.Decode(body)
	head := pg.pending[0]
	if head.wait == waitBind && len(pg.pending) > 1 && pg.pending[1].wait == waitExecute {
		// a Bind plans the statement with its parameters (1/$1 with 0
		// fails there): its error is that of the Execute it binds for
		pg.pending = pg.pending[1:]
		head = pg.pending[0]
	}
	if head.cmd != nil {
		head.cmd.Error = &Error{Code: m.Code, Message: m.Message}
	}
	if head.wait == waitReady {
		return // a simple query: its ReadyForQuery ends it
	}
	pg.pop(at)
	var skipped []*Command
	for len(pg.pending) > 0 && pg.pending[0].wait != waitReady {
		if c := pg.pending[0].cmd; c != nil {
			skipped = append(skipped, c)
		}
		pg.pending = pg.pending[1:]
	}
	pg.s.unanswered(skipped)
}

var pgTypes = pgtype.NewMap()

// pgValue is one parameter as a JSON value.
func pgValue(v []byte, format int16, oid uint32) any {
	if v == nil {
		return nil
	}
	if format == 0 {
		if utf8.Valid(v) {
			return string(v)
		}
		return map[string]string{"hex": hex.EncodeToString(v)}
	}
	if t, ok := pgTypes.TypeForOID(oid); ok {
		if x, err := t.Codec.DecodeValue(pgTypes, oid, format, v); err == nil {
			if j, ok := jsonValue(x); ok {
				return j
			}
		}
	}
	return map[string]any{"binary": hex.EncodeToString(v), "oid": oid}
}

// jsonValue turns a decoded parameter into what JSON holds without loss:
// numbers and text as they are, times as RFC 3339, the rest as text.
func jsonValue(x any) (any, bool) {
	switch v := x.(type) {
	case int16, int32, int64, bool, string:
		return v, true
	case float32:
		return finite(float64(v))
	case float64:
		return finite(v)
	case time.Time:
		return v.Format(time.RFC3339Nano), true
	case []byte:
		return map[string]string{"hex": hex.EncodeToString(v)}, true
	case *big.Int:
		return v.String(), true
	case fmt.Stringer:
		return v.String(), true
	}
	return nil, false
}

// finite floats are JSON numbers; NaN and the infinities are text.
func finite(f float64) (any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f), true
	}
	return f, true
}
