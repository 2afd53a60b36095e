package target

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// a MariaDB 10.11 crash report in a connection's thread, as its error log
// has it (cut), ending in the lines a tail would quote
const crashLog = `2026-11-28  3:49:58 0 [Note] /usr/sbin/mariadbd: ready for connections.
261128  3:50:00 [ERROR] /usr/sbin/mariadbd got signal 11 ;
Sorry, we probably made a mistake, and this is a bug.
Thread pointer: 0x7f2a3c000c68
stack_bottom = 0x7f2a5d7fdc38 thread_stack 0x49000
/usr/sbin/mariadbd(my_print_stacktrace+0x2e)[0x55a13c8d787e]
/usr/sbin/mariadbd(handle_fatal_signal+0x269)[0x55a13c4520f9]
libc_sigaction.c:0(__restore_rt)[0x7fc750e5a050]
/usr/sbin/mariadbd(_ZN7handler10ha_rnd_nextEPh+0x5b)[0x55a13c45a1ab]
/usr/sbin/mariadbd(_Z13rr_sequentialP11READ_RECORD+0x1e)[0x55a13c5b2e0e]
/usr/sbin/mariadbd(_Z10sub_selectP4JOINP13st_join_tableb+0x1a3)[0x55a13c2f7a83]
/usr/sbin/mariadbd(_ZN4JOIN10exec_innerEv+0xa8f)[0x55a13c31ce2f]
/usr/sbin/mariadbd(_ZN4JOIN4execEv+0x3b)[0x55a13c31d1bb]
Trying to get some variables.
Some pointers may be invalid and cause the dump to abort.
Query (0x7f2a3c010d30): SELECT c FROM sbtest1 WHERE id BETWEEN 10 AND 109
Connection ID (thread ID): 7
Status: NOT_KILLED
Resource Limits (excludes unlimited resources):
Max core file size        0                    unlimited            bytes
Core pattern: core
Kernel version: Linux version 6.18.44
`

// TestCrashReportQuotesWhy: the death's message quotes the signal line,
// the query, the first frames past the signal handler and the connection,
// not the report's last lines.
func TestCrashReportQuotesWhy(t *testing.T) {
	got := crashReport(crashLog)
	for _, want := range []string{"mariadbd got signal 11 ;", "ha_rnd_next", "sub_select", "Query (0x7f2a3c010d30): SELECT c FROM sbtest1", "Connection ID (thread ID): 7"} {
		if !strings.Contains(got, want) {
			t.Errorf("crash report %q lacks %q", got, want)
		}
	}
	for _, not := range []string{"handle_fatal_signal", "__restore_rt", "JOIN4exec", "Kernel version", "[0x"} {
		if strings.Contains(got, not) {
			t.Errorf("crash report %q has %q: only the first frames past the handler, without addresses", got, not)
		}
	}
	if crashReport("2026-11-28 [Note] shutdown complete\n") != "" {
		t.Error("a log without a crash report has none")
	}
}

// TestKeepLogKeepsTheEnd: a log over the bound is kept from its first whole
// line within the last bytes, after a line saying what was left out.
func TestKeepLogKeepsTheEnd(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "error.log"), filepath.Join(dir, "cells", "x.server.log")
	os.WriteFile(src, []byte(strings.Repeat("chatter line\n", 1000)+crashLog), 0o644)
	if err := KeepLog(src, dst, int64(len(crashLog))+5); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dst)
	first, rest, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(first, "left out") || rest != crashLog {
		t.Fatalf("kept log starts %q and must hold the whole crash report and nothing of a cut line:\n%s", first, b)
	}
}

// TestGaleraKeepsTheDeadNodesLog: of a cluster whose second node crashed
// (a real process killed by SIGSEGV), Death quotes that node's crash report
// and ServerLog is that node's log, not the first one's.
func TestGaleraKeepsTheDeadNodesLog(t *testing.T) {
	dir := t.TempDir()
	in := &galeraInstance{}
	for i, script := range []string{"sleep 30", "kill -SEGV $$"} {
		p, err := StartProcess(ServerCmd(nil, "sh", "-c", script))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop(syscall.SIGKILL, time.Second)
		n := &galeraNode{}
		n.name, n.logFile = "n"+strconv.Itoa(i+1), filepath.Join(dir, strconv.Itoa(i)+".log")
		n.proc = p
		os.WriteFile(n.logFile, []byte(crashLog), 0o644)
		in.nodes = append(in.nodes, n)
	}
	<-in.nodes[1].proc.Exited()
	if got := in.ServerLog(); got != in.nodes[1].logFile {
		t.Errorf("ServerLog = %q, want the dead node's %q", got, in.nodes[1].logFile)
	}
	if d := in.Death(); !strings.HasPrefix(d, "galera node n2 was killed by signal 11") || !strings.Contains(d, "its crash report: 261128") {
		t.Errorf("Death = %q, want n2's signal and its crash report", d)
	}
}
