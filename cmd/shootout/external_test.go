package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
	"shootout/internal/workload"
)

// TestExternalDatabaseIsNeverHarmed points shootout at a database that
// holds someone's own issues table: run and prepare refuse with one line
// naming the table and the database, and every row is still there. A
// database shootout prepared earlier is then reused, not reloaded.
func TestExternalDatabaseIsNeverHarmed(t *testing.T) {
	t.Parallel() // its own server and shootout processes (TestMain says why)
	tg, _ := target.Lookup("mariadb-innodb")
	testenv.RequireTarget(t, tg)
	work := testenv.WorkDir(t)
	ctx := context.Background()
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())
	db := inst.(target.SQLInstance).DB()
	exec := func(db *sql.DB, qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec(db, "CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY 'AppPw1'", "GRANT ALL ON *.* TO 'app'@'127.0.0.1'",
		"CREATE DATABASE tracker", "CREATE DATABASE fresh",
		"CREATE TABLE tracker.issues (id INT PRIMARY KEY, subject VARCHAR(100))",
		"INSERT INTO tracker.issues VALUES (1, 'the real one'), (2, 'keep me'), (3, 'and me')")
	var port int
	if err := db.QueryRowContext(ctx, "SELECT @@port").Scan(&port); err != nil {
		t.Fatal(err)
	}
	url := func(dbName string) string { return "mysql://app:AppPw1@127.0.0.1:" + itoa(port) + "/" + dbName }

	out := filepath.Join(work, "refused")
	stdout, stderr, code := shootout(t, nil, "run", "--targets", url("tracker"), "--workload", "redmine", "--dataset", "small",
		"--duration", "1s", "--out", out)
	want := "external database tracker already has a table issues that shootout did not create"
	if code == 0 || !strings.Contains(stdout+stderr, want) {
		t.Fatalf("run on someone's issues table: exit %d, want the refusal %q\n%s\n%s", code, want, stdout, stderr)
	}
	files, err := result.ReadDir(out)
	if err != nil || len(files) != 1 || !strings.Contains(files[0].Status, want) || strings.Contains(files[0].Status, "\n") {
		t.Fatalf("the failed cell must record the one-line refusal: %v %+v", err, files)
	}
	_, stderr, code = shootout(t, nil, "prepare", "--target", url("tracker"), "--workload", "redmine", "--dataset", "small")
	if code == 0 || !strings.Contains(stderr, want) {
		t.Fatalf("prepare on someone's issues table: exit %d\n%s", code, stderr)
	}
	var n int
	var tables int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM tracker.issues WHERE subject IN ('the real one', 'keep me', 'and me')").Scan(&n); err != nil || n != 3 {
		t.Fatalf("the user's rows: %d, %v; want all 3 untouched", n, err)
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'tracker'").Scan(&tables); err != nil || tables != 1 {
		t.Fatalf("shootout created tables in the refused database: %d tables, %v", tables, err)
	}

	// an empty database: prepared once, then reused by a run
	if stdout, stderr, code := shootout(t, nil, "prepare", "--target", url("fresh"), "--workload", "oltp_read_only", "--dataset", "2000"); code != 0 {
		t.Fatalf("prepare into an empty database: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var marked int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM fresh."+workload.MarkerTable+" WHERE fingerprint LIKE '2000/seed1/%'").Scan(&marked); err != nil || marked != 1 {
		t.Fatalf("the marker must name sbtest1 as shootout's: %d rows, %v", marked, err)
	}
	// prepared again: one line says so, not the load's and prepare's both
	stdout, stderr, code = shootout(t, nil, "prepare", "--target", url("fresh"), "--workload", "oltp_read_only", "--dataset", "2000")
	if said := strings.TrimSpace(stdout + stderr); code != 0 || strings.Count(said, "\n") != 0 || !strings.Contains(said, "nothing to do") {
		t.Fatalf("prepare of a database that holds the dataset: exit %d, want one line saying there is nothing to do:\n%s", code, said)
	}
	out = filepath.Join(work, "reused")
	stdout, stderr, code = shootout(t, nil, "run", "--targets", url("fresh"), "--workload", "oltp_read_only", "--dataset", "2000",
		"--duration", "1s", "--out", out)
	if code != 0 || !strings.Contains(stdout+stderr, "already loaded") {
		t.Fatalf("a database shootout prepared must be reused: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestTablesOfNamesEveryTableTheDDLTouches(t *testing.T) {
	got := workload.TablesOf([]string{"DROP TABLE IF EXISTS sbtest1", "CREATE TABLE sbtest1(id INT)", "CREATE TABLE IF NOT EXISTS `Issues` (id INT)",
		"CREATE INDEX k_1 ON sbtest1(k)", `ALTER TABLE "journals" ADD c INT`, "DROP TABLE IF EXISTS `shop-items`"})
	if strings.Join(got, ",") != "issues,journals,sbtest1,shop-items" {
		t.Fatalf("TablesOf = %v", got)
	}
}
