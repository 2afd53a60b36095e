package cloop_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/cloop"
	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

const rows = 1000

// server is a private MariaDB with table kv of rows rows: value1 = 3 id,
// value2 = id / 4.
func server(t *testing.T) (proto.Endpoint, *sql.DB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real server")
	}
	tg, err := target.Lookup("mariadb-innodb")
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	ctx := context.Background()
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: testenv.WorkDir(t), MemoryBudget: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	db := inst.(target.SQLInstance).DB()
	if _, err := db.ExecContext(ctx, "CREATE TABLE kv (id BIGINT PRIMARY KEY, value1 BIGINT, value2 DOUBLE)"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for id := 1; id <= rows; id++ {
		if b.Len() > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "(%d,%d,%d/4)", id, 3*id, id)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO kv VALUES "+b.String()); err != nil {
		t.Fatal(err)
	}
	return inst.Endpoint(), db
}

func open(t *testing.T, ci proto.Endpoint, queries ...string) *cloop.Conn {
	t.Helper()
	c, err := cloop.Open(cloop.Options{Server: ci,
		Queries: queries, Check: cloop.Values, PerEvent: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// reads asks ids 1, 2, … rows+2 in turn (the last two are not in the
// table), expecting the loaded row but for every hundredth id, and
// counts what the loop found.
type reads struct {
	mu       sync.Mutex
	next     int64
	events   int
	status   map[cloop.Status]int
	wrongIDs []int64
	since    []int64
	took     time.Duration
}

func (r *reads) Next(ev []cloop.Read) bool {
	for i := range ev {
		r.next = r.next%(rows+2) + 1
		ev[i] = cloop.Read{ID: r.next, Want1: 3 * r.next, Want2: float64(r.next) / 4}
		if r.next%100 == 0 {
			ev[i].Want2++
		}
	}
	return true
}

func (r *reads) Finished(ev []cloop.Read, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == nil {
		r.status = map[cloop.Status]int{}
	}
	r.events++
	r.took += took
	for _, x := range ev {
		r.status[x.Status]++
		want := cloop.OK
		switch {
		case x.ID > rows:
			want = cloop.NoRow
		case x.ID%100 == 0:
			want = cloop.Wrong
		}
		if x.Status != want {
			r.wrongIDs = append(r.wrongIDs, x.ID)
		}
	}
}

func (r *reads) InFlight(since int64) {
	r.mu.Lock()
	r.since = append(r.since, since)
	r.mu.Unlock()
}

// The loop reads on its own thread until its deadline, each row checked
// against what Go expected: a right row, a wrong one and a missing one
// are told apart, and every event is handed back with its time.
func TestLoopReadsAndChecksEveryRow(t *testing.T) {
	ci, _ := server(t)
	c := open(t, ci, "SELECT value1, value2 FROM kv WHERE id = ?")
	// the first reads are the last rows, a wrong one and the missing
	// ones: seen however slow the machine is
	r := &reads{next: rows - 20}
	began := time.Now()
	if err := c.Run(context.Background(), began.Add(time.Second), r); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(began); el < 900*time.Millisecond || el > 3*time.Second {
		t.Errorf("a 1-s loop returned after %v", el)
	}
	if r.events < 100 {
		t.Fatalf("%d events in a second", r.events)
	}
	if len(r.wrongIDs) > 0 {
		t.Errorf("reads whose status was not what the table holds: ids %v", r.wrongIDs[:min(10, len(r.wrongIDs))])
	}
	if r.status[cloop.Wrong] == 0 || r.status[cloop.NoRow] == 0 || r.status[cloop.OK] < r.events {
		t.Errorf("statuses %v over %d events: want wrong rows, missing rows and mostly right ones", r.status, r.events)
	}
	if r.took <= 0 || r.took > time.Since(began) {
		t.Errorf("events took %v in all, in a run of %v", r.took, time.Since(began))
	}
	if last := r.since[len(r.since)-1]; last != 0 {
		t.Errorf("an event still in flight after the loop ended: since %d", last)
	}

	// from Go, one event at a time, on the same connection
	before := r.events
	for i := 0; i < 10; i++ {
		if err := c.Once(r); err != nil {
			t.Fatal(err)
		}
	}
	if r.events != before+10 {
		t.Errorf("10 events from Go finished %d", r.events-before)
	}
}

// A URL's "localhost" with a port is that port's server over TCP, as the
// Go driver takes it, not libmariadb's default socket (another server).
func TestLocalhostWithAPortIsTCP(t *testing.T) {
	ci, _ := server(t)
	s := ci
	_, port := ci.HostPort()
	s.Address = fmt.Sprintf("localhost:%d", port)
	c, err := cloop.Open(cloop.Options{Server: s, Queries: []string{"SELECT value1, value2 FROM kv WHERE id = ?"}, Check: cloop.Values, PerEvent: 1})
	if err != nil {
		t.Fatalf("%s: %v", s.Address, err)
	}
	defer c.Close()
	r := &reads{}
	if err := c.Run(context.Background(), time.Now().Add(200*time.Millisecond), r); err != nil {
		t.Fatal(err)
	}
	if r.status[cloop.OK] == 0 {
		t.Errorf("no row of this server's table read over %s: %v", s.Address, r.status)
	}
}

// A loop given hours ends when its context does, after the event in
// flight.
func TestLoopStopsWithItsContext(t *testing.T) {
	ci, _ := server(t)
	c := open(t, ci, "SELECT value1, value2 FROM kv WHERE id = ?")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	began := time.Now()
	if err := c.Run(ctx, began.Add(time.Hour), &reads{}); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(began); el > 2*time.Second {
		t.Errorf("the loop took %v to end after its context did at 300ms", el)
	}
}

// A session killed under the loop ends it with the server's error, as the
// MySQL driver would give it: the connection was lost, and the driver
// reconnects. A statement that does not prepare is the server's error too.
func TestLoopErrorsAreTheServers(t *testing.T) {
	ci, db := server(t)
	c := open(t, ci, "SELECT value1, value2 FROM kv WHERE id = ?")
	var id int64
	if err := db.QueryRow("SELECT id FROM information_schema.processlist WHERE info IS NULL AND id <> CONNECTION_ID() AND user = ? ORDER BY id DESC LIMIT 1", ci.User).Scan(&id); err != nil {
		t.Fatal(err)
	}
	killed := make(chan error, 1)
	time.AfterFunc(300*time.Millisecond, func() {
		_, err := db.Exec(fmt.Sprintf("KILL CONNECTION %d", id))
		killed <- err
	})
	err := c.Run(context.Background(), time.Now().Add(10*time.Second), &reads{})
	if kerr := <-killed; kerr != nil {
		t.Fatalf("KILL CONNECTION %d: %v", id, kerr)
	}
	if err == nil {
		t.Fatal("the loop went on after its session was killed")
	}
	if cl := dialect.Classify(err); cl != dialect.ClassConnectionLost {
		t.Errorf("killed session: %v, classified %v, want connection lost", err, cl)
	}

	_, err = cloop.Open(cloop.Options{Server: ci,
		Queries: []string{"SELECT value1, value2 FROM nosuch WHERE id = ?"}, Check: cloop.Values, PerEvent: 1})
	var my *mysql.MySQLError
	if !errors.As(err, &my) || my.Number != 1146 || !strings.Contains(my.Message, "nosuch") {
		t.Errorf("a statement on a missing table: %v, want error 1146 naming it", err)
	}
	wrong := ci
	wrong.Password = "not" + ci.Password
	_, err = cloop.Open(cloop.Options{Server: wrong,
		Queries: []string{"SELECT value1, value2 FROM kv WHERE id = ?"}, Check: cloop.Values, PerEvent: 1})
	if !errors.As(err, &my) || my.Number != 1045 || strings.Contains(err.Error(), ci.Password) {
		t.Errorf("a wrong password: %v, want error 1045 without the password", err)
	}
}
