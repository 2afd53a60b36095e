package kv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"shootout/internal/proto"
	"shootout/internal/rawsock"
)

type memcachedStore struct {
	ep    proto.Endpoint
	admin *memcache.Client
}

func memcachedClient(ep proto.Endpoint) *memcache.Client {
	// gomemcache takes an address with a "/" for a unix socket
	c := memcache.New(ep.Address)
	c.DialContext = rawsock.Dial
	c.MaxIdleConns = 1
	c.Timeout = 30 * time.Second
	return c
}

func newMemcachedStore(ep proto.Endpoint) (store, error) {
	if ep.Password != "" || ep.User != "" {
		return nil, errors.New("memcached: a user or password is SASL, which memcached's text protocol (and shootout) does not speak; give memcached://127.0.0.1:PORT")
	}
	return &memcachedStore{ep: ep, admin: memcachedClient(ep)}, nil
}

func (s *memcachedStore) claim(ctx context.Context, rows int64) (bool, error) {
	it, err := s.admin.Get(markerKey)
	switch {
	case err == nil && string(it.Value) == strconv.FormatInt(rows, 10):
		return true, nil
	case errors.Is(err, memcache.ErrCacheMiss) && s.ep.External:
		// every key the rows would take must be free: the LRU crawler
		// is memcached's one way to list them all
		key, n, err := memcachedKeysUnder(ctx, s.ep, "kv:")
		if err != nil {
			return false, err
		}
		if n > 0 {
			return false, fmt.Errorf("this memcached holds %d key(s) named kv:… (%s the first) that shootout did not write (no %s marker): give a memcached of its own", n, key, markerKey)
		}
		// add, not set: another shootout loading at the same time keeps it
		if err := s.admin.Add(&memcache.Item{Key: markerKey, Value: []byte("loading")}); err != nil {
			return false, fmt.Errorf("claim %s: %w", markerKey, err)
		}
		return false, nil
	case err != nil && !errors.Is(err, memcache.ErrCacheMiss):
		return false, err
	}
	return false, s.admin.Set(&memcache.Item{Key: markerKey, Value: []byte("loading")})
}

// loaded checks that memcached kept every row: with evictions off a set
// past its memory fails, and the load's sets wait for no answer.
func (s *memcachedStore) loaded(ctx context.Context, rows int64) error {
	stats, err := proto.MemcachedStats(ctx, s.ep, "stats")
	if err != nil {
		return err
	}
	items, _ := strconv.ParseInt(stats["curr_items"], 10, 64)
	if items < rows {
		return fmt.Errorf("memcached holds %d items after %d rows were set: its memory-limit (%s MB) is too small for the dataset (evictions are off)", items, rows, stats["limit_maxbytes"])
	}
	return s.admin.Set(&memcache.Item{Key: markerKey, Value: []byte(strconv.FormatInt(rows, 10))})
}

func (s *memcachedStore) close() error { return s.admin.Close() }

func (s *memcachedStore) connect(ctx context.Context) (storeClient, error) {
	c := memcachedClient(s.ep)
	if err := c.Ping(); err != nil {
		c.Close()
		return nil, err
	}
	return &memcachedClientConn{ep: s.ep, c: c}, nil
}

type memcachedClientConn struct {
	ep   proto.Endpoint
	c    *memcache.Client
	keys []string
	buf  []byte
	raw  net.Conn // the loader's connection
	rd   *bufio.Reader
}

func (m *memcachedClientConn) close() error {
	if m.raw != nil {
		m.raw.Close()
	}
	return m.c.Close()
}

// put writes a batch in one write: the sets with noreply, then a meta
// no-op whose answer says memcached has read them all.
func (m *memcachedClientConn) put(ctx context.Context, first, last int64) error {
	if m.raw == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, m.ep.Network, m.ep.Address)
		if err != nil {
			return err
		}
		m.raw, m.rd = c, bufio.NewReader(c)
	}
	b := m.buf[:0]
	var val []byte
	for id := first; id <= last; id++ {
		val = appendValue(val[:0], id)
		b = append(b, "set "...)
		b = appendKey(b, id)
		b = append(b, " 0 0 "...)
		b = strconv.AppendInt(b, int64(len(val)), 10)
		b = append(b, " noreply\r\n"...)
		b = append(b, val...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "mn\r\n"...)
	m.buf = b
	m.raw.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := m.raw.Write(b); err != nil {
		return err
	}
	line, err := m.rd.ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "MN" {
		return fmt.Errorf("memcached answered %q to the load's sets", strings.TrimSpace(line))
	}
	return nil
}

func (m *memcachedClientConn) get(ctx context.Context, id int64) (int64, float64, bool, error) {
	m.buf = appendKey(m.buf[:0], id)
	it, err := m.c.Get(string(m.buf))
	if errors.Is(err, memcache.ErrCacheMiss) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	v1, v2, err := parseValue(it.Value)
	return v1, v2, err == nil, err
}

// getMany is one multi-get ("get k1 k2 …"), memcached's batch.
func (m *memcachedClientConn) getMany(ctx context.Context, ids []int64, found func(at int, id, v1 int64, v2 float64)) error {
	m.keys = m.keys[:0]
	for _, id := range ids {
		m.keys = append(m.keys, string(appendKey(nil, id)))
	}
	items, err := m.c.GetMulti(m.keys)
	if err != nil {
		return err
	}
	for key, it := range items {
		id, err := strconv.ParseInt(strings.TrimPrefix(key, "kv:"), 10, 64)
		if err != nil {
			return fmt.Errorf("key %q came back: not asked for", key)
		}
		v1, v2, err := parseValue(it.Value)
		if err != nil {
			return err
		}
		found(-1, id, v1, v2)
	}
	return nil
}

// memcachedKeysUnder counts the items whose key starts with prefix, and
// names the first, from memcached's LRU crawler ("lru_crawler metadump
// all", memcached 1.5.5+). A memcached whose crawler is off cannot say,
// and is refused: shootout writes only where it can see nothing is.
func memcachedKeysUnder(ctx context.Context, ep proto.Endpoint, prefix string) (first string, n int, err error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, ep.Network, ep.Address)
	if err != nil {
		return "", 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Minute))
	rd := bufio.NewReader(c)
	for attempt := 0; ; attempt++ {
		if _, err := c.Write([]byte("lru_crawler metadump all\r\n")); err != nil {
			return "", 0, err
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			return "", 0, fmt.Errorf("memcached lru_crawler metadump: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		// another client's crawl is running: it ends within moments
		if strings.HasPrefix(line, "BUSY") && attempt < 50 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for {
			switch {
			case line == "END":
				return first, n, nil
			case strings.HasPrefix(line, "key="):
				enc, _, _ := strings.Cut(line[len("key="):], " ")
				key, err := url.QueryUnescape(enc)
				if err != nil {
					key = enc
				}
				if strings.HasPrefix(key, prefix) {
					if n == 0 {
						first = key
					}
					n++
				}
			default:
				return "", 0, fmt.Errorf("this memcached cannot list its keys (it answered %q to lru_crawler metadump; started with -o no_lru_crawler?), so shootout cannot see whether its kv:ID keys would overwrite yours: give a memcached of its own", line)
			}
			if line, err = rd.ReadString('\n'); err != nil {
				return "", 0, fmt.Errorf("memcached lru_crawler metadump: %w", err)
			}
			line = strings.TrimRight(line, "\r\n")
		}
	}
}
