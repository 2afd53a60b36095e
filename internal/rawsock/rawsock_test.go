package rawsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// pair returns a raw client connection and the server's end of it.
func pair(t *testing.T, network string) (net.Conn, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := Dial(context.Background(), network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*Conn); !ok {
		t.Fatalf("Dial(%s) gave %T, not a raw connection", network, c)
	}
	srv, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, srv
}

func TestRoundTripsOfEverySize(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			c, srv := pair(t, network)
			go io.Copy(srv, srv) // an echo server
			// 8 MiB is far past a socket's buffer: the write must wait on
			// the poller for room while the echo drains it
			for _, size := range []int{1, 100, 64 << 10, 8 << 20} {
				sent := bytes.Repeat([]byte{byte(size)}, size)
				got := make(chan []byte, 1)
				go func() {
					b := make([]byte, size)
					_, err := io.ReadFull(c, b)
					if err != nil {
						t.Errorf("read %d bytes: %v", size, err)
					}
					got <- b
				}()
				n, err := c.Write(sent)
				if err != nil || n != size {
					t.Fatalf("write %d bytes: wrote %d, %v", size, n, err)
				}
				if b := <-got; !bytes.Equal(b, sent) {
					t.Fatalf("%d bytes came back changed", size)
				}
			}
		})
	}
}

func TestDeadlineIsATimeout(t *testing.T) {
	c, _ := pair(t, "unix")
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	start := time.Now()
	_, err := c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the deadline took %v", d)
	}
}

func TestPeerCloseIsEOFAndLocalCloseIsErrClosed(t *testing.T) {
	c, srv := pair(t, "tcp")
	srv.Close()
	if _, err := c.Read(make([]byte, 10)); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	// the peer is gone: writing must fail with an error, not kill the
	// process with SIGPIPE
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = c.Write(make([]byte, 1<<16))
	}
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("write to a closed peer: %v, want EPIPE or ECONNRESET", err)
	}

	c2, _ := pair(t, "unix")
	done := make(chan error, 1)
	go func() { _, err := c2.Read(make([]byte, 10)); done <- err }()
	time.Sleep(20 * time.Millisecond)
	c2.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("a blocked read when the connection closed: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing the connection did not end a blocked read")
	}
}

func TestWrapLeavesOtherConnectionsAlone(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Fatal("a net.Pipe end was wrapped, though it has no socket")
	}
}
