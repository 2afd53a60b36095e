package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"shootout/internal/result"
)

func TestMannWhitneyKnownValues(t *testing.T) {
	cases := []struct {
		a, b  []float64
		u, p  float64
		label string
	}{
		// fully separated samples of five: U=0, z=(12.5-0.5)/4.787, p=0.01219
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 0.012186, "separated"},
		// identical samples: no evidence of a difference
		{[]float64{3, 3, 3}, []float64{3, 3, 3}, 4.5, 1, "identical"},
		// interleaved: U=12 of 25, p near 1
		{[]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 10, 0.6761, "interleaved"},
	}
	for _, c := range cases {
		u, p := MannWhitney(c.a, c.b)
		if u != c.u || math.Abs(p-c.p) > 0.0005 {
			t.Errorf("%s: U=%v p=%.5f, want U=%v p=%.5f", c.label, u, p, c.u, c.p)
		}
	}
}

func cellWithIntervals(id string, tps ...float64) *result.File {
	f := &result.File{Cell: result.Cell{ID: id}, Status: "ok"}
	for _, v := range tps {
		f.Intervals = append(f.Intervals, result.Interval{TPS: v, P95Ms: 1000 / v})
	}
	return f
}

func TestCompareCallsNoiseNoise(t *testing.T) {
	a := []*result.File{cellWithIntervals("x__r1", 100, 102, 98, 101, 99), cellWithIntervals("x__r2", 100, 103, 97, 100, 101)}
	same := []*result.File{cellWithIntervals("x__r1", 101, 99, 100, 98, 102)}
	faster := []*result.File{cellWithIntervals("x__r1", 130, 131, 129, 132, 128)}
	var b bytes.Buffer
	Compare(&b, a, same, 0.05)
	if v := verdicts(b.String()); len(v) != 2 || v[0] != "noise" || v[1] != "noise" {
		t.Fatalf("same distribution called a change:\n%s", b.String())
	}
	b.Reset()
	Compare(&b, a, faster, 0.05)
	if v := verdicts(b.String()); len(v) != 2 || v[0] != "significant" || !strings.Contains(b.String(), "+30.0%") {
		t.Fatalf("a 30%% change not found:\n%s", b.String())
	}
}

// verdicts is the last column of each table row.
func verdicts(out string) []string {
	var v []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[len(f)-1] == "noise" || f[len(f)-1] == "significant" || f[len(f)-1] == "samples") && f[0] != "Mann-Whitney" {
			v = append(v, f[len(f)-1])
		}
	}
	return v
}

func TestCompareSaysWhenSamplesAreTooFew(t *testing.T) {
	a := []*result.File{cellWithIntervals("x__r1", 100, 101, 99)}
	b := []*result.File{cellWithIntervals("x__r1", 150, 151, 149)}
	var out bytes.Buffer
	Compare(&out, a, b, 0.05)
	if v := verdicts(out.String()); len(v) != 2 || v[0] != "samples" {
		t.Fatalf("3 against 3 samples cannot reach p < 0.05 and must say so:\n%s", out.String())
	}
}
