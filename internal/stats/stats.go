// Package stats decides what a set of repeats says: a median with its
// confidence interval, and whether two sets differ by more than their
// noise. The sample is always one figure per independent repeat of a cell,
// never the intervals inside one run: those are autocorrelated and carry
// none of the run-to-run variance, so any two runs would look different.
//
// The tests are distribution-free (benchmath's "assume nothing", as
// benchstat uses): database figures are skewed by stalls and checkpoints,
// so a normal model would understate the noise.
package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval shootout prints.
const Confidence = 0.95

// Summary is a sample's median and the median's confidence interval.
// Lo and Hi are infinite when the sample is too small to bound the median
// at the Confidence level (fewer than 6 values for 95%).
type Summary struct {
	N          int
	Median     float64
	Lo, Hi     float64
	Confidence float64
}

// Bounded reports whether the interval is finite.
func (s Summary) Bounded() bool { return !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) }

// Median is the middle value; for an even count, the mean of the two
// middle values. It is NaN for an empty sample.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Summarize gives the median and its distribution-free confidence interval
// (order statistics chosen from the binomial distribution).
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{Median: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), Confidence: Confidence}
	}
	th := benchmath.DefaultThresholds
	sm := benchmath.AssumeNothing.Summary(benchmath.NewSample(xs, &th), Confidence)
	return Summary{N: len(xs), Median: Median(xs), Lo: sm.Lo, Hi: sm.Hi, Confidence: sm.Confidence}
}

// RSD is the relative standard deviation (sample standard deviation over
// the mean), the figure --repeat auto drives below its threshold. It is
// NaN for fewer than two values or a zero mean.
func RSD(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if mean == 0 {
		return math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / math.Abs(mean)
}

// Comparison is what two samples of repeats say about a change from A to B.
type Comparison struct {
	A, B Summary
	// Delta is B's median over A's, minus one. DeltaLo and DeltaHi bound
	// the relative shift with the Hodges-Lehmann estimator's
	// distribution-free interval (Moses' method: order statistics of all
	// pairwise ratios b/a, cut where the exact U distribution leaves
	// alpha/2 on each side); infinite when the samples are too small.
	Delta, DeltaLo, DeltaHi float64
	// P is the two-sided Mann-Whitney U test's p-value: exact up to 50
	// values a side (25 with ties), by the normal approximation beyond.
	P, Alpha    float64
	Significant bool
	// NeedN, when not 0, is the repeats per side that could reach p <
	// Alpha at all: with fewer, even two samples that do not overlap
	// cannot (3 against 3 gives p ≥ 0.1).
	NeedN int
}

// Compare tests whether b differs from a beyond the noise of both.
func Compare(a, b []float64, alpha float64) Comparison {
	c := Comparison{A: Summarize(a), B: Summarize(b), Alpha: alpha, P: 1,
		DeltaLo: math.Inf(-1), DeltaHi: math.Inf(1)}
	if len(a) == 0 || len(b) == 0 {
		c.Delta = math.NaN()
		return c
	}
	c.Delta = relative(c.A.Median, c.B.Median)
	res, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
	switch {
	case err == nil:
		c.P = res.P
	case errors.Is(err, stats.ErrSamplesEqual):
		c.P = 1
	}
	c.Significant = c.P < alpha
	if n := needN(alpha); minP(len(a), len(b)) >= alpha {
		c.NeedN = n
	}
	c.DeltaLo, c.DeltaHi = shiftInterval(a, b, alpha)
	return c
}

func relative(a, b float64) float64 {
	if a == 0 {
		if b == 0 {
			return 0
		}
		return math.NaN()
	}
	return b/a - 1
}

// minP is the smallest two-sided p an exact U test of samples of sizes n1
// and n2 can give: both orderings of complete separation, 2/C(n1+n2, n1).
func minP(n1, n2 int) float64 {
	p := 2.0
	for i := 1; i <= n1; i++ {
		p *= float64(i) / float64(n2+i)
	}
	return math.Min(p, 1)
}

func needN(alpha float64) int { return LeastRepeats(alpha) }

// LeastRepeats is the fewest repeats per side with which the exact
// Mann-Whitney U test Compare uses can reach p < alpha at all: the p it
// gives two samples of n that do not overlap, the smallest it can give,
// falls with n (3 against 3: 0.1; 4: 0.029; 5: 0.0079). Fewer repeats
// can never tell two cells apart, however far apart they are.
func LeastRepeats(alpha float64) int {
	const most = 50 // the test is exact up to here
	for n := 2; n < most; n++ {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = float64(i), float64(n+i)
		}
		res, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
		if err == nil && res.P < alpha {
			return n
		}
	}
	return most
}

// shiftInterval is the confidence interval of the relative shift from a
// to b. With positive figures the shift is a ratio (pairwise b/a), so the
// interval reads as a percentage change; otherwise it is a difference
// over a's median.
func shiftInterval(a, b []float64, alpha float64) (lo, hi float64) {
	n1, n2 := len(a), len(b)
	k := mosesK(n1, n2, alpha)
	if k < 1 {
		return math.Inf(-1), math.Inf(1)
	}
	positive := true
	for _, x := range append(append([]float64(nil), a...), b...) {
		if x <= 0 {
			positive = false
		}
	}
	d := make([]float64, 0, n1*n2)
	for _, x := range a {
		for _, y := range b {
			if positive {
				d = append(d, y/x)
			} else {
				d = append(d, y-x)
			}
		}
	}
	sort.Float64s(d)
	lo, hi = d[k-1], d[len(d)-k]
	if positive {
		return lo - 1, hi - 1
	}
	m := Median(a)
	if m == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	return lo / math.Abs(m), hi / math.Abs(m)
}

// mosesK is the rank, among the n1·n2 sorted pairwise differences, of the
// interval's lower bound: the largest k with P(U ≤ k−1) ≤ alpha/2 under the
// exact null distribution of U. 0 means no finite interval exists.
func mosesK(n1, n2 int, alpha float64) int {
	dist := stats.UDist{N1: n1, N2: n2}
	k := 0
	for c := 1; c <= n1*n2/2; c++ {
		if dist.CDF(float64(c-1)) <= alpha/2 {
			k = c
		} else {
			break
		}
	}
	return k
}

// String is the change as compare prints it: the change with its interval
// and p, or "~" with p when the change is within the noise, and the
// repeats needed when the samples are too small to ever tell.
func (c Comparison) String() string {
	switch {
	case math.IsNaN(c.Delta):
		return "n/a"
	case c.NeedN > 0:
		return fmt.Sprintf("~ (%d/%d repeats: p<%.2g needs %d+ a side)", c.A.N, c.B.N, c.Alpha, c.NeedN)
	case !c.Significant:
		return fmt.Sprintf("~ (p=%.2f)", c.P)
	}
	s := fmt.Sprintf("%+.1f%%", 100*c.Delta)
	if !math.IsInf(c.DeltaLo, 0) && !math.IsInf(c.DeltaHi, 0) {
		s += fmt.Sprintf(" [%+.1f%%, %+.1f%%]", 100*c.DeltaLo, 100*c.DeltaHi)
	}
	return s + fmt.Sprintf(" p=%.3f", c.P)
}
