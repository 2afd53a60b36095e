package stats

import (
	"math"
	"sort"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Exact two-sided p-values from the null distribution of U tabulated by
// Mann and Whitney (1947), Table I (m=n=3, 4, 5; m=3, n=5): complete
// separation gives 2/C(m+n, m); for m=n=5, P(U<=2) = 0.016, P(U<=4) = 0.048.
func TestMannWhitneyMatchesPublishedExactTable(t *testing.T) {
	cases := []struct {
		name string
		a, b []float64
		p    float64
	}{
		{"3v3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		{"4v4 separated", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		{"5v5 separated", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		{"3v5 separated", []float64{1, 2, 3}, []float64{4, 5, 6, 7, 8}, 2.0 / 56},
		{"5v5 U=2", []float64{1, 2, 3, 4, 7}, []float64{5, 6, 8, 9, 10}, 2 * 4.0 / 252},
		{"5v5 U=4", []float64{1, 2, 3, 6, 7}, []float64{4, 5, 8, 9, 10}, 2 * 12.0 / 252},
	}
	for _, c := range cases {
		got := Compare(c.a, c.b, 0.05)
		if !near(got.P, c.p, 1e-9) {
			t.Errorf("%s: p = %.6f, the published table gives %.6f", c.name, got.P, c.p)
		}
		if got.Significant != (c.p < 0.05) {
			t.Errorf("%s: significant = %v at p = %.4f", c.name, got.Significant, c.p)
		}
	}
}

func TestTooFewRepeatsSaysHowManyAreNeeded(t *testing.T) {
	c := Compare([]float64{100, 101, 102}, []float64{200, 201, 202}, 0.05)
	if c.Significant || c.NeedN != 4 {
		t.Fatalf("3 vs 3: significant=%v needN=%d, want false and 4 (min p 0.1, 4 vs 4 gives 0.029)", c.Significant, c.NeedN)
	}
	if !strings.Contains(c.String(), "needs 4+") {
		t.Errorf("String() = %q, want the repeats needed", c.String())
	}
	if c := Compare([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0.05); c.NeedN != 0 || !c.Significant {
		t.Errorf("4 vs 4 separated: needN=%d significant=%v", c.NeedN, c.Significant)
	}
}

func TestEqualSamplesAreNoChange(t *testing.T) {
	c := Compare([]float64{5, 5, 5, 5, 5}, []float64{5, 5, 5, 5, 5}, 0.05)
	if c.Significant || c.P != 1 || c.Delta != 0 || !strings.HasPrefix(c.String(), "~") {
		t.Fatalf("identical samples: %+v %q", c, c)
	}
}

func TestMedianOfEvenCountIsMeanOfMiddleTwo(t *testing.T) {
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("Median(1..4) = %v, want 2.5", m)
	}
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("Median(1..3) = %v, want 2", m)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of nothing must be NaN, not a figure")
	}
}

// The reference: the distribution-free interval of the median is x(k) ..
// x(n+1-k) with the largest k for which P(Binomial(n, 1/2) <= k-1) <= 2.5%,
// computed here from binomial coefficients, independently of the library.
func TestMedianIntervalMatchesBinomialOrderStatistics(t *testing.T) {
	for _, n := range []int{6, 8, 10, 15, 20} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64((i*7)%n) + 100 // a permutation of 100..100+n-1
		}
		k := 0
		cum := 0.0
		for j := 0; j < n; j++ {
			cum += binom(n, j) / math.Pow(2, float64(n))
			if cum > 0.025 {
				break
			}
			k = j + 1
		}
		s := Summarize(xs)
		sorted := append([]float64(nil), xs...)
		sort.Float64s(sorted)
		wantLo, wantHi := sorted[k-1], sorted[n-k]
		// The library may pick an equally valid, tighter interval when the
		// choice is ambiguous; it must never be wider than the reference
		// nor claim less than 95%.
		if s.Lo < wantLo || s.Hi > wantHi || s.Confidence < 0.95 {
			t.Errorf("n=%d: CI [%v, %v] at %.3f, reference [%v, %v]", n, s.Lo, s.Hi, s.Confidence, wantLo, wantHi)
		}
		if s.Lo > s.Median || s.Hi < s.Median {
			t.Errorf("n=%d: CI [%v, %v] does not hold the median %v", n, s.Lo, s.Hi, s.Median)
		}
	}
	if s := Summarize([]float64{1, 2, 3, 4, 5}); s.Bounded() {
		t.Errorf("5 values cannot bound the median at 95%% (min confidence 1-2/32 = 0.94), got [%v, %v]", s.Lo, s.Hi)
	}
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r *= float64(n-k+i) / float64(i)
	}
	return r
}

// Moses' interval for m=n=5 at 95%: P(U<=2) = 4/252 <= 0.025 < P(U<=3), so
// the bounds are the 3rd smallest and 3rd largest of the 25 ratios b/a.
func TestShiftIntervalIsMosesOrderStatistics(t *testing.T) {
	a := []float64{100, 102, 98, 101, 99}
	b := []float64{110, 111, 109, 112, 108}
	c := Compare(a, b, 0.05)
	var r []float64
	for _, x := range a {
		for _, y := range b {
			r = append(r, y/x-1)
		}
	}
	sort.Float64s(r)
	if !near(c.DeltaLo, r[2], 1e-12) || !near(c.DeltaHi, r[22], 1e-12) {
		t.Errorf("interval [%v, %v], want [%v, %v]", c.DeltaLo, c.DeltaHi, r[2], r[22])
	}
	if !c.Significant || !near(c.Delta, 110.0/100-1, 1e-12) {
		t.Errorf("delta %v significant %v", c.Delta, c.Significant)
	}
	if c.DeltaLo > c.Delta || c.DeltaHi < c.Delta {
		t.Errorf("interval [%v, %v] misses the change %v", c.DeltaLo, c.DeltaHi, c.Delta)
	}
}

func TestRSD(t *testing.T) {
	if r := RSD([]float64{9, 10, 11}); !near(r, 0.1, 1e-12) {
		t.Errorf("RSD(9,10,11) = %v, want 0.1 (sd 1 / mean 10)", r)
	}
	if !math.IsNaN(RSD([]float64{3})) {
		t.Error("one value has no spread")
	}
}

// The least count is the test's own: at it two samples that do not
// overlap are significant, one fewer never is.
func TestLeastRepeatsIsWhereTheTestCanFirstDecide(t *testing.T) {
	separated := func(n int) ([]float64, []float64) {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = 100+float64(i), 1000+float64(i)
		}
		return a, b
	}
	for alpha, want := range map[float64]int{0.05: 4, 0.01: 5} {
		n := LeastRepeats(alpha)
		if n != want {
			t.Errorf("LeastRepeats(%v) = %d, want %d", alpha, n, want)
		}
		if a, b := separated(n); !Compare(a, b, alpha).Significant {
			t.Errorf("alpha %v: %d vs %d apart is not significant", alpha, n, n)
		}
		if a, b := separated(n - 1); Compare(a, b, alpha).Significant {
			t.Errorf("alpha %v: %d vs %d is significant: the least count is lower", alpha, n-1, n-1)
		}
	}
}
