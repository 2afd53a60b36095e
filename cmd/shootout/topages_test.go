package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// A capture taken through the proxy with --dump becomes a pages file
// (capture --to-pages) that runs as --queries over that dump: the
// captured requests, their parameters written in, weighted by frequency.
func TestCaptureToPagesRunsAsQueries(t *testing.T) {
	t.Parallel() // its own server, proxy and shootout processes (TestMain says why)
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	work := testenv.WorkDir(t)
	ctx := context.Background()
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	ci := inst.Endpoint()
	db := inst.(target.SQLInstance).DB()
	for _, q := range []string{"CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40), price INT)",
		"INSERT INTO items SELECT seq, CONCAT('item ', seq), seq % 20 FROM seq_1_to_50"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dir := t.TempDir()
	capture := filepath.Join(dir, "app.capture")
	addr := proxyBinary(t, "mysql://"+ci.User+":"+ci.Password+"@"+ci.Address+"/"+ci.Database, capture)
	app, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", ci.User, ci.Password, addr.addr, ci.Database))
	if err != nil {
		t.Fatal(err)
	}
	// three requests of one kind, then one of another
	for i := 1; i <= 3; i++ {
		var name string
		must(t, app.QueryRow("SELECT name FROM items WHERE id = ?", i).Scan(&name))
		tx, err := app.Begin()
		must(t, err)
		_, err = tx.Exec("UPDATE items SET price = price + 1 WHERE id = ?", i)
		must(t, err)
		must(t, tx.Commit())
		time.Sleep(120 * time.Millisecond)
	}
	var n int
	must(t, app.QueryRow("SELECT COUNT(*) FROM items WHERE price > 10").Scan(&n))
	must(t, app.Close())
	addr.stop()

	pages := filepath.Join(dir, "pages.yaml")
	if stdout, stderr, code := shootout(t, nil, "capture", "--to-pages", capture, "--out", pages); code != 0 {
		t.Fatalf("--to-pages: exit %d\n%s%s", code, stdout, stderr)
	}
	checkPages(t, pages)
	out := filepath.Join(dir, "run")
	stdout, stderr, code := shootout(t, nil, "run", "--targets", "mariadb-innodb", "--dump", capture+".dump.sql", "--queries", pages,
		"--clients", "2", "--duration", "2s", "--repeat", "1", "--out", out)
	files, rerr := result.ReadDir(out)
	if code != 0 || rerr != nil || len(files) != 1 || !files[0].OK() || files[0].Throughput.Events == 0 {
		t.Fatalf("run --queries from a capture: exit %d, %v\n%s\n%s", code, rerr, stdout, stderr)
	}
}

// checkPages: the captured requests, each kind weighted by its count,
// the execute's parameter written in.
func checkPages(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	var pf struct {
		Pages []struct {
			Name       string   `yaml:"name"`
			Weight     int      `yaml:"weight"`
			Statements []string `yaml:"statements"`
		} `yaml:"pages"`
	}
	must(t, yaml.Unmarshal(b, &pf))
	var got []string
	for _, p := range pf.Pages {
		got = append(got, fmt.Sprintf("%d: %s", p.Weight, strings.Join(p.Statements, "; ")))
	}
	want := []string{
		"1: SELECT name FROM items WHERE id = 1; START TRANSACTION; UPDATE items SET price = price + 1 WHERE id = 1; COMMIT",
		"1: SELECT name FROM items WHERE id = 2; START TRANSACTION; UPDATE items SET price = price + 1 WHERE id = 2; COMMIT",
		"1: SELECT name FROM items WHERE id = 3; START TRANSACTION; UPDATE items SET price = price + 1 WHERE id = 3; COMMIT",
		"1: SELECT COUNT(*) FROM items WHERE price > 10",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pages:\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), b)
	}
}

type runningProxy struct {
	addr string
	stop func()
}

// proxyBinary runs shootout capture --dump in front of the server until
// stop, which sends SIGTERM and waits.
func proxyBinary(t *testing.T, to, out string) runningProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "capture", "--listen", addr, "--to", to, "--out", out, "--dump")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	for i := 0; ; i++ {
		if _, err := os.Stat(out); err == nil {
			break
		}
		if i == 300 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the proxy never wrote %s: %s", out, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return runningProxy{addr: addr, stop: func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("capture: %v\n%s", err, stderr.String())
		}
	}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
