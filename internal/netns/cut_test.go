package netns_test

import (
	"context"
	"os/exec"
	"testing"

	"shootout/internal/netns"
)

// TestCutAndRestoreANode: Cut leaves node 3 reaching neither other node
// nor reached by them, both ways, while the others still reach each other
// and the clients still reach node 3; Restore gives back every path. Both
// with the nodes' direct links and through the relay of --link.
func TestCutAndRestoreANode(t *testing.T) {
	requireHosts(t)
	for _, relay := range []bool{false, true} {
		id := netns.NewID()
		nw, err := netns.Create(context.Background(), id, 3, "")
		if err != nil {
			t.Fatal(err)
		}
		defer netns.Remove(id)
		if relay {
			if err := nw.Relay(context.Background(), netns.Link{}); err != nil {
				t.Fatal(err)
			}
		}
		for i, nd := range nw.Nodes {
			l := nw.Command(i, "socat", "-u", "TCP-LISTEN:5001,reuseaddr,fork,bind="+nd.Addr.String(), "OPEN:/dev/null")
			if err := l.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { l.Process.Kill(); l.Wait() }()
		}
		// the listeners up before any path is judged: on a busy machine
		// socat inside a namespace can take longer than reaches' retries
		for i, nd := range nw.Nodes {
			up := exec.Command("socat", "-u", "OPEN:/dev/null", "TCP:"+nd.Addr.String()+":5001,connect-timeout=1,retry=100,interval=0.1")
			if err := up.Run(); err != nil {
				t.Fatalf("node %d's listener never answered the clients' side: %v", i+1, err)
			}
		}
		paths := func(when string, want map[[2]int]bool) {
			t.Helper()
			for p, ok := range want {
				if got := reaches(nw, p[0], p[1]); got != ok {
					t.Errorf("relay %v, %s: node %d reaches node %d: %v, want %v", relay, when, p[0]+1, p[1]+1, got, ok)
				}
			}
		}
		all := map[[2]int]bool{{0, 2}: true, {2, 0}: true, {1, 2}: true, {2, 1}: true, {0, 1}: true, {-1, 2}: true}
		paths("before the cut", all)
		if err := nw.Cut(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		paths("cut", map[[2]int]bool{{0, 2}: false, {2, 0}: false, {1, 2}: false, {2, 1}: false, {0, 1}: true, {-1, 2}: true})
		if err := nw.Restore(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		paths("restored", all)
		nw.Close()
	}
}

// reaches is whether a TCP connection from node from (-1: the clients)
// to node to's listener is made within a second.
func reaches(nw *netns.Net, from, to int) bool {
	args := []string{"-u", "OPEN:/dev/null", "TCP:" + nw.Nodes[to].Addr.String() + ":5001,connect-timeout=1,retry=5,interval=0.1"}
	cmd := exec.Command("socat", args...)
	if from >= 0 {
		cmd = nw.Command(from, "socat", args...)
	}
	return cmd.Run() == nil
}
