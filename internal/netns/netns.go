// Package netns makes the hosts of a cluster on one machine: a bridge,
// one network namespace per node joined to it by a veth pair, and a veth
// for shootout's clients, with addresses from RFC 2544's benchmarking
// range (198.18.0.0/15), so nothing is routed off the machine. It drives
// iproute2's ip and tc (no netlink library is in the module cache here,
// and ip's own error lines say what the kernel refused).
//
// Every name carries the network's id (NewID: the owner's pid and a
// sequence), and Remove takes away whatever exists under an id: the
// ledger records the id before anything is made, so the sweep after a
// SIGKILL removes a network however far its making got.
package netns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"shootout/internal/child"
)

// LinkPrefix starts every link shootout makes; NSPrefix every namespace.
const (
	LinkPrefix = "sh"
	NSPrefix   = "shootout-"
)

// LockFile serialises the choice of a subnet between shootout processes.
var LockFile = "/run/shootout/net.lock"

// nodeBase is the last octet before the first node's: nodes are .17 up,
// inside NET.16/28, which the link shaping matches on.
const nodeBase = 16

var seq atomic.Uint32

// NewID is a fresh network id: this process's pid and a sequence, in hex,
// short enough that every link name fits the kernel's 15 characters.
func NewID() string {
	return fmt.Sprintf("%x-%x", os.Getpid(), seq.Add(1)&0xff)
}

// Net is a made network.
type Net struct {
	ID     string
	Bridge string
	// Client is the clients' veth in shootout's namespace, at ClientAddr.
	Client     string
	ClientAddr netip.Addr
	Nodes      []Node
	// relay delays the traffic between nodes (Relay); nil without one
	relay *relay
}

// Node is one host: its namespace, the host side of its veth, its address.
type Node struct {
	NS   string
	Veth string
	Addr netip.Addr
}

func linkName(id, role string) string { return LinkPrefix + id + "." + role }
func nsName(id, role string) string   { return NSPrefix + id + "." + role }

// ip runs iproute2's ip (or tc) with a bound, its error line quoted.
func ip(ctx context.Context, prog string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := child.CombinedOutput(exec.CommandContext(ctx, prog, args...))
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", prog, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Create makes network id with n nodes. rate, when not "", caps each
// node's traffic to and from the other nodes (tc's units: "100mbit").
// On an error whatever was made is removed.
func Create(ctx context.Context, id string, n int, rate string) (_ *Net, err error) {
	if n < 1 || n > 14 {
		return nil, fmt.Errorf("netns: %d nodes (valid: 1 to 14)", n)
	}
	defer func() {
		if err != nil {
			_ = Remove(id)
		}
	}()
	unlock, err := lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	k, err := freeSubnet()
	if err != nil {
		return nil, err
	}
	nw := &Net{ID: id, Bridge: linkName(id, "b"), Client: linkName(id, "c"), ClientAddr: addr(k, 1)}
	if err := nw.makeBridge(ctx, k); err != nil {
		return nil, err
	}
	for i := 1; i <= n; i++ {
		nd, err := nw.makeNode(ctx, k, i)
		if err != nil {
			return nil, err
		}
		nw.Nodes = append(nw.Nodes, nd)
	}
	if rate != "" {
		if err := nw.shape(ctx, k, rate); err != nil {
			return nil, err
		}
	}
	return nw, nil
}

// addr is host h of subnet k (0..511) of 198.18.0.0/15.
func addr(k, h int) netip.Addr {
	return netip.AddrFrom4([4]byte{198, byte(18 + k/256), byte(k % 256), byte(h)})
}

var rfc2544 = netip.MustParsePrefix("198.18.0.0/15")

// freeSubnet is the first /24 of the range no address of this namespace
// is in (another shootout's network, or anyone's).
func freeSubnet() (int, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return 0, err
	}
	used := map[int]bool{}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err != nil || !rfc2544.Contains(p.Addr()) {
			continue
		}
		b := p.Addr().As4()
		used[int(b[1]-18)*256+int(b[2])] = true
	}
	for k := 0; k < 512; k++ {
		if !used[k] {
			return k, nil
		}
	}
	return 0, errors.New("netns: every /24 of 198.18.0.0/15 is in use")
}

func lock() (func(), error) {
	if err := os.MkdirAll(LockFile[:strings.LastIndexByte(LockFile, '/')], 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(LockFile, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func (nw *Net) makeBridge(ctx context.Context, k int) error {
	peer := linkName(nw.ID, "cb")
	steps := [][]string{
		{"link", "add", nw.Bridge, "type", "bridge"},
		{"link", "set", nw.Bridge, "up"},
		{"link", "add", nw.Client, "type", "veth", "peer", "name", peer},
		{"link", "set", peer, "master", nw.Bridge},
		{"link", "set", peer, "up"},
		{"addr", "add", nw.ClientAddr.String() + "/24", "dev", nw.Client},
		{"link", "set", nw.Client, "up"},
	}
	for _, s := range steps {
		if err := ip(ctx, "ip", s...); err != nil {
			return err
		}
	}
	return nil
}

func (nw *Net) makeNode(ctx context.Context, k, i int) (Node, error) {
	role := fmt.Sprintf("n%d", i)
	nd := Node{NS: nsName(nw.ID, role), Veth: linkName(nw.ID, role), Addr: addr(k, nodeBase+i)}
	steps := [][]string{
		{"netns", "add", nd.NS},
		{"link", "add", nd.Veth, "type", "veth", "peer", "name", "eth0", "netns", nd.NS},
		{"link", "set", nd.Veth, "master", nw.Bridge},
		{"link", "set", nd.Veth, "up"},
		{"-n", nd.NS, "addr", "add", nd.Addr.String() + "/24", "dev", "eth0"},
		{"-n", nd.NS, "link", "set", "eth0", "up"},
		{"-n", nd.NS, "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := ip(ctx, "ip", s...); err != nil {
			return nd, err
		}
	}
	return nd, nil
}

// shape caps what each node sends to the other nodes (in its namespace)
// and receives from them (on the bridge's side) at rate, with htb: the
// clients' traffic, matched by the nodes' /28, is left alone.
func (nw *Net) shape(ctx context.Context, k int, rate string) error {
	nodes := fmt.Sprintf("%s/28", addr(k, nodeBase))
	for _, nd := range nw.Nodes {
		if err := htb(ctx, nil, nd.Veth, "src", nodes, rate); err != nil {
			return err
		}
		if err := htb(ctx, []string{"-n", nd.NS}, "eth0", "dst", nodes, rate); err != nil {
			return err
		}
	}
	return nil
}

func htb(ctx context.Context, ns []string, dev, dir, match, rate string) error {
	steps := [][]string{
		{"qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "20"},
		{"class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", rate, "ceil", rate},
		{"class", "add", "dev", dev, "parent", "1:", "classid", "1:20", "htb", "rate", "100gbit"},
		{"filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "u32", "match", "ip", dir, match, "flowid", "1:10"},
	}
	for _, s := range steps {
		if err := ip(ctx, "tc", append(append([]string{}, ns...), s...)...); err != nil {
			return err
		}
	}
	return nil
}

// Command is name run inside node i's namespace (ip netns exec, which
// enters it and execs name: the pid is the program's).
func (nw *Net) Command(i int, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", nw.Nodes[i].NS, name}, args...)...)
}

// Close removes the network.
func (nw *Net) Close() error {
	nw.StopRelay()
	return Remove(nw.ID)
}

// Remove deletes every link and namespace of network id that exists:
// the host sides of the veths (which takes their peers), the bridge and
// the namespaces, after killing what still runs in them. It says what it
// could not remove.
func Remove(id string) error {
	var errs []error
	ifs, _ := net.Interfaces()
	for _, fi := range ifs {
		if strings.HasPrefix(fi.Name, LinkPrefix+id+".") {
			if err := ip(context.Background(), "ip", "link", "del", fi.Name); err != nil && linkExists(fi.Name) {
				errs = append(errs, err)
			}
		}
	}
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), NSPrefix+id+".") {
			if err := killIn(e.Name()); err != nil {
				errs = append(errs, err)
			}
			if err := ip(context.Background(), "ip", "netns", "del", e.Name()); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// killIn kills every process in namespace ns and waits (a bound) until
// none is left. ip netns del only unmounts the name: a process nobody
// tracks, such as the rsync daemon a Galera SST starts from mariadbd with
// no parent-death signal, would live on in the nameless namespace. All of
// them are ours, since shootout made the namespace.
func killIn(ns string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := child.Output(exec.Command("ip", "netns", "pids", ns))
		if err != nil {
			return fmt.Errorf("ip netns pids %s: %v", ns, err)
		}
		pids := strings.Fields(string(out))
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("netns %s: processes %s still run after SIGKILL", ns, strings.Join(pids, " "))
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil && pid > 1 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// linkExists: deleting one side of a veth takes the other, so a peer
// listed before may be gone by its turn.
func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}

// Leftovers lists the links and namespaces of network id that exist.
func Leftovers(id string) []string {
	var out []string
	ifs, _ := net.Interfaces()
	for _, fi := range ifs {
		if strings.HasPrefix(fi.Name, LinkPrefix+id+".") {
			out = append(out, "link "+fi.Name)
		}
	}
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), NSPrefix+id+".") {
			out = append(out, "namespace "+e.Name())
		}
	}
	return out
}
