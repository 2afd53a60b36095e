package agent

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

// An agent's unix socket may be reached by any local user (an abstract
// one has no permissions): the agent hangs up on another user's
// connection and keeps its own user's.
func TestAgentAnswersItsOwnUserOnly(t *testing.T) {
	for _, tc := range []struct {
		uid  int
		want bool
	}{{os.Getuid() + 1, false}, {os.Getuid(), true}} {
		lis, err := net.Listen("unix", filepath.Join(t.TempDir(), "a.sock"))
		if err != nil {
			t.Fatal(err)
		}
		accepted := make(chan net.Conn, 1)
		go func() {
			if c, err := (sameUser{lis, tc.uid}).Accept(); err == nil {
				accepted <- c
			}
		}()
		c, err := net.Dial("unix", lis.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-accepted:
			if !tc.want {
				t.Errorf("uid %d's agent accepted a connection from uid %d", tc.uid, os.Getuid())
			}
			s.Close()
		case <-time.After(time.Second):
			if tc.want {
				t.Errorf("uid %d's agent did not accept its own user's connection", tc.uid)
			}
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(make([]byte, 1)); !tc.want && err != io.EOF {
			t.Errorf("a refused connection reads %v, want EOF (hung up)", err)
		}
		c.Close()
		lis.Close()
	}
}

// An agent is given the endpoint's password: it connects to a unix
// socket or a loopback address only, and says so without the password.
func TestAgentRefusesAnEndpointElsewhere(t *testing.T) {
	for _, ep := range []Endpoint{
		{Protocol: "redis", Network: "tcp", Address: "10.1.2.3:6379", User: "u", Password: "s3cret"},
		{Protocol: "redis", Network: "tcp", Address: "db.example.com:6379", User: "u", Password: "s3cret"},
	} {
		_, err := (&agentServer{}).Run(context.Background(), &RunRequest{Workload: "kv", Endpoint: ep}, nil)
		if err == nil || !strings.Contains(err.Error(), "loopback") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("endpoint %s: err = %v, want a refusal that names no password", ep.Address, err)
		}
	}
	for _, ep := range []Endpoint{{Network: "unix", Address: "/tmp/x.sock"}, {Network: "tcp", Address: "127.0.0.1:6379"}, {Network: "tcp", Address: "[::1]:6379"}} {
		if err := ep.local(); err != nil {
			t.Errorf("endpoint %s %s: %v, want it accepted", ep.Network, ep.Address, err)
		}
	}
}

// An endpoint or a request printed by mistake leaks no password.
func TestEndpointPrintsNoPassword(t *testing.T) {
	req := RunRequest{Endpoint: Endpoint{Protocol: "redis", Network: "unix", Address: "/tmp/r.sock", User: "u", Password: "s3cret"}}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(f, req); strings.Contains(out, "s3cret") {
			t.Errorf("%s of a request: %s", f, out)
		}
		if out := fmt.Sprintf(f, req.Endpoint); strings.Contains(out, "s3cret") || !strings.Contains(out, "/tmp/r.sock") {
			t.Errorf("%s of an endpoint: %s", f, out)
		}
	}
}

// On SQL an agent runs only a workload whose clients share nothing with
// each other or with its checks; the refusal names the workload and the
// parameter to change.
func TestAgentsRunSQLWorkloadsThatShareNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]string
		want   string // "" for accepted, else in the error
	}{
		{"oltp_point_select", nil, ""},
		{"oltp_read_write", nil, ""},
		{"ping", nil, ""},
		{"oltp_insert", map[string]string{"auto_inc": "false"}, "auto_inc"},
		{"redmine", nil, "one agent at most"},
	} {
		w, err := workload.New(tc.name, tc.params)
		if err != nil {
			t.Fatal(err)
		}
		err = Supports(w, proto.SQL, 2)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %v on SQL: %v, want %q", tc.name, tc.params, err, tc.want)
		}
		if err := Supports(w, proto.Redis, 2); err != nil {
			t.Errorf("%s on a native protocol: %v", tc.name, err)
		}
	}
	// the clients of a cell that share what Before read share one agent
	w, _ := workload.New("redmine", nil)
	if err := Supports(w, proto.SQL, 1); err != nil {
		t.Errorf("redmine in one agent: %v", err)
	}
}

// The session an agent prepared before the barrier is the one its run
// takes (its pool made and Before read outside the measured window), and
// only for the cell it was prepared for.
func TestRunTakesTheSessionPreparedForItsCell(t *testing.T) {
	ctx := context.Background()
	ep := Endpoint{Protocol: string(proto.SQL), Network: "file", Address: filepath.Join(t.TempDir(), "x.db"), Dialect: dialect.Dialect{Flavor: dialect.SQLite}}
	cell := RunRequest{Workload: "ping", Dataset: "none", Endpoint: ep, Clients: 2, Agents: 2}
	s := &agentServer{}
	for _, tc := range []struct {
		name string
		edit func(*RunRequest)
		same bool
	}{
		{"its share of the cell", func(r *RunRequest) { r.ClientIDs, r.Rate, r.StartUnixNs = []int{1}, 10, 1 }, true},
		{"another cell", func(r *RunRequest) { r.Clients = 3 }, false},
	} {
		if _, err := s.Prepare(ctx, &cell); err != nil {
			t.Fatal(err)
		}
		prepared := s.prep
		req := cell
		tc.edit(&req)
		got, err := s.take(ctx, &req)
		if err != nil {
			t.Fatal(err)
		}
		if (got == prepared) != tc.same {
			t.Errorf("%s: took the prepared session %v, want %v", tc.name, got == prepared, tc.same)
		}
		got.close()
	}
}
