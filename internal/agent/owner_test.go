package agent

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"shootout/internal/driver"
)

func TestSaturatedPastEitherThreshold(t *testing.T) {
	for _, c := range []struct {
		cores float64
		cpus  int
		quota float64
		share float64
		lag   time.Duration
		want  bool
	}{
		{0.5, 1, 0, 0, 0, false},
		{0.95, 1, 0, 0, 0, true},
		{1.7, 2, 0, 0, 0, false},
		{1.8, 2, 0, 0, 0, true},
		// a quota is the CPU the agent was given: a quarter used of one
		// CPU is saturated under a quarter's quota, not without one
		{0.24, 1, 0.25, 0, 0, true},
		{0.24, 1, 0, 0, 0, false},
		{0.2, 1, 0.25, 0, 0, false},
		// clients half their time on the agent's CPU or waiting for it:
		// short of it, whatever the share of the CPU they got
		{0.3, 1, 0, 0.49, 0, false},
		{0.3, 1, 0, 0.5, 0, true},
		{0.1, 2, 0, 0, 99 * time.Millisecond, false},
		{0.1, 2, 0, 0, 100 * time.Millisecond, true},
	} {
		if got := saturated(c.cores, allowed(c.cpus, c.quota), c.share, c.lag); got != c.want {
			t.Errorf("saturated(%v cores of %d CPUs, quota %v, share %v, %v behind) = %v, want %v", c.cores, c.cpus, c.quota, c.share, c.lag, got, c.want)
		}
	}
}

// slowClock is an agent whose clock answers late.
type slowClock struct{ delay time.Duration }

func (s slowClock) Clock(context.Context, *ClockRequest) (*ClockReply, error) {
	time.Sleep(s.delay)
	return &ClockReply{NowUnixNs: time.Now().UnixNano()}, nil
}

func (slowClock) Prepare(context.Context, *RunRequest) (*PrepareReply, error) {
	return nil, errors.New("not here")
}

func (slowClock) Run(context.Context, *RunRequest, func(driver.RawSlice)) (*RunReply, error) {
	return nil, errors.New("not here")
}

// Agents whose clocks take long to answer still get a barrier in their
// future: it is set after their offsets are measured, not before.
func TestBarrierIsSetAfterTheClockOffsets(t *testing.T) {
	lis, err := net.Listen("unix", filepath.Join(t.TempDir(), "a.sock"))
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(serverOpts()...)
	s.RegisterService(&serviceDesc, slowClock{300 * time.Millisecond})
	go s.Serve(lis)
	defer s.Stop()
	a := &Agents{}
	for range 2 {
		conn, err := grpc.NewClient("unix:"+lis.Addr().String(), append(clientOpts(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		a.conns = append(a.conns, conn)
	}
	_, _, start, err := a.plan(context.Background(), driver.Config{Clients: 2, Duration: time.Second}, RunRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(start); left < 100*time.Millisecond {
		t.Fatalf("the barrier is %v away when the agents are told it, want it ahead of them", left)
	}
}

// The report says which rule marked an agent: the cores against what it
// was given (its quota where it had one), its clients' share, its lag.
func TestSaturatedByNamesTheRule(t *testing.T) {
	for _, c := range []struct {
		cores, allowed, share float64
		lag                   time.Duration
		want                  string
	}{
		{0.24, allowed(1, 0.25), 0, 0, "used 0.24 of the 0.25 cores it was given"},
		{0.3, allowed(1, 0), 0.5, 0, "50% of its clients' time on its CPU or waiting for one"},
		{0.1, allowed(2, 0), 0, 100 * time.Millisecond, "woke 100 ms late for its schedule"},
	} {
		by := saturatedBy(c.cores, c.allowed, c.share, c.lag)
		if len(by) != 1 || by[0] != c.want {
			t.Errorf("saturatedBy(%v, %v, %v, %v) = %q, want [%q]", c.cores, c.allowed, c.share, c.lag, by, c.want)
		}
	}
}
