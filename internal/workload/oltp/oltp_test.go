package oltp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

func TestSpecialDistributionMatchesSysbench(t *testing.T) {
	const n = 1000000
	g := newIDGen("special", n, rand.New(rand.NewPCG(1, 2)))
	hot := 0
	const draws = 200000
	for i := 0; i < draws; i++ {
		id := g.next()
		if id < 1 || id > n {
			t.Fatalf("id %d outside [1, %d]", id, n)
		}
		// the special values lie in the middle 1% of the range
		if id >= n/2-n/200 && id <= n/2+n/200+1 {
			hot++
		}
	}
	// 75% special plus the part of the bell curve that falls there
	if frac := float64(hot) / draws; frac < 0.75 || frac > 0.85 {
		t.Fatalf("%.3f of draws in the middle 1%%, want about 0.75-0.8", frac)
	}
}

func TestUniformCoversRange(t *testing.T) {
	g := newIDGen("uniform", 10, rand.New(rand.NewPCG(1, 2)))
	seen := map[int64]bool{}
	for i := 0; i < 1000; i++ {
		seen[g.next()] = true
	}
	if len(seen) != 10 || seen[0] || seen[11] {
		t.Fatalf("uniform over 1..10 saw %v", seen)
	}
}

func TestRowStringsHaveSysbenchShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := string(appendDigits(nil, rng, cTemplate))
	pad := string(appendDigits(nil, rng, padTemplate))
	if len(c) != 119 || len(pad) != 59 || strings.Count(c, "-") != 9 || strings.Count(pad, "-") != 4 {
		t.Fatalf("c %q pad %q", c, pad)
	}
	for _, r := range strings.ReplaceAll(c+pad, "-", "") {
		if r < '0' || r > '9' {
			t.Fatalf("non-digit %q", r)
		}
	}
}

func TestSchemaPerDialect(t *testing.T) {
	w, err := parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	wl := &Workload{test: tests[0], opt: w}
	my := strings.Join(wl.Schema(dialect.Dialect{Flavor: dialect.MySQL, Engine: "rocksdb"}, datasetOf(10)), ";")
	if !strings.Contains(my, "id INTEGER NOT NULL AUTO_INCREMENT") || !strings.Contains(my, "ENGINE=rocksdb") || !strings.Contains(my, "c CHAR(120) DEFAULT '' NOT NULL") {
		t.Fatalf("mysql DDL: %s", my)
	}
	pg := strings.Join(wl.Schema(dialect.Dialect{Flavor: dialect.Postgres}, datasetOf(10)), ";")
	if !strings.Contains(pg, "id SERIAL") || strings.Contains(pg, "ENGINE") {
		t.Fatalf("postgres DDL: %s", pg)
	}
	post := strings.Join(wl.PostLoad(dialect.Dialect{Flavor: dialect.Postgres}, datasetOf(10)), ";")
	if !strings.Contains(post, "CREATE INDEX k_1 ON sbtest1(k)") || !strings.Contains(post, "setval('sbtest1_id_seq'") {
		t.Fatalf("postgres post-load: %s", post)
	}
}

func TestParamsAreValidated(t *testing.T) {
	if _, err := parse(map[string]string{"point_selects": "-1"}); err == nil {
		t.Error("negative point_selects accepted")
	}
	if _, err := parse(map[string]string{"skip_trx": "maybe"}); err == nil {
		t.Error("bad bool accepted")
	}
	o, err := parse(map[string]string{"range_size": "10", "rand_type": "uniform"})
	if err != nil || o.RangeSize != 10 || o.RandType != "uniform" {
		t.Errorf("%+v %v", o, err)
	}
}

func datasetOf(rows int64) workload.Dataset { return workload.Dataset{Rows: rows} }

// parse is the options oltp_read_write makes of params, through the
// declaration's checks.
func parse(params map[string]string) (Options, error) {
	w, err := workload.New("oltp_read_write", params)
	if err != nil {
		return Options{}, err
	}
	return w.(*Workload).opt, nil
}
