// A client's loop of point reads on its own POSIX thread, through
// libmariadb's prepared statements, with nothing of Go between the
// kernel's wake-up and the next query (BENCHMARKS.md, "a client on
// libmariadb": only such a loop kept up with sysbench's at 8 clients
// sharing 2 cores with the server). Go feeds the reads and drains what
// they took through a ring the two sides share.
#include <mysql.h>
#include <stdint.h>
#include <pthread.h>

// one read: what Go asks (stmt, id, the row it expects) and what the
// thread found
typedef struct {
	int32_t stmt;
	int32_t status; // CLOOP_OK, CLOOP_NO_ROW, CLOOP_ROWS, CLOOP_WRONG
	int64_t id;
	int64_t want1;
	double want2;
	int64_t got1;
	double got2;
	// the event's time in ns, on the last read of each event
	int64_t latency;
} cloop_read;

enum { CLOOP_OK, CLOOP_NO_ROW, CLOOP_ROWS, CLOOP_WRONG };

// what the reads return: any columns, read and dropped (sysbench's point
// select), or value1 BIGINT and value2 DOUBLE checked against the read's
// want1 and want2 (kv)
enum { CLOOP_ANY, CLOOP_VALUES };

typedef struct {
	MYSQL *m;
	MYSQL_STMT **st;
	int nstmt;
	int check;
	int per;        // reads per event
	int64_t id;     // the bound parameter
	char any[512];  // CLOOP_ANY: the first column, truncated
	unsigned long anylen;
	int64_t v1;
	double v2;
	char nul[2];
	MYSQL_BIND param[1], res[2];

	cloop_read *ring;
	int64_t mask; // ring size - 1 (a power of two)
	// monotonic counters of reads: Go has filled [done, filled); the
	// thread finished [0, done); read and written with __atomic
	int64_t filled, done;
	int64_t since;     // CLOCK_REALTIME ns the event in flight began, 0 between
	int32_t stop;      // set by Go: end after the event in flight
	int32_t finished;  // set by the thread as it ends
	int64_t until;     // CLOCK_MONOTONIC ns the loop ends at
	// the error that ended the loop
	unsigned int errnum;
	char sqlstate[6];
	char errmsg[512];
	int running;
	pthread_t thread;
} cloop;

const char *cloop_open(cloop *l, const char *host, unsigned int port, const char *sock, const char *user, const char *pw, const char *db,
	const char **queries, int nstmt, int check, int per, int64_t ringsize);
int cloop_start(cloop *l, int64_t until);
void cloop_join(cloop *l);
int cloop_once(cloop *l, int64_t first);
void cloop_close(cloop *l);
int64_t cloop_now(void);
int64_t cloop_load(int64_t *p);
void cloop_store(int64_t *p, int64_t v);
int32_t cloop_load32(int32_t *p);
void cloop_store32(int32_t *p, int32_t v);
