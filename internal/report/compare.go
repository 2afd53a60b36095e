package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"shootout/internal/result"
)

// MannWhitney is the two-sided p-value of the Mann-Whitney U test of a and
// b, by the normal approximation with tie and continuity corrections (as
// scipy's mannwhitneyu(method="asymptotic") computes it). It asks whether
// one sample tends to be larger than the other without assuming either is
// normal: interval throughputs rarely are.
func MannWhitney(a, b []float64) (u, p float64) {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	type obs struct {
		v     float64
		fromA bool
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	var rankA, tieSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		t := float64(j - i)
		tieSum += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankA += rank
			}
		}
		i = j
	}
	u = rankA - n1*(n1+1)/2
	mu := n1 * n2 / 2
	n := n1 + n2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - tieSum/(n*(n-1))))
	if sigma == 0 {
		return u, 1
	}
	z := (math.Abs(u-mu) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	return u, math.Erfc(z / math.Sqrt2)
}

// Compare matches the cells of two runs (by cell id, repeats pooled) and
// shows, per metric, the medians, the change and whether the change stands
// out from the noise of the samples (per-interval figures of every repeat).
func Compare(w io.Writer, a, b []*result.File, alpha float64) {
	key := func(id string) string {
		if i := strings.LastIndex(id, "__r"); i > 0 {
			return id[:i]
		}
		return id
	}
	group := func(fs []*result.File) map[string][]*result.File {
		m := map[string][]*result.File{}
		for _, f := range fs {
			if f.OK() {
				m[key(f.Cell.ID)] = append(m[key(f.Cell.ID)], f)
			}
		}
		return m
	}
	ga, gb := group(a), group(b)
	var keys []string
	for k := range ga {
		if _, ok := gb[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		fmt.Fprintln(w, "no cell ran successfully in both directories (cells match by id: target, workload, dataset, clients, conditions)")
		return
	}
	fmt.Fprintf(w, "Mann-Whitney U on per-interval samples of every repeat; a change is significant when p < %.2f\n", alpha)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tmetric\tA (median)\tB (median)\tchange\tn A/B\tp\tverdict\t")
	metrics := []struct {
		name string
		get  func(result.Interval) float64
	}{
		{"tps", func(i result.Interval) float64 { return i.TPS }},
		{"p95 ms", func(i result.Interval) float64 { return i.P95Ms }},
	}
	for _, k := range keys {
		for _, m := range metrics {
			sa, sb := samples(ga[k], m.get), samples(gb[k], m.get)
			ma, mb := medianOf(sa), medianOf(sb)
			change := "-"
			if ma != 0 {
				change = fmt.Sprintf("%+.1f%%", 100*(mb-ma)/ma)
			}
			verdict, pText := "too few samples", "-"
			if len(sa) > 0 && len(sb) > 0 {
				_, p := MannWhitney(sa, sb)
				pText = fmt.Sprintf("%.3g", p)
				switch {
				case p < alpha:
					verdict = "significant"
				case minP(len(sa), len(sb)) >= alpha:
					// even fully separated samples this small could not
					// reach alpha: "noise" would claim too much
					verdict = "too few samples"
				default:
					verdict = "noise"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%s\t%d/%d\t%s\t%s\t\n", k, m.name, ma, mb, change, len(sa), len(sb), pText, verdict)
		}
	}
	tw.Flush()
	onlyA, onlyB := 0, 0
	for k := range ga {
		if _, ok := gb[k]; !ok {
			onlyA++
		}
	}
	for k := range gb {
		if _, ok := ga[k]; !ok {
			onlyB++
		}
	}
	if onlyA+onlyB > 0 {
		fmt.Fprintf(w, "%d cell(s) only in A, %d only in B (not compared)\n", onlyA, onlyB)
	}
}

// minP is the smallest p-value samples of these sizes can give.
func minP(n1, n2 int) float64 {
	a, b := make([]float64, n1), make([]float64, n2)
	for i := range a {
		a[i] = float64(i)
	}
	for i := range b {
		b[i] = float64(n1 + i)
	}
	_, p := MannWhitney(a, b)
	return p
}

func samples(fs []*result.File, get func(result.Interval) float64) []float64 {
	var out []float64
	for _, f := range fs {
		for _, iv := range f.Intervals {
			out = append(out, get(iv))
		}
	}
	return out
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
