package proto

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// MemcachedAsk sends one command of memcached's text protocol on a
// connection of its own and returns the answer's lines (up to END for the
// stats commands). Both the target (version, settings, size) and the kv
// workload (its load's item count) ask memcached this way; the data path
// goes through the client library.
func MemcachedAsk(ctx context.Context, ep Endpoint, cmd string) ([]string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, ep.Network, ep.Address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Now().Add(10 * time.Second))
	}
	if _, err := fmt.Fprintf(c, "%s\r\n", cmd); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	var lines []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("memcached %s: %w", cmd, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "ERROR") || strings.HasPrefix(line, "SERVER_ERROR") || strings.HasPrefix(line, "CLIENT_ERROR") {
			return nil, fmt.Errorf("memcached %s: %s", cmd, line)
		}
		if line == "END" {
			return lines, nil
		}
		lines = append(lines, line)
		if !strings.HasPrefix(cmd, "stats") {
			return lines, nil
		}
	}
}

// MemcachedStats is the answer to a stats command ("stats", "stats
// settings") as name → value.
func MemcachedStats(ctx context.Context, ep Endpoint, cmd string) (map[string]string, error) {
	lines, err := MemcachedAsk(ctx, ep, cmd)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "STAT" {
			out[f[1]] = f[2]
		}
	}
	return out, nil
}
