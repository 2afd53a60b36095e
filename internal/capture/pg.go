package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgproto3"
)

// PostgreSQL's special first messages (no type byte).
const (
	pgSSLRequest    = 80877103
	pgGSSENCRequest = 80877104
	pgCancelRequest = 80877102
)

// pgWait is what an entry of the queue waits for from the server.
type pgWait int

const (
	waitParse    pgWait = iota // ParseComplete
	waitBind                   // BindComplete
	waitClose                  // CloseComplete
	waitExecute                // CommandComplete, EmptyQueryResponse or PortalSuspended
	waitDescribe               // RowDescription or NoData
	waitReady                  // ReadyForQuery: a Sync, or a simple query and all its results
)

// pgPending is a client message the server has still to answer; cmd is
// nil for messages that are no command of their own (Bind, Describe,
// Sync).
type pgPending struct {
	cmd  *Command
	wait pgWait
	rows RowSum
	stmt string // a Describe of a statement: its name, for its parameter types
}

// pgSession follows one PostgreSQL session. The statements' text and
// parameter types are known by name (prepared statements) and portals'
// parameters by portal name, as the protocol refers to them.
type pgSession struct {
	s       *session
	mu      sync.Mutex
	pending []*pgPending
	stmts   map[string]pgStmt
	portals map[string]*Command
	buf     []byte
}

type pgStmt struct {
	text  string
	types []uint32
}

func runPostgres(s *session) string {
	pg := &pgSession{s: s, stmts: map[string]pgStmt{}, portals: map[string]*Command{}}
	done := make(chan string, 2)
	go func() { done <- pg.fromClient(newPipe(s.client, s.server)) }()
	go func() { done <- pg.fromServer(newPipe(s.server, s.client)) }()
	reason := <-done
	s.client.Close()
	s.server.Close()
	<-done
	pg.mu.Lock()
	var left []*Command
	for _, p := range pg.pending {
		if p.cmd != nil {
			left = append(left, p.cmd)
		}
	}
	pg.mu.Unlock()
	s.unanswered(left)
	return reason
}

// readMessage reads one typed message: its whole frame and its body.
func readMessage(p *pipe, buf []byte) (frame, body []byte, err error) {
	frame, err = p.readFull(buf, 5)
	if err != nil {
		return nil, nil, err
	}
	n := int(binary.BigEndian.Uint32(frame[1:5]))
	if n < 4 || n > 1<<30 {
		return nil, nil, fmt.Errorf("a message of length %d", n)
	}
	frame = slices.Grow(frame, n-4)[:n+1]
	if _, err := io.ReadFull(p.r, frame[5:]); err != nil {
		return nil, nil, err
	}
	return frame, frame[5:], nil
}

// startup reads the client's first messages up to its StartupMessage,
// refusing TLS and GSS encryption the way a server without them does
// (a single 'N'), so the client goes on in the clear or gives up.
func (pg *pgSession) startup(p *pipe) (string, bool) {
	for {
		head, err := p.readFull(nil, 4)
		if err != nil {
			return "client closed before its startup message", false
		}
		n := int(binary.BigEndian.Uint32(head))
		if n < 8 || n > 10000 {
			return fmt.Sprintf("client sent a startup message of length %d", n), false
		}
		body, err := p.readFull(nil, n-4)
		if err != nil {
			return "client closed during its startup message", false
		}
		switch binary.BigEndian.Uint32(body) {
		case pgSSLRequest, pgGSSENCRequest:
			if _, err := pg.s.client.Write([]byte{'N'}); err != nil {
				return "client closed", false
			}
			continue
		case pgCancelRequest:
			p.forward(append(head, body...))
			return "a cancel request", false
		}
		var m pgproto3.StartupMessage
		if err := m.Decode(body); err != nil {
			return "client sent no startup message: " + err.Error(), false
		}
		attrs := map[string]string{}
		for k, v := range m.Parameters {
			if k != "user" && k != "database" {
				attrs[k] = v
			}
		}
		pg.s.open(m.Parameters["user"], m.Parameters["database"], attrs)
		if err := p.forward(append(head, body...)); err != nil {
			return "server closed", false
		}
		return "", true
	}
}

func (pg *pgSession) fromClient(p *pipe) string {
	if reason, ok := pg.startup(p); !ok {
		return reason
	}
	var buf []byte
	for {
		frame, body, err := readMessage(p, buf)
		if err != nil {
			if pg.s.quit.Load() {
				return "client quit"
			}
			return "client closed"
		}
		buf = frame[:0]
		at := now()
		// before authentication ends, the client sends only password,
		// SASL and GSS messages: never parsed, never recorded
		if pg.s.authed.Load() {
			if err := pg.clientMessage(frame[0], body, at); err != nil {
				return "client sent a malformed message: " + err.Error()
			}
		}
		if err := p.forward(frame); err != nil {
			return "server closed"
		}
	}
}

func (pg *pgSession) push(cmd *Command, w pgWait) {
	pg.mu.Lock()
	pg.pending = append(pg.pending, &pgPending{cmd: cmd, wait: w})
	pg.mu.Unlock()
}

func (pg *pgSession) clientMessage(t byte, body []byte, at int64) error {
	switch t {
	case 'Q':
		var m pgproto3.Query
		if err := m.Decode(body); err != nil {
			return err
		}
		pg.push(pg.s.command(TextKind(m.String), m.String, at), waitReady)
	case 'P':
		var m pgproto3.Parse
		if err := m.Decode(body); err != nil {
			return err
		}
		pg.mu.Lock()
		pg.stmts[m.Name] = pgStmt{text: m.Query, types: m.ParameterOIDs}
		pg.mu.Unlock()
		c := pg.s.command(KindPrepare, m.Query, at)
		c.Stmt = m.Name
		pg.push(c, waitParse)
	case 'B':
		var m pgproto3.Bind
		if err := m.Decode(body); err != nil {
			return err
		}
		st := pg.stmt(m.PreparedStatement)
		pg.portals[m.DestinationPortal] = &Command{Text: st.text, Stmt: m.PreparedStatement,
			Params: pgParams(m, st.types)}
		pg.push(nil, waitBind)
	case 'E':
		return pg.execute(body, at)
	case 'D':
		var m pgproto3.Describe
		if err := m.Decode(body); err != nil {
			return err
		}
		pg.mu.Lock()
		pg.pending = append(pg.pending, &pgPending{wait: waitDescribe, stmt: m.Name})
		pg.mu.Unlock()
	case 'C':
		return pg.closeMessage(body, at)
	case 'S', 'F':
		pg.push(nil, waitReady)
	case 'X':
		pg.s.quit.Store(true)
	}
	return nil
}

func (pg *pgSession) stmt(name string) pgStmt {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	return pg.stmts[name]
}

func (pg *pgSession) execute(body []byte, at int64) error {
	var m pgproto3.Execute
	if err := m.Decode(body); err != nil {
		return err
	}
	c := pg.s.command(KindExecute, "", at)
	if b := pg.portals[m.Portal]; b != nil {
		c.Text, c.Stmt, c.Params = b.Text, b.Stmt, b.Params
	}
	pg.push(c, waitExecute)
	return nil
}

func (pg *pgSession) closeMessage(body []byte, at int64) error {
	var m pgproto3.Close
	if err := m.Decode(body); err != nil {
		return err
	}
	if m.ObjectType != 'S' {
		pg.push(nil, waitClose)
		return nil
	}
	c := pg.s.command(KindClose, pg.stmt(m.Name).text, at)
	c.Stmt = m.Name
	pg.push(c, waitClose)
	return nil
}

// pgParams are a Bind's parameters as JSON values: text ones as
// strings, binary ones decoded by their type where pgx knows it (else
// {"binary": hex}), NULL as null.
func pgParams(m pgproto3.Bind, types []uint32) []any {
	out := make([]any, len(m.Parameters))
	for i, v := range m.Parameters {
		format := int16(0)
		switch {
		case len(m.ParameterFormatCodes) == 1:
			format = m.ParameterFormatCodes[0]
		case i < len(m.ParameterFormatCodes):
			format = m.ParameterFormatCodes[i]
		}
		var oid uint32
		if i < len(types) {
			oid = types[i]
		}
		out[i] = pgValue(v, format, oid)
	}
	return out
}

// commandTag's count of rows written (INSERT 0 5, UPDATE 3 ...).
func affectedOf(tag string) int64 {
	f := strings.Fields(tag)
	if len(f) < 2 {
		return 0
	}
	switch f[0] {
	case "INSERT", "UPDATE", "DELETE", "MERGE", "COPY":
		n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
		return n
	}
	return 0
}
