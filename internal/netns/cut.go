package netns

import (
	"context"
	"fmt"
)

// Cut cuts node i off from the other nodes, both ways, as a pulled
// cable between it and them would: a blackhole route to each peer in
// i's namespace and to i in each peer's, so what either side sends the
// other is dropped by its sender's kernel. The clients' traffic
// (shootout's veth) is left alone: the node's clients still reach it and
// hear what it answers while it is alone. Routes, not the veth or a tc
// filter, because the same two steps cut the direct path and the
// relay's tun0 alike.
func (nw *Net) Cut(ctx context.Context, i int) error {
	return nw.eachPair(i, func(from, to Node) error {
		return ip(ctx, "ip", "-n", from.NS, "route", "replace", "blackhole", to.Addr.String()+"/32")
	})
}

// Restore puts node i's links to the other nodes back as they were before
// Cut: through the relay's tun0 when the network has one, else the /24
// of eth0 (the blackhole route only goes).
func (nw *Net) Restore(ctx context.Context, i int) error {
	return nw.eachPair(i, func(from, to Node) error {
		dst := to.Addr.String() + "/32"
		if nw.relay != nil {
			return ip(ctx, "ip", "-n", from.NS, "route", "replace", dst, "dev", "tun0", "src", from.Addr.String())
		}
		return ip(ctx, "ip", "-n", from.NS, "route", "del", "blackhole", dst)
	})
}

// eachPair runs step from node i to every peer and from every peer to i.
func (nw *Net) eachPair(i int, step func(from, to Node) error) error {
	if i < 0 || i >= len(nw.Nodes) {
		return fmt.Errorf("netns: no node %d of %d", i+1, len(nw.Nodes))
	}
	for j, peer := range nw.Nodes {
		if j == i {
			continue
		}
		if err := step(nw.Nodes[i], peer); err != nil {
			return err
		}
		if err := step(peer, nw.Nodes[i]); err != nil {
			return err
		}
	}
	return nil
}
