//go:build cgoclient

// Command cgoclient is an experiment kept so that its figures in
// docs/bench-log.md#2026-11-27--innodbs-io_uring-stall-and-a-client-on-libmariadb can be made again: it
// asks whether shootout's point selects at 8 clients sharing 2 cores with
// the server trail sysbench's because of the Go driver or because of Go's
// scheduler. It runs sysbench's oltp_point_select query through
// libmariadb's prepared statements, as sysbench does, three ways: a cgo
// call per query from each client goroutine, a cgo call per event of ten
// queries, and each client on its own C thread running the whole loop (no
// Go between the kernel's wake-up and the next query). It is not part of
// shootout: it needs cgo and libmariadb-dev, and is built only with its tag:
//
//	apt-get install -y libmariadb-dev
//	go run -tags cgoclient ./bench/cgoclient -port 3306 -db sbtest -mode c-threads
package main

/*
#cgo CFLAGS: -I/usr/include/mariadb
#cgo LDFLAGS: -lmariadb -lpthread
#include <mysql.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

typedef struct {
	MYSQL *m;
	MYSQL_STMT *st;
	long long id;
	char c[128];
	unsigned long clen;
	MYSQL_BIND param[1], res[1];
	unsigned int seed;
	long long rows;
} conn_t;

static const char *conn_open(conn_t *c, const char *host, unsigned int port, const char *sock,
		const char *user, const char *pw, const char *db, const char *query) {
	c->m = mysql_init(NULL);
	if (!mysql_real_connect(c->m, host, user, pw, db, port, sock, 0)) return mysql_error(c->m);
	c->st = mysql_stmt_init(c->m);
	if (mysql_stmt_prepare(c->st, query, strlen(query))) return mysql_stmt_error(c->st);
	c->param[0].buffer_type = MYSQL_TYPE_LONGLONG;
	c->param[0].buffer = &c->id;
	c->res[0].buffer_type = MYSQL_TYPE_STRING;
	c->res[0].buffer = c->c;
	c->res[0].buffer_length = sizeof(c->c);
	c->res[0].length = &c->clen;
	if (mysql_stmt_bind_param(c->st, c->param) || mysql_stmt_bind_result(c->st, c->res)) return mysql_stmt_error(c->st);
	return NULL;
}

static void conn_close(conn_t *c) {
	mysql_stmt_close(c->st);
	mysql_close(c->m);
}

// one point select of a random id; -1 an error, -2 not exactly one row
static int one(conn_t *c) {
	c->id = 1 + rand_r(&c->seed) % c->rows;
	if (mysql_stmt_execute(c->st)) return -1;
	int n = 0;
	while (mysql_stmt_fetch(c->st) == 0) n++;
	mysql_stmt_free_result(c->st);
	return n == 1 ? 0 : -2;
}

static long long nanos(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// n queries, each one's latency in lat
static int event(conn_t *c, int n, long long *lat) {
	for (int i = 0; i < n; i++) {
		long long a = nanos();
		int r = one(c);
		if (r) return r;
		lat[i] = nanos() - a;
	}
	return 0;
}

typedef struct { conn_t *c; long long until, queries; int err; } loop_t;

static void *loop(void *p) {
	loop_t *l = p;
	long long lat[10];
	while (nanos() < l->until) {
		if ((l->err = event(l->c, 10, lat))) break;
		l->queries += 10;
	}
	return NULL;
}

// every client on its own thread for secs; the queries of all, or -1
static long long threads(conn_t *cs, int n, double secs) {
	pthread_t *th = calloc(n, sizeof(pthread_t));
	loop_t *ls = calloc(n, sizeof(loop_t));
	long long until = nanos() + (long long)(secs * 1e9), total = 0;
	for (int i = 0; i < n; i++) {
		ls[i].c = &cs[i];
		ls[i].until = until;
		pthread_create(&th[i], NULL, loop, &ls[i]);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		total = ls[i].err || total < 0 ? -1 : total + ls[i].queries;
	}
	free(th);
	free(ls);
	return total;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func processCPU() time.Duration {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func main() {
	host := flag.String("host", "127.0.0.1", "server address")
	port := flag.Int("port", 3306, "server port")
	socket := flag.String("socket", "", "unix socket (instead of host and port)")
	user := flag.String("user", "bench", "user")
	password := flag.String("password", "", "password")
	db := flag.String("db", "sbtest", "database holding sysbench's sbtest1")
	rows := flag.Int64("rows", 1_000_000, "sbtest1's rows (ids 1..rows)")
	clients := flag.Int("clients", 8, "connections")
	duration := flag.Duration("duration", 10*time.Second, "how long to run")
	mode := flag.String("mode", "c-threads", "go-per-query, go-per-event or c-threads")
	lock := flag.Bool("lock", false, "lock each client goroutine to its thread (go-* modes)")
	flag.Parse()
	if *mode != "go-per-query" && *mode != "go-per-event" && *mode != "c-threads" {
		fmt.Fprintf(os.Stderr, "-mode %q: want go-per-query, go-per-event or c-threads\n", *mode)
		os.Exit(2)
	}

	cs := unsafe.Slice((*C.conn_t)(C.calloc(C.size_t(*clients), C.size_t(unsafe.Sizeof(C.conn_t{})))), *clients)
	var csock *C.char
	if *socket != "" {
		csock = C.CString(*socket)
	}
	query := C.CString("SELECT c FROM sbtest1 WHERE id=?")
	for i := range cs {
		cs[i].seed, cs[i].rows = C.uint(i+1), C.longlong(*rows)
		if msg := C.conn_open(&cs[i], C.CString(*host), C.uint(*port), csock, C.CString(*user), C.CString(*password), C.CString(*db), query); msg != nil {
			fmt.Fprintf(os.Stderr, "client %d: %s\n", i+1, C.GoString(msg))
			os.Exit(1)
		}
		defer C.conn_close(&cs[i])
	}

	cpu0, t0 := processCPU(), time.Now()
	var queries int64
	if *mode == "c-threads" {
		queries = int64(C.threads(&cs[0], C.int(*clients), C.double(duration.Seconds())))
	} else {
		queries = goClients(cs, *mode == "go-per-query", *lock, t0.Add(*duration))
	}
	elapsed, cpu := time.Since(t0), processCPU()-cpu0
	if queries <= 0 {
		fmt.Fprintln(os.Stderr, "a query failed or returned no row")
		os.Exit(1)
	}
	fmt.Printf("%s lock=%v clients=%d: %.0f qps, client %.2f µs CPU/q\n", *mode, *lock, *clients,
		float64(queries)/elapsed.Seconds(), float64(cpu.Microseconds())/float64(queries))
}

// goClients runs a goroutine per connection until deadline, each query
// (perQuery) or each event of ten called from Go, and returns the
// queries they ran, negative if one failed.
func goClients(cs []C.conn_t, perQuery, lock bool, deadline time.Time) int64 {
	var queries int64
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func(c *C.conn_t) {
			defer wg.Done()
			if lock {
				runtime.LockOSThread()
			}
			n, ok := goClient(c, perQuery, deadline)
			if !ok {
				atomic.StoreInt64(&queries, -1<<62)
				return
			}
			atomic.AddInt64(&queries, n)
		}(&cs[i])
	}
	wg.Wait()
	return queries
}

// goClient is one connection's loop: its queries, false if one failed.
func goClient(c *C.conn_t, perQuery bool, deadline time.Time) (int64, bool) {
	// the latencies go where the driver's go, as shootout's do
	h := hdrhistogram.New(1, int64(time.Minute), 3)
	lat := (*[10]C.longlong)(C.malloc(10 * 8))
	defer C.free(unsafe.Pointer(lat))
	var n int64
	for time.Now().Before(deadline) {
		if perQuery {
			for j := 0; j < 10; j++ {
				began := time.Now()
				if C.one(c) != 0 {
					return n, false
				}
				_ = h.RecordValue(int64(time.Since(began)))
			}
		} else {
			if C.event(c, 10, &lat[0]) != 0 {
				return n, false
			}
			for _, l := range lat {
				_ = h.RecordValue(int64(l))
			}
		}
		n += 10
	}
	return n, true
}
