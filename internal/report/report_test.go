package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"shootout/internal/hist"
	"shootout/internal/result"
)

func cell(target string, clients int, neighbour string, mean float64, status string) *result.File {
	return &result.File{
		Cell:       result.Cell{Target: target, Workload: "oltp_read_write", Dataset: "1000", Clients: clients, Conditions: result.Conditions{Neighbour: neighbour}, Repeat: 1},
		Status:     status,
		Ops:        map[string]result.Op{"event": {Snapshot: hist.Snapshot{Count: 100, MeanMs: mean}}},
		Throughput: result.Throughput{TPS: 1000 / mean, Seconds: 10},
		Server:     result.Server{Measured: true},
	}
}

func TestSeedTableRowsRatiosAndFailures(t *testing.T) {
	files := []*result.File{
		cell("mariadb-rocksdb", 2, "0", 2, "ok"),
		cell("mariadb-innodb", 2, "0", 5, "ok"),
		cell("mariadb-rocksdb", 1, "0", 1, "ok"),
		cell("mariadb-innodb", 1, "0", 3, "ok"),
		cell("postgres", 1, "0", 0, "failed: start postgres: no such binary"),
	}
	var b bytes.Buffer
	Terminal(&b, files, "mariadb-rocksdb")
	out := b.String()
	lines := strings.Split(out, "\n")
	var rows []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "1/0" || f[0] == "2/0") {
			rows = append(rows, l)
		}
	}
	if len(rows) < 2 || !strings.HasPrefix(strings.TrimSpace(rows[0]), "1/0") {
		t.Fatalf("rows not ordered by clients:\n%s", out)
	}
	if f := strings.Fields(rows[0]); f[1] != "1.000" || f[2] != "3.000" || f[3] != "3.00" {
		t.Fatalf("1/0 row %q: want baseline 1.000, innodb 3.000, ratio 3.00", rows[0])
	}
	if f := strings.Fields(rows[1]); f[3] != "2.50" {
		t.Fatalf("2/0 row %q: want ratio 2.50", rows[1])
	}
	if !strings.Contains(out, "failed: start postgres") || !strings.Contains(out, "1 failed cell(s)") {
		t.Fatalf("failed cell not shown:\n%s", out)
	}
}

func TestLabelOrder(t *testing.T) {
	want := []string{"1/0", "1/25%", "1/x1", "1/x4", "2/0", "4/x2"}
	for i := 0; i+1 < len(want); i++ {
		if !labelLess(want[i], want[i+1]) || labelLess(want[i+1], want[i]) {
			t.Errorf("%s should sort before %s", want[i], want[i+1])
		}
	}
}

func TestCSVRowsAndRatios(t *testing.T) {
	files := []*result.File{
		cell("mariadb-rocksdb", 1, "0", 2, "ok"),
		cell("mariadb-innodb", 1, "0", 5, "ok"),
		cell("postgres", 1, "0", 0, "failed: start postgres: x, \"quoted\""),
	}
	var b bytes.Buffer
	if err := CSV(&b, files, "mariadb-rocksdb"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("not valid CSV: %v\n%s", err, b.String())
	}
	if len(rows) != 4 || len(rows[0]) != len(CSVHeader) {
		t.Fatalf("%d rows of %d columns", len(rows), len(rows[0]))
	}
	col := func(name string) int {
		for i, h := range CSVHeader {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	if rows[2][col("target")] != "mariadb-innodb" || rows[2][col("times_baseline")] != "2.5000" {
		t.Fatalf("innodb row %v", rows[2])
	}
	if rows[3][col("times_baseline")] != "" || rows[3][col("status")] != "failed: start postgres: x, \"quoted\"" {
		t.Fatalf("failed row %v", rows[3])
	}
}
