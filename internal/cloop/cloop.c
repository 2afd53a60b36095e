#include "cloop.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t cloop_load(int64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void cloop_store(int64_t *p, int64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
int32_t cloop_load32(int32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
void cloop_store32(int32_t *p, int32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static int64_t clock_ns(clockid_t c) {
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static const char *keep_error(cloop *l, unsigned int num, const char *state, const char *msg) {
	l->errnum = num ? num : 2000; // CR_UNKNOWN_ERROR: an error is never 0
	strncpy(l->sqlstate, state ? state : "HY000", 5);
	l->sqlstate[5] = 0;
	strncpy(l->errmsg, msg ? msg : "", sizeof(l->errmsg) - 1);
	l->errmsg[sizeof(l->errmsg) - 1] = 0;
	return l->errmsg;
}

static const char *stmt_error(cloop *l, MYSQL_STMT *st) {
	return keep_error(l, mysql_stmt_errno(st), mysql_stmt_sqlstate(st), mysql_stmt_error(st));
}

const char *cloop_open(cloop *l, const char *host, unsigned int port, const char *sock, const char *user, const char *pw, const char *db,
	const char **queries, int nstmt, int check, int per, int64_t ringsize) {
	l->check = check;
	l->per = per;
	l->mask = ringsize - 1;
	l->ring = calloc(ringsize, sizeof(cloop_read));
	l->st = calloc(nstmt, sizeof(MYSQL_STMT *));
	if (!l->ring || !l->st) return keep_error(l, 2008, "HY000", "out of memory");
	if (!(l->m = mysql_init(NULL))) return keep_error(l, 2008, "HY000", "out of memory");
	// without a socket, TCP even for host "localhost", which libmariadb
	// would otherwise take for its default socket: another server
	if (!sock) {
		unsigned int tcp = MYSQL_PROTOCOL_TCP;
		mysql_optionsv(l->m, MYSQL_OPT_PROTOCOL, &tcp);
	}
	// a handshake that never ends would hold a reconnect where the stall
	// watch cannot see it (no event is in flight)
	unsigned int connect_timeout = 30;
	mysql_optionsv(l->m, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
	if (!mysql_real_connect(l->m, host, user, pw, db, port, sock, 0))
		return keep_error(l, mysql_errno(l->m), mysql_sqlstate(l->m), mysql_error(l->m));
	memset(l->param, 0, sizeof(l->param));
	memset(l->res, 0, sizeof(l->res));
	l->param[0].buffer_type = MYSQL_TYPE_LONGLONG;
	l->param[0].buffer = &l->id;
	if (check == CLOOP_VALUES) {
		l->res[0].buffer_type = MYSQL_TYPE_LONGLONG;
		l->res[0].buffer = &l->v1;
		l->res[0].is_null = &l->nul[0];
		l->res[1].buffer_type = MYSQL_TYPE_DOUBLE;
		l->res[1].buffer = &l->v2;
		l->res[1].is_null = &l->nul[1];
	} else {
		l->res[0].buffer_type = MYSQL_TYPE_STRING;
		l->res[0].buffer = l->any;
		l->res[0].buffer_length = sizeof(l->any);
		l->res[0].length = &l->anylen;
	}
	for (int i = 0; i < nstmt; i++) {
		MYSQL_STMT *st = mysql_stmt_init(l->m);
		if (!st) return keep_error(l, mysql_errno(l->m), mysql_sqlstate(l->m), mysql_error(l->m));
		l->st[i] = st;
		l->nstmt = i + 1;
		if (mysql_stmt_prepare(st, queries[i], strlen(queries[i]))) return stmt_error(l, st);
		unsigned int want = check == CLOOP_VALUES ? 2 : 1;
		if (mysql_stmt_param_count(st) != 1 || mysql_stmt_field_count(st) < want)
			return keep_error(l, 2031, "HY000", "the statement must take one id and return the columns asked for");
		if (mysql_stmt_bind_param(st, l->param) || mysql_stmt_bind_result(st, l->res)) return stmt_error(l, st);
	}
	return NULL;
}

// one read: 0, or -1 with the error kept; what the row was is in r
static int read_one(cloop *l, cloop_read *r) {
	MYSQL_STMT *st = l->st[r->stmt];
	l->id = r->id;
	if (mysql_stmt_execute(st)) return stmt_error(l, st), -1;
	int rows = 0, rc;
	while ((rc = mysql_stmt_fetch(st)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
		if (++rows == 1 && l->check == CLOOP_VALUES) {
			r->got1 = l->nul[0] ? 0 : l->v1;
			r->got2 = l->nul[1] ? 0 : l->v2;
		}
	}
	if (rc == 1) return stmt_error(l, st), -1;
	mysql_stmt_free_result(st);
	r->status = CLOOP_OK;
	if (rows == 0)
		r->status = CLOOP_NO_ROW;
	else if (rows > 1)
		r->status = CLOOP_ROWS;
	else if (l->check == CLOOP_VALUES && (l->nul[0] || l->nul[1] || r->got1 != r->want1 || r->got2 != r->want2))
		r->status = CLOOP_WRONG;
	return 0;
}

// the event of reads [first, first+per): 0, or -1 with the error kept
int cloop_once(cloop *l, int64_t first) {
	int64_t began = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < l->per; i++)
		if (read_one(l, &l->ring[(first + i) & l->mask])) return -1;
	l->ring[(first + l->per - 1) & l->mask].latency = clock_ns(CLOCK_MONOTONIC) - began;
	return 0;
}

static void *loop(void *arg) {
	cloop *l = arg;
	int64_t pos = l->done;
	const struct timespec nap = {0, 200000};
	while (!cloop_load32(&l->stop) && clock_ns(CLOCK_MONOTONIC) < l->until) {
		if (cloop_load(&l->filled) - pos < l->per) {
			// Go has not given the next event yet: it drains every few ms
			nanosleep(&nap, NULL);
			continue;
		}
		cloop_store(&l->since, clock_ns(CLOCK_REALTIME));
		if (cloop_once(l, pos)) break;
		cloop_store(&l->since, 0);
		pos += l->per;
		cloop_store(&l->done, pos);
	}
	cloop_store(&l->since, 0);
	cloop_store32(&l->finished, 1);
	return NULL;
}

int64_t cloop_now(void) { return clock_ns(CLOCK_MONOTONIC); }

int cloop_start(cloop *l, int64_t until) {
	l->until = until;
	l->stop = 0;
	l->finished = 0;
	l->errnum = 0;
	l->errmsg[0] = 0;
	int rc = pthread_create(&l->thread, NULL, loop, l);
	l->running = rc == 0;
	return rc;
}

void cloop_join(cloop *l) {
	if (l->running) pthread_join(l->thread, NULL);
	l->running = 0;
}

void cloop_close(cloop *l) {
	cloop_join(l);
	for (int i = 0; i < l->nstmt; i++) mysql_stmt_close(l->st[i]);
	if (l->m) mysql_close(l->m);
	free(l->st);
	free(l->ring);
	memset(l, 0, sizeof(*l));
}
