package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bad input to capture is one line naming the flag or the file, exit 2,
// and a password in --to never shows.
func TestCaptureBadInputIsOneLineExit2(t *testing.T) {
	dir := t.TempDir()
	notCapture := filepath.Join(dir, "slow.log")
	if err := os.WriteFile(notCapture, []byte("# Time: 2026-11-28T02:00:00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pgCapture := filepath.Join(dir, "pg.capture")
	if err := os.WriteFile(pgCapture, []byte(`{"type":"header","format":"shootout-capture","version":1,"protocol":"postgresql","source":"proxy"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "c.jsonl")
	earlier := filepath.Join(dir, "earlier.jsonl")
	if err := os.WriteFile(earlier, []byte("an earlier capture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--show", notCapture}, notCapture + ":1: not a shootout capture"},
		{[]string{"--show", filepath.Join(dir, "none")}, filepath.Join(dir, "none") + ": open"},
		{[]string{"--listen", "0.0.0.0:6033", "--to", "mysql://u:Secret9@127.0.0.1:3306", "--out", out}, "--listen \"0.0.0.0:6033\": the proxy listens on a loopback address only"},
		{[]string{"--listen", "127.0.0.1:6033", "--to", "mysql://u:Sec%zzret9@127.0.0.1", "--out", out}, "--to: not a URL"},
		{[]string{"--listen", "127.0.0.1:6033", "--to", "redis://u:Secret9@127.0.0.1", "--out", out}, "--to: scheme \"redis\"; valid:"},
		{[]string{"--listen", "127.0.0.1:6033", "--to", "mysql://u:Secret9@10.1.2.3:3306/db", "--out", out}, "--to: host \"10.1.2.3\" is not a loopback address"},
		{[]string{"--listen", "127.0.0.1:6033", "--to", "postgres://u:Secret9@db.example.com/db", "--out", out}, "--to: host \"db.example.com\" is not a loopback address"},
		{[]string{"--listen", "127.0.0.1:6033", "--out", out}, "the proxy needs --listen, --to and --out together"},
		{[]string{"--show", notCapture, "--out", out}, "give one or the other"},
		{[]string{"--from-log", notCapture, "--format", "slow", "--out", out}, notCapture + ": no statement in it"},
		{[]string{"--from-log", notCapture, "--format", "general", "--out", out}, notCapture + ":1: not a general query log"},
		{[]string{"--from-log", notCapture, "--format", "binlog", "--out", out}, "--format \"binlog\"; valid: slow, general, csvlog"},
		{[]string{"--from-log", notCapture, "--out", out}, "--from-log FILE, --format (slow, general, csvlog) and --out FILE go together"},
		{[]string{"--to-pages", pgCapture, "--out", out}, pgCapture + ": a postgresql capture; the pages of --queries run on MariaDB"},
		{[]string{"--to-pages", notCapture, "--out", out}, notCapture + ":1: not a shootout capture"},
		{[]string{"--to-pages", pgCapture}, "--to-pages CAPTURE and --out PAGES go together"},
		{[]string{"--listen", "127.0.0.1:0", "--to", "mysql://127.0.0.1:1", "--out", earlier}, "earlier.jsonl: file exists (a capture is never overwritten)"},
	} {
		stdout, stderr, code := shootout(t, nil, append([]string{"capture"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stdout+stderr, "Secret9") || strings.Contains(stdout+stderr, "Sec%zzret9") {
			t.Errorf("capture %v: exit %d, want 2 and one line with %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("bad input left a capture file behind")
	}
}

// SIGTERM stops the proxy with a complete file: its header and its end
// line, exit 0.
func TestCaptureStopsOnSIGTERMWithACompleteFile(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out := filepath.Join(t.TempDir(), "c.jsonl")
	cmd := exec.Command(bin, "capture", "--listen", addr, "--to", "mysql://app:Secret9@127.0.0.1:1/db", "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i == 200 {
			cmd.Process.Kill()
			t.Fatalf("the proxy never listened on %s: %s", addr, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("capture after SIGTERM: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"header","format":"shootout-capture","version":1`) ||
		!strings.HasPrefix(lines[1], `{"type":"end"`) || !strings.Contains(lines[1], "stopped by a signal") {
		t.Errorf("the capture after SIGTERM:\n%s", b)
	}
	if strings.Contains(string(b)+stderr.String(), "Secret9") {
		t.Errorf("the password of --to is in the capture or the log")
	}
}

// A replay of what is no capture, of a capture cut short, or of another
// protocol's capture than the targets' is one line naming the file and
// line, exit 2, and nothing started: no result directory, no server.
func TestReplayOfABadCaptureIsOneLineExit2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := func(proto string) string {
		return `{"type":"header","format":"shootout-capture","version":1,"protocol":"` + proto + `","start_ns":1000}` + "\n" +
			`{"type":"open","session":1,"at_ns":1000}` + "\n" +
			`{"type":"command","session":1,"seq":1,"kind":"query","text":"SELECT 1","start_ns":2000,"end_ns":3000,"rows":1}` + "\n"
	}
	end := `{"type":"end","at_ns":9000}` + "\n"
	noLog := write("app.log", "2026-11-28 03:18:24 LOG:  database system is ready\n")
	cut := write("cut.capture", head("mysql")[:len(head("mysql"))-40])
	noEnd := write("noend.capture", head("mysql"))
	pg := write("pg.capture", head("postgresql")+end)
	my := write("my.capture", head("mysql")+end)
	slow := write("slow.log", "# Time: 261128  3:18:20\n# User@Host: u[u] @  [127.0.0.1]\n# Thread_id: 5  Schema: db  QC_hit: No\nSELECT 1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--replay", noLog, "--targets", "mariadb-innodb"}, noLog + ":1: not a shootout capture"},
		{[]string{"run", "--replay", cut, "--targets", "mariadb-innodb"}, cut + ":3: truncated line"},
		{[]string{"run", "--replay", noEnd, "--targets", "mariadb-innodb"}, noEnd + ":4: no end line: the capture was cut short"},
		{[]string{"run", "--replay", pg, "--targets", "mariadb-innodb"}, pg + ":1: a capture of the postgresql protocol replays on PostgreSQL targets, not on MariaDB"},
		{[]string{"run", "--replay", my, "--targets", "postgres"}, my + ":1: a capture of the mysql protocol replays on MariaDB or MySQL targets, not on PostgreSQL"},
		// its clients wait for each other: one stopped by a count or a
		// rate would leave the others waiting
		{[]string{"run", "--replay", my, "--targets", "mariadb-innodb", "--reps", "10"}, "--reps: not for replay: a replay runs as its capture ran"},
		{[]string{"run", "--replay", my, "--targets", "mariadb-innodb", "--rate", "100"}, "--rate: not for replay: a replay runs as its capture ran"},
		{[]string{"capture", "--from-log", slow, "--format", "slow", "--out", filepath.Join(dir, "c.capture")}, slow + ":4: truncated line"},
		{[]string{"capture", "--from-log", noLog, "--format", "csvlog", "--out", filepath.Join(dir, "c.capture")}, noLog + ":1: not a"},
	} {
		out := filepath.Join(dir, "results"+filepath.Base(c.args[2]))
		args := c.args
		if args[0] == "run" {
			args = append(args, "--duration", "5s", "--out", out)
		}
		stdout, stderr, code := shootout(t, nil, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stdout+stderr, "started") {
			t.Errorf("%v: exit %d, want 2 and one line with %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
		for _, p := range []string{out, filepath.Join(dir, "c.capture")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%v: %s was written", c.args, p)
			}
		}
	}
}
