package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"shootout/internal/limits"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

var bin string

// TestMain builds the binary the tests run. The tests marked t.Parallel run
// beside each other once every other test has ended (go test runs
// top-level parallel tests last): each runs shootout in processes,
// servers and directories of its own, and asserts nothing a neighbour's
// CPU would change. The tests that SIGKILL a shootout are not parallel:
// any shootout that starts sweeps what a killed one left (the ledger is
// the machine's), and they assert that the next run does, and what it
// says; nor are those whose figures are the assertion (compare, repeat
// auto, calibrate) or that time a node's death (Galera's killed node).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shootout-bin-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "shootout")
	if prebuilt := os.Getenv("SHOOTOUT_TEST_BIN"); prebuilt != "" {
		// where no Go toolchain can build it: the cgroup v2 guest
		bin = prebuilt
	} else if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	// A test run that was killed (a CI timeout, a reboot of the sandbox)
	// leaves a ledger; the first command that starts something sweeps it
	// and says so on stderr. Sweep here, so that the tests that want
	// stderr to be exactly one line see only their own command's output.
	for _, line := range limits.Sweep() {
		fmt.Fprintf(os.Stderr, "before the tests, swept what an earlier killed run left: %s\n", line)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func shootout(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return shootoutWith(t, "", env, args...)
}

// shootoutWith runs the binary in dir (the test's own when empty) with env
// added to this process's environment.
func shootoutWith(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestBadInputIsOneLineAndExitTwo(t *testing.T) {
	dir := testenv.WorkDir(t)
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte("targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nclients: [two]\nduration: 1s\n"), 0o644)
	// the user's own dump and pages, each wrong in one place
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	goodDump := write("shop.sql", "DROP TABLE IF EXISTS `p`;\nCREATE TABLE `p` (\n  `id` int NOT NULL,\n  `name` varchar(20),\n  PRIMARY KEY (`id`)\n) ENGINE=MyISAM;\nINSERT INTO `p` VALUES (1,'a');\n")
	notSQL := write("photo.sql", "\x89PNG\r\n\x1a\n")
	badCreate := write("cut.sql", "CREATE TABLE `p` (\n  `id` int NOT NULL,\n  PRIMARY KEY (`id`)\n;\n")
	goodPages := write("pages.yaml", "pages:\n  - name: one\n    statements:\n      - SELECT name FROM p WHERE id = {random p.id}\n")
	unknownField := write("field.yaml", "pages:\n  - name: one\n    wieght: 3\n    statements:\n      - SELECT 1\n")
	badColumn := write("column.yaml", "pages:\n  - name: one\n    statements:\n      - SELECT 1\n      - SELECT name FROM p WHERE id = {random p.idd}\n")
	idsWord := write("ids.txt", "1\n2\nthree\n")
	idsPast := write("past.txt", "1\n2000\n")
	emptyBuild := filepath.Join(dir, "build")
	os.MkdirAll(emptyBuild, 0o755)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--targets", "oracle", "--workload", "oltp_read_write"}, `unknown target "oracle" (valid: sqlite, mariadb-innodb`},
		{[]string{"run", "--targets", "sqlite", "--workload", "tpcc"}, `unknown workload "tpcc" (valid:`},
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_read_write", "--clients", "1,x"}, `--clients: "x" is not a whole number`},
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_read_write", "--duration", "soon"}, `--duration: "soon" is not a duration`},
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_read_write", "--dataset", "many"}, `--dataset: dataset "many": want a table size`},
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_read_write", "--neighbour", "x3"}, `--neighbour: "x3" is not one of 0, 25%, x1, x2, x4`},
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_read_write", "--param", "point_select=3"}, `unknown parameter "point_select"`},
		{[]string{"run", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"run", "--quick"}, "--quick needs --study (studies with a quick variant: sysbench, redmine, shop, kv)"},
		{[]string{"run", "--study", "default", "--quick"}, "--quick: study default has no quick variant"},
		{[]string{"run", "--targets", "sqlite", "--workload", "redmine", "--dataset", "huge"}, `dataset "huge": want small, large or giant`},
		{[]string{"run", "--targets", "sqlite", "--workload", "redmine", "--param", "schema=redmine4"}, `parameter schema="redmine4": want redmine5 or redmine3.3`},
		{[]string{"run", plan}, "plan.yaml: line 4: cannot unmarshal"},
		{[]string{"run", "--study", "nope"}, `--study: unknown study "nope" (valid: default, kv, redmine, shop, sysbench)`},
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "100", "--duration", "1s", "--out", "/proc/shootout"}, "--out /proc/shootout"},
		{[]string{"run", "--targets", "mysql://root:hunter2@127.0.0.1:1/sbtest", "--workload", "oltp_point_select"}, "cannot connect"},
		{[]string{"run", "--targets", "mysql://root:hunter2@192.168.1.9/sbtest", "--workload", "oltp_point_select"}, "not a loopback address"},
		{[]string{"report", filepath.Join(dir, "nothing")}, "results directory"},
		{[]string{"schema", "--workload", "oltp_read_write"}, "schema needs --workload and --target"},
		{[]string{"compare", dir}, "compare: want two results directories"},
		{[]string{"compare", dir, dir, "--alpha", "2"}, "--alpha: 2 is not a significance level"},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "oltp_read_write", "--cpus", "7"}, `--cpus: "7" is not one of the accepted forms: a cpuset list of this machine's CPUs`},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "oltp_read_write", "--cpus", "1.5c"}, `--cpus: "1.5c" is not one of the accepted forms`},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "oltp_read_write", "--cpus", "999.0"}, `--cpus: "999.0" is a CPU quota outside what this machine has`},
		{[]string{"run", "--targets", "mariadb-myisam", "--dump", notSQL, "--queries", goodPages}, "photo.sql:1: not SQL"},
		{[]string{"run", "--targets", "mariadb-myisam", "--dump", badCreate, "--queries", goodPages}, "cut.sql:1: table p: the column list's parenthesis is never closed"},
		{[]string{"run", "--targets", "mariadb-myisam", "--dump", goodDump, "--queries", unknownField}, `field.yaml:3: unknown field "wieght"`},
		{[]string{"run", "--targets", "mariadb-myisam", "--dump", goodDump, "--queries", badColumn}, "column.yaml:5: page \"one\": {random p.idd}: table p has no column idd"},
		{[]string{"run", "--targets", "mariadb-myisam", "--dump", goodDump}, "--dump and --queries go together"},
		{[]string{"run", "--targets", "postgres,sqlite", "--dump", goodDump, "--queries", goodPages}, "--dump loads into MariaDB targets"},
		{[]string{"run", "--targets", "mariadb-innodb@" + emptyBuild, "--workload", "shop"}, "build has no server program (bin/mariadbd or bin/mysqld)"},
		{[]string{"run", "--targets", "redis", "--workload", "kv", "--path", "prepared"}, "--path: kv on redis: kv path=prepared is SQL's; a redis server reads by get or batch"},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "kv", "--path", "teleport"}, `parameter path="teleport": want prepared, text, handler`},
		{[]string{"run", "--targets", "postgres", "--workload", "kv", "--param", "path=handler"}, "kv path=handler is MariaDB's HANDLER … READ; postgres has none"},
		{[]string{"run", "--targets", "redis", "--workload", "oltp_read_write"}, "oltp_read_write on redis: workload oltp_read_write speaks SQL only, not redis"},
		{[]string{"run", "--targets", "postgres", "--workload", "oltp_point_select", "--param", "client=libmariadb"}, "parameter client=libmariadb speaks to MariaDB and MySQL only, not postgres; use client=go"},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "oltp_read_write", "--param", "client=libmariadb"}, "parameter client=libmariadb runs oltp_point_select only"},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "oltp_point_select", "--param", "client=odbc"}, `parameter client="odbc": want go (the Go driver) or libmariadb`},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "oltp_point_select", "--param", "client=libmariadb", "--param", "reconnect=5"}, "parameter reconnect=5 is the Go client's; client=libmariadb keeps its session"},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "kv", "--allocator", "hoard"}, `--allocator: "hoard" is not an allocator: use glibc, jemalloc, tcmalloc`},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "kv", "--param", "ids=" + idsWord}, "ids.txt:3: \"three\" is not an id"},
		{[]string{"run", "--targets", "mariadb-innodb", "--workload", "kv", "--dataset", "1000", "--param", "ids=" + idsPast}, "past.txt:2: id 2000 is not in the dataset"},
		{[]string{"run", "--targets", "redis://:hunter2@10.1.2.3:6379", "--workload", "kv"}, "not a loopback address"},
		// pgx takes the whole URL: its query's host beats the authority's
		{[]string{"run", "--targets", "postgres://u@127.0.0.1:5432/db?host=10.1.2.3&port=5433&password=hunter2", "--workload", "oltp_point_select"}, `host "10.1.2.3"`},
		{[]string{"run", "--targets", "postgres://u@127.0.0.1:1/db?password=hunter2&sslmode=disable", "--workload", "oltp_point_select"}, "password=***"},
		// named as the user typed it: a flag here, a plan key in a file
		{[]string{"run", "--targets", "sqlite", "--workload", "oltp_read_write", "--neighbour", "25%", "--dry-run"}, "give --iops (the disk's cap, e.g. 100) or --disk (a disk model)"},
	}
	for _, c := range cases {
		_, stderr, code := shootout(t, nil, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, stderr, c.want)
		}
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("%v: password printed: %q", c.args, stderr)
		}
	}
}

func TestMissingServerBinaryIsNamedWithItsFix(t *testing.T) {
	_, stderr, code := shootout(t, []string{"PATH=/nonexistent"}, "run", "--targets", "mariadb-innodb", "--workload", "oltp_read_write")
	if code != 2 || !strings.Contains(stderr, "mariadb-install-db not found; fix: apt-get install -y mariadb-server") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	out, _, code := shootout(t, []string{"PATH=/nonexistent"}, "targets")
	if code != 0 || !strings.Contains(out, "mariadb-rocksdb") || !strings.Contains(out, "unavailable") || !regexp.MustCompile(`(?m)^sqlite\s+available`).MatchString(out) {
		t.Fatalf("targets without server binaries: exit %d\n%s", code, out)
	}
}

// TestDefaultRunWithoutServersRunsSQLite is the promise that with nothing
// but Go, `shootout run` still runs, on SQLite, and says what it skipped.
func TestDefaultRunWithoutServersRunsSQLite(t *testing.T) {
	t.Parallel() // its own shootout processes and results (TestMain says why)
	out := testenv.WorkDir(t)
	// postgres is found by its Debian path, not PATH; hide it as well
	stdout, stderr, code := shootout(t, []string{"PATH=/nonexistent", "SHOOTOUT_POSTGRES_BIN=/nonexistent"},
		"run", "--dataset", "2000", "--duration", "1s", "--clients", "2", "--repeat", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"skipping mariadb-innodb: mariadb-install-db not found", "skipping mariadb-rocksdb", "skipping postgres"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	files, err := result.ReadDir(out)
	if err != nil || len(files) != 1 || files[0].Cell.Target != "sqlite" || !files[0].OK() {
		t.Fatalf("want one ok sqlite cell: %v %+v", err, files)
	}
	if !strings.Contains(stdout, "oltp_read_write, dataset 2000") || !strings.Contains(stdout, "results: "+out) {
		t.Fatalf("no side-by-side table or results path:\n%s", stdout)
	}
	// the run wrote its HTML report beside the cells, and `report --html` writes it again
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(page), "oltp_read_write, dataset 2000") || !strings.Contains(stdout, "report: "+out+"/report.html") {
		t.Fatalf("report.html: %v\n%s", err, stdout)
	}
	again := filepath.Join(out, "again.html")
	if stdout, stderr, code := shootout(t, nil, "report", out, "--html", again); code != 0 || !strings.Contains(stdout, "wrote "+again) {
		t.Fatalf("report --html: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, _, code := shootout(t, nil, "report", out, "--html", filepath.Join(out, "no", "such", "dir.html")); code != 2 {
		t.Errorf("report --html into a missing directory: exit %d, want 2", code)
	}
}

// TestUnwritableReportKeepsTheCells: the HTML report comes after the
// measurements, so failing to write it is said and costs nothing else.
func TestUnwritableReportKeepsTheCells(t *testing.T) {
	t.Parallel() // its own shootout process and results (TestMain says why)
	out := testenv.WorkDir(t)
	// a directory where report.html belongs cannot be replaced by a file
	if err := os.MkdirAll(filepath.Join(out, "report.html", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := shootout(t, nil, "run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "1000", "--duration", "1s", "--out", out)
	if code != 0 || !strings.Contains(stderr, "report.html not written (the results are intact") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if files, err := result.ReadDir(out); err != nil || len(files) != 1 || !files[0].OK() {
		t.Fatalf("cells: %v %v", err, files)
	}
}

func TestDryRunStartsNothing(t *testing.T) {
	out := testenv.WorkDir(t)
	stdout, stderr, code := shootout(t, nil, "run", "--targets", "mariadb-innodb,sqlite", "--workload", "oltp_read_write,oltp_point_select",
		"--clients", "1,2,4", "--dataset", "1M", "--duration", "60s", "--dry-run", "--out", out+"/x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := len(regexp.MustCompile(`(?m)^\d+ .*oltp_`).FindAllString(stdout, -1)); n != 12 {
		t.Fatalf("%d cell lines, want 2 targets x 2 workloads x 3 clients = 12:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, "a private mariadbd per cell, engine innodb") {
		t.Fatalf("dry run does not say what it starts:\n%s", stdout)
	}
	if _, err := os.Stat(out + "/x"); err == nil {
		t.Fatal("dry run created the results directory")
	}
}

// TestExternalServerPasswordNeverStored runs against a MariaDB that the
// test starts itself and reaches only through a URL with a password.
func TestExternalServerPasswordNeverStored(t *testing.T) {
	t.Parallel() // its own server and shootout processes (TestMain says why)
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	work := testenv.WorkDir(t)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	ctx := context.Background()
	db := inst.(target.SQLInstance).DB()
	for _, q := range []string{"CREATE USER 'ext'@'127.0.0.1' IDENTIFIED BY 'S3cretPw'", "GRANT ALL ON *.* TO 'ext'@'127.0.0.1'", "CREATE DATABASE extdb"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var port int
	if err := db.QueryRowContext(ctx, "SELECT @@port").Scan(&port); err != nil {
		t.Fatal(err)
	}
	url := "mysql://ext:S3cretPw@127.0.0.1:" + itoa(port) + "/extdb?engine=innodb"
	bad := "mysql://ext:WrongPw@127.0.0.1:" + itoa(port) + "/extdb"
	_, stderr, code := shootout(t, nil, "run", "--targets", bad, "--workload", "oltp_point_select", "--dataset", "1000", "--duration", "1s")
	if code != 2 || !strings.Contains(stderr, "Access denied") || strings.Contains(stderr, "WrongPw") {
		t.Fatalf("wrong password: exit %d, %q", code, stderr)
	}
	out := filepath.Join(work, "results")
	stdout, stderr, code := shootout(t, nil, "run", "--targets", url, "--workload", "oltp_read_write", "--dataset", "2000", "--clients", "2", "--duration", "1s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// a second run reuses the prepared table instead of loading it again
	_, _, code = shootout(t, nil, "run", "--targets", url, "--workload", "oltp_read_only", "--dataset", "2000", "--clients", "2", "--duration", "1s", "--out", out)
	if code != 0 {
		t.Fatal("second run failed")
	}
	files, err := result.ReadDir(out)
	if err != nil || len(files) != 2 {
		t.Fatalf("%v %d files", err, len(files))
	}
	reused := 0
	for _, f := range files {
		if f.Load.Reused {
			reused++
		}
		if !strings.Contains(f.Cell.Target, "ext:***@127.0.0.1") {
			t.Errorf("target not masked: %q", f.Cell.Target)
		}
	}
	if reused != 1 {
		t.Errorf("%d cells reused the dataset, want 1", reused)
	}
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), "S3cretPw") {
				t.Errorf("%s holds the password", p)
			}
		}
		return nil
	})
	if strings.Contains(stdout+stderr, "S3cretPw") {
		t.Error("password printed")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestExternalPostgresQueryPasswordNeverStored: libpq's URL also takes the
// password as ?password=, which the target's name must mask like user:pass@.
func TestExternalPostgresQueryPasswordNeverStored(t *testing.T) {
	t.Parallel() // its own server and shootout processes (TestMain says why)
	tg, _ := target.Lookup("postgres")
	testenv.RequireTarget(t, tg)
	work := testenv.WorkDir(t)
	ctx := context.Background()
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(ctx)
	db := inst.(target.SQLInstance).DB()
	for _, q := range []string{"CREATE ROLE ext LOGIN PASSWORD 'S3cretPw'", "CREATE DATABASE extdb OWNER ext"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	url := "postgres://ext@" + inst.Endpoint().Address + "/extdb?sslmode=disable&password=S3cretPw"
	out := filepath.Join(work, "results")
	stdout, stderr, code := shootout(t, nil, "run", "--targets", url, "--workload", "oltp_point_select", "--dataset", "1000", "--clients", "1", "--duration", "1s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, err := result.ReadDir(out)
	if err != nil || len(files) != 1 {
		t.Fatalf("%v %d files", err, len(files))
	}
	if !strings.Contains(files[0].Cell.Target, "password=***") {
		t.Errorf("target not masked: %q", files[0].Cell.Target)
	}
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); err == nil && !info.IsDir() && strings.Contains(string(b), "S3cretPw") {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
	if strings.Contains(stdout+stderr, "S3cretPw") {
		t.Error("password printed")
	}
}
