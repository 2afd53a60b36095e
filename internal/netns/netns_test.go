package netns_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"shootout/internal/netns"
	"shootout/internal/testenv"
)

func requireHosts(t *testing.T) {
	t.Helper()
	for _, p := range []string{"ip", "tc", "socat"} {
		testenv.LookPath(t, p)
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
}

// transfer sends size bytes from node `from` to addr:5001 inside node
// `to`'s namespace and returns the bits per second it took.
func transfer(t *testing.T, nw *netns.Net, from int, to string, toNode, size int) float64 {
	t.Helper()
	blob := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(blob, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	recv := nw.Command(toNode, "socat", "-u", "TCP-LISTEN:5001,reuseaddr,bind="+to, "OPEN:/dev/null")
	if err := recv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { recv.Process.Kill(); recv.Wait() }()
	send := exec.Command("socat", "-u", "FILE:"+blob, "TCP:"+to+":5001,retry=50,interval=0.05")
	if from >= 0 {
		send = nw.Command(from, "socat", "-u", "FILE:"+blob, "TCP:"+to+":5001,retry=50,interval=0.05")
	}
	start := time.Now()
	if out, err := send.CombinedOutput(); err != nil {
		t.Fatalf("send: %v: %s", err, out)
	}
	if err := recv.Wait(); err != nil {
		t.Fatalf("receive: %v", err)
	}
	return float64(size) * 8 / time.Since(start).Seconds()
}

// TestLinkRateBetweenNodes: a capped network carries a node's bytes to
// another node at the rate asked (within 20%), while the clients' veth
// to a node is not capped; Remove leaves no link or namespace.
func TestLinkRateBetweenNodes(t *testing.T) {
	requireHosts(t)
	id := netns.NewID()
	nw, err := netns.Create(context.Background(), id, 2, "20mbit")
	if err != nil {
		t.Fatal(err)
	}
	defer netns.Remove(id)
	n2 := nw.Nodes[1].Addr.String()
	got := transfer(t, nw, 0, n2, 1, 4<<20)
	if got < 16e6 || got > 24e6 {
		t.Errorf("node to node: %.1f Mbit/s under a 20mbit cap", got/1e6)
	}
	client := transfer(t, nw, -1, n2, 1, 4<<20)
	t.Logf("node to node %.1f Mbit/s, client to node %.1f Mbit/s", got/1e6, client/1e6)
	if client < 2*24e6 {
		t.Errorf("client to node: %.1f Mbit/s, as if the cap applied to the clients too", client/1e6)
	}
	if err := netns.Remove(id); err != nil {
		t.Fatal(err)
	}
	if left := netns.Leftovers(id); len(left) > 0 {
		t.Errorf("left after Remove: %v", left)
	}
}

// TestRemoveKillsWhatRunsInside: a process left in a node's namespace
// (as Galera's rsync daemon is when a node dies mid-transfer) does not
// outlive Remove, which would only unmount the namespace's name.
func TestRemoveKillsWhatRunsInside(t *testing.T) {
	requireHosts(t)
	id := netns.NewID()
	nw, err := netns.Create(context.Background(), id, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer netns.Remove(id)
	cmd := nw.Command(0, "sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := netns.Remove(id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Logf("sleep ended: %v", err)
	case <-time.After(3 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("sleep still ran in the namespace 3s after Remove")
	}
	if left := netns.Leftovers(id); len(left) > 0 {
		t.Errorf("left after Remove: %v", left)
	}
}
