package netns

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Link is what lies between two nodes: a one-way delay (a round trip
// takes twice it) and a bandwidth in bits per second (0: none).
type Link struct {
	Delay time.Duration
	Rate  int64
}

// tunMTU is large so that a node's TCP sends few, large packets through
// the relay, which moves them one read and one write each.
const tunMTU = 9000

// maxQueue bounds what waits for a link's bandwidth, as a router's queue
// does (tbf's latency): a packet that would wait longer is dropped, and
// TCP slows down as it would on a real link.
const maxQueue = 50 * time.Millisecond

// relay moves every packet between nodes through shootout, holding it for
// the link's delay and its bandwidth: this kernel has no netem. Each node
// reaches the others through a tun device of its own, whose other end is
// a file here: a packet relay, which every protocol between the nodes
// (Galera's full mesh, IST, SST) goes through without knowing of it.
type relay struct {
	link  Link
	tuns  []*os.File
	addrs []netip.Addr
	wg    sync.WaitGroup
	// counts are what each node sent to the others, by node
	counts []relayCounts
}

// relayCounts are one node's packets through the relay since it started.
type relayCounts struct {
	packets, bytes, droppedQueue, droppedBehind atomic.Int64
}

// RelayCounts are the packets one node sent to the other nodes through
// the relay: Packets and Bytes it passed on; DroppedQueue it dropped as
// a router drops past its queue (maxQueue of waiting for the link's
// bandwidth: TCP slows down as on a real link); DroppedBehind it dropped
// because the writer towards that node was thousands of packets behind,
// which is the relay's own limit showing, not the link's.
type RelayCounts struct {
	Packets, Bytes, DroppedQueue, DroppedBehind int64
}

// Sub is c less an earlier reading.
func (c RelayCounts) Sub(o RelayCounts) RelayCounts {
	return RelayCounts{c.Packets - o.Packets, c.Bytes - o.Bytes, c.DroppedQueue - o.DroppedQueue, c.DroppedBehind - o.DroppedBehind}
}

// RelayCounts are node i's counts since the relay started; false
// without a relay.
func (nw *Net) RelayCounts(i int) (RelayCounts, bool) {
	if nw == nil || nw.relay == nil || i < 0 || i >= len(nw.relay.counts) {
		return RelayCounts{}, false
	}
	c := &nw.relay.counts[i]
	return RelayCounts{c.packets.Load(), c.bytes.Load(), c.droppedQueue.Load(), c.droppedBehind.Load()}, true
}

// Relay routes every node's traffic to the other nodes through a delaying
// relay with link's delay and bandwidth (the clients' traffic is not
// delayed); the tun devices go when the relay stops (Close), or with
// shootout's death, since the relay's files hold them.
func (nw *Net) Relay(ctx context.Context, link Link) error {
	if link.Delay < 0 || link.Rate < 0 {
		return fmt.Errorf("netns: link %v: a delay and a rate of 0 or more", link)
	}
	r := &relay{link: link}
	for _, nd := range nw.Nodes {
		f, err := openTun(nd.NS)
		if err != nil {
			r.stop()
			return err
		}
		r.tuns, r.addrs = append(r.tuns, f), append(r.addrs, nd.Addr)
	}
	for i, nd := range nw.Nodes {
		steps := [][]string{{"-n", nd.NS, "link", "set", "tun0", "mtu", fmt.Sprint(tunMTU), "up"}}
		for j, peer := range nw.Nodes {
			if j != i {
				steps = append(steps, []string{"-n", nd.NS, "route", "add", peer.Addr.String() + "/32", "dev", "tun0", "src", nd.Addr.String()})
			}
		}
		for _, s := range steps {
			if err := ip(ctx, "ip", s...); err != nil {
				r.stop()
				return err
			}
		}
	}
	r.start()
	nw.relay = r
	return nil
}

// openTun makes tun0 in namespace ns: the device is made in the namespace
// of the thread that asks for it, so a thread enters ns for that and is
// then let die (a locked goroutine's thread ends with it).
func openTun(ns string) (*os.File, error) {
	type res struct {
		f   *os.File
		err error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread stays in ns and dies
		f, err := tunIn(ns)
		ch <- res{f, err}
	}()
	r := <-ch
	return r.f, r.err
}

func tunIn(ns string) (*os.File, error) {
	nsf, err := os.Open("/run/netns/" + ns)
	if err != nil {
		return nil, err
	}
	defer nsf.Close()
	if err := unix.Setns(int(nsf.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("netns: enter %s: %w", ns, err)
	}
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("netns: /dev/net/tun: %w", err)
	}
	var req [unix.IFNAMSIZ + 64]byte
	copy(req[:], "tun0")
	*(*uint16)(unsafe.Pointer(&req[unix.IFNAMSIZ])) = unix.IFF_TUN | unix.IFF_NO_PI
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TUNSETIFF, uintptr(unsafe.Pointer(&req[0]))); e != 0 {
		unix.Close(fd)
		return nil, fmt.Errorf("netns: tun0 in %s: %w", ns, e)
	}
	return os.NewFile(uintptr(fd), ns+"/tun0"), nil
}

// packet is one IP packet on its way, and when it leaves the relay.
type packet struct {
	b  []byte
	at time.Time
}

// start runs a reader per node and a writer per ordered pair of nodes:
// a pair's packets leave in order, each after the delay and its turn on
// the link's bandwidth.
func (r *relay) start() {
	n := len(r.tuns)
	r.counts = make([]relayCounts, n)
	queues := make([][]chan packet, n)
	for i := range queues {
		queues[i] = make([]chan packet, n)
		for j := range queues[i] {
			if i == j {
				continue
			}
			q := make(chan packet, 4096)
			queues[i][j] = q
			r.wg.Add(1)
			go r.write(q, r.tuns[j])
		}
	}
	for i := range r.tuns {
		r.wg.Add(1)
		go r.read(i, queues[i])
	}
}

func (r *relay) read(i int, out []chan packet) {
	defer r.wg.Done()
	defer func() {
		for _, q := range out {
			if q != nil {
				close(q)
			}
		}
	}()
	busy := make([]time.Time, len(out)) // when each link is free to send again
	buf := make([]byte, tunMTU+100)
	c := &r.counts[i]
	for {
		k, err := r.tuns[i].Read(buf)
		if err != nil {
			return
		}
		j := r.dest(buf[:k])
		if j < 0 || j == i {
			continue
		}
		now := time.Now()
		start := now
		if busy[j].After(now) {
			start = busy[j]
		}
		if start.Sub(now) > maxQueue {
			c.droppedQueue.Add(1)
			continue
		}
		if r.link.Rate > 0 {
			busy[j] = start.Add(time.Duration(float64(k*8) / float64(r.link.Rate) * float64(time.Second)))
		} else {
			busy[j] = start
		}
		select {
		case out[j] <- packet{b: append([]byte(nil), buf[:k]...), at: busy[j].Add(r.link.Delay)}:
			c.packets.Add(1)
			c.bytes.Add(int64(k))
		default:
			c.droppedBehind.Add(1)
		}
	}
}

// dest is the node an IPv4 packet is for, -1 for none.
func (r *relay) dest(b []byte) int {
	if len(b) < 20 || b[0]>>4 != 4 {
		return -1
	}
	to := netip.AddrFrom4([4]byte(b[16:20]))
	for j, a := range r.addrs {
		if a == to {
			return j
		}
	}
	return -1
}

func (r *relay) write(q chan packet, to *os.File) {
	defer r.wg.Done()
	for p := range q {
		if d := time.Until(p.at); d > 0 {
			time.Sleep(d)
		}
		if _, err := to.Write(p.b); err != nil && errors.Is(err, os.ErrClosed) {
			return
		}
	}
}

// StopRelay stops the relay, if any (Close does too).
func (nw *Net) StopRelay() {
	if nw.relay != nil {
		nw.relay.stop()
		nw.relay = nil
	}
}

// stop closes the tun devices (the kernel removes them) and waits for the
// relay's goroutines.
func (r *relay) stop() {
	for _, f := range r.tuns {
		f.Close()
	}
	r.wg.Wait()
}
