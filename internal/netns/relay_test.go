package netns_test

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"shootout/internal/netns"
)

// inNS runs f on a thread inside namespace ns: the sockets f makes are
// that namespace's for good. The thread dies with its locked goroutine.
func inNS(t *testing.T, ns string, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		nsf, err := os.Open("/run/netns/" + ns)
		if err != nil {
			done <- err
			return
		}
		defer nsf.Close()
		if err := unix.Setns(int(nsf.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		done <- f()
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRelayDelaysAndCapsTheLink: two nodes behind a relay of 5 ms each way
// and 40 Mbit/s: a small message's round trip takes 10 ms, and a bulk
// transfer runs at 40 Mbit/s, each within 20%; the tun devices and
// namespaces go with Close.
func TestRelayDelaysAndCapsTheLink(t *testing.T) {
	requireHosts(t)
	id := netns.NewID()
	nw, err := netns.Create(context.Background(), id, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	const delay, rate = 5 * time.Millisecond, 40e6
	if err := nw.Relay(context.Background(), netns.Link{Delay: delay, Rate: rate}); err != nil {
		t.Fatal(err)
	}
	n2 := nw.Nodes[1].Addr.String()
	var echo, sink net.Listener
	inNS(t, nw.Nodes[1].NS, func() (err error) {
		if echo, err = net.Listen("tcp", n2+":5002"); err != nil {
			return err
		}
		sink, err = net.Listen("tcp", n2+":5003")
		return err
	})
	defer echo.Close()
	defer sink.Close()
	go func() {
		c, err := echo.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	rtt := roundTrip(t, nw, n2+":5002")
	if want := 2 * delay; rtt < want*8/10 || rtt > want*12/10 {
		t.Errorf("round trip %v through the relay, want %v within 20%%", rtt, want)
	}
	got := bulk(t, nw, sink, n2+":5003", 6<<20)
	t.Logf("round trip %v (want %v), %.1f Mbit/s (want %.0f)", rtt, 2*delay, got/1e6, rate/1e6)
	if got < rate*0.8 || got > rate*1.2 {
		t.Errorf("bulk transfer at %.1f Mbit/s, want %.0f within 20%%", got/1e6, rate/1e6)
	}
	if err := nw.Close(); err != nil {
		t.Fatal(err)
	}
	if left := netns.Leftovers(id); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
}

// roundTrip is the median of 30 one-byte round trips from node 1.
func roundTrip(t *testing.T, nw *netns.Net, to string) time.Duration {
	t.Helper()
	var c net.Conn
	inNS(t, nw.Nodes[0].NS, func() (err error) { c, err = net.Dial("tcp", to); return err })
	defer c.Close()
	var rtts []time.Duration
	b := []byte{1}
	for range 30 {
		start := time.Now()
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	return rtts[len(rtts)/2]
}

// bulk sends size bytes from node 1 to the sink on node 2 and returns the
// bits per second the receiver saw, from its first byte to its last.
func bulk(t *testing.T, nw *netns.Net, sink net.Listener, to string, size int) float64 {
	t.Helper()
	var c net.Conn
	inNS(t, nw.Nodes[0].NS, func() (err error) { c, err = net.Dial("tcp", to); return err })
	go func() {
		c.Write(make([]byte, size))
		c.Close()
	}()
	r, err := sink.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 1<<16)
	n, err := io.ReadAtLeast(r, buf, 1)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	m, _ := io.Copy(io.Discard, r)
	if total := int64(n) + m; total != int64(size) {
		t.Fatalf("received %d of %d bytes", total, size)
	}
	return float64(m*8) / time.Since(start).Seconds()
}

// TestRelayCountsWhatItDrops: at 1 Mbit/s the relay's 50 ms queue holds
// less than one of a node's 9000-byte packets, so a burst of TCP's first
// window is mostly dropped; the relay counts those drops and what it
// passed on, under the node that sent them.
func TestRelayCountsWhatItDrops(t *testing.T) {
	requireHosts(t)
	nw, err := netns.Create(context.Background(), netns.NewID(), 2, "")
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	if err := nw.Relay(context.Background(), netns.Link{Rate: 1e6}); err != nil {
		t.Fatal(err)
	}
	n2 := nw.Nodes[1].Addr.String()
	var sink net.Listener
	inNS(t, nw.Nodes[1].NS, func() (err error) { sink, err = net.Listen("tcp", n2+":5004"); return err })
	defer sink.Close()
	go func() {
		if c, err := sink.Accept(); err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	var c net.Conn
	inNS(t, nw.Nodes[0].NS, func() (err error) { c, err = net.Dial("tcp", n2+":5004"); return err })
	defer c.Close()
	go c.Write(make([]byte, 256<<10))
	time.Sleep(time.Second)
	got, ok := nw.RelayCounts(0)
	t.Logf("node 1 sent through the relay: %+v", got)
	if !ok || got.Packets == 0 || got.Bytes == 0 || got.DroppedQueue == 0 {
		t.Errorf("node 1's counts %+v (relay %v): want packets, bytes and queue drops", got, ok)
	}
}
