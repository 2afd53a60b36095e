package report

import (
	"fmt"
	"sort"
	"strings"

	"shootout/internal/result"
	"shootout/internal/stats"
)

// verdict is the report's summary in plain sentences, computed from the
// cells: per group, who was fastest at the lightest and at the heaviest
// load, who wrote fewer bytes per transaction and who took less space;
// then how many cells failed. A difference in time is called one only when
// the repeats put it beyond their noise; with too few repeats, differences
// under 5% are called even and larger ones are flagged as untested.
func verdict(gs []*group, baseline string, files []*result.File) []string {
	var out []string
	manyOps := false
	for _, g := range gs {
		if len(opsOf(g.files)) > 1 {
			manyOps = true
		}
	}
	for _, g := range gs {
		prefix := ""
		if len(gs) > 1 {
			prefix = "On " + g.title + ": "
		}
		out = append(out, groupVerdict(g, prefix, manyOps))
	}
	return append(out, failedVerdict(files))
}

// groupVerdict is one group's sentence: who was fastest, wrote fewer
// bytes and took less space.
func groupVerdict(g *group, prefix string, manyOps bool) string {
	if len(g.targets) < 2 {
		return sentence(prefix, fmt.Sprintf("only %s ran, so there is nothing to compare", g.targets[0]))
	}
	timed, parts := timedTargets(g)
	for _, op := range opsOf(g.files) {
		var clauses []string
		for i, l := range g.labels {
			if i != 0 && i != len(g.labels)-1 {
				continue
			}
			if c := fastestClause(timed, op, l); c != "" {
				clauses = append(clauses, c)
			}
		}
		if len(clauses) == 0 {
			continue
		}
		s := strings.Join(clauses, "; ")
		if manyOps {
			s = fmt.Sprintf("for %s, %s", op, s)
		}
		parts = append(parts, s)
	}
	parts = append(parts, costClauses(g)...)
	if len(parts) == 0 {
		return sentence(prefix, "no two targets have figures to compare")
	}
	for i := range parts {
		if i > 0 || prefix == "" {
			parts[i] = capWord(parts[i])
		}
	}
	return sentence(prefix, strings.Join(parts, ". "))
}

// timedTargets is g without the targets that ran without the limits the
// others had (embedded SQLite under --memory/--iops), which are not timed
// under the same conditions: they are left out of who was fastest, and
// the clause returned says so.
func timedTargets(g *group) (*group, []string) {
	var unlimited []string
	for _, t := range g.targets {
		if unlimitedTargets(g.files)[t] != "" {
			unlimited = append(unlimited, t)
		}
	}
	if len(unlimited) == 0 || len(g.targets)-len(unlimited) < 2 {
		return g, nil
	}
	limited := *g
	for _, t := range unlimited {
		limited.targets = without(limited.targets, t)
	}
	return &limited, []string{fmt.Sprintf("%s ran without the limits the others had, so the times below leave it out",
		strings.Join(unlimited, " and "))}
}

// costClauses say who wrote fewer bytes and who took less space. Each
// row is its own sample: the lightest and the heaviest load, as for the
// times, never the median of all rows together.
func costClauses(g *group) []string {
	var wrote, took []string
	for _, l := range endLabels(g.labels) {
		at := ""
		if len(g.labels) > 1 {
			at = "at " + labelText(l) + ", "
		}
		if s := byTarget(g, l, "wrote", "bytes per transaction", "fewer", func(f *result.File) (float64, bool) {
			return f.Server.WriteBytesPerOp, f.Server.Measured && f.Server.WriteBytesPerOp > 0
		}, kbText); s != "" {
			wrote = append(wrote, at+s+waClause(g, l))
		}
		// space is the dataset's: said once, at the lightest load
		if s := spaceClause(g, l); s != "" && len(took) == 0 {
			took = append(took, at+s)
		}
	}
	var parts []string
	for _, clauses := range [][]string{wrote, took} {
		if len(clauses) > 0 {
			parts = append(parts, strings.Join(clauses, "; "))
		}
	}
	return parts
}

// failedVerdict is the closing sentence: how many cells failed, and whose.
func failedVerdict(files []*result.File) string {
	nfail := 0
	var who []string
	for _, f := range files {
		if !f.OK() {
			nfail++
			if !contains(who, f.Cell.Target) {
				who = append(who, f.Cell.Target)
			}
		}
	}
	if nfail == 0 {
		return fmt.Sprintf("All %d cells succeeded.", len(files))
	}
	return fmt.Sprintf("%d of %d cells failed (%s); they are marked in every chart and listed at the end.", nfail, len(files), strings.Join(who, ", "))
}

// sentence joins a group's prefix and clauses, capitalising the report's
// own words (a target's name keeps its case) and ending with a full stop.
func sentence(prefix, s string) string {
	if prefix == "" {
		s = capWord(s)
	} else {
		s = prefix + s
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func capWord(s string) string {
	for _, w := range []string{"at ", "for ", "only ", "no "} {
		if strings.HasPrefix(s, w) {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return s
}

// fastestClause compares the targets' mean time of op at one label. Only
// servers are ranked: an embedded target (SQLite, inside the shootout
// process) has no network hop and no CPU of its own, so it is reported
// beside them, never named "fastest" among them. A difference is called
// one only when the repeats say it is beyond the noise.
func fastestClause(g *group, op, label string) string {
	type tm struct {
		t string
		v float64
	}
	var xs, inProcess []tm
	for _, t := range g.targets {
		if m, ok, _ := meanMs(g.files, t, label, op); ok && m > 0 {
			if embeddedTarget(g.files, t) {
				inProcess = append(inProcess, tm{t, m})
			} else {
				xs = append(xs, tm{t, m})
			}
		}
	}
	at := "at " + labelText(label) + ","
	var s string
	if len(xs) >= 2 {
		sort.SliceStable(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
		fast, next, slow := xs[0], xs[1], xs[len(xs)-1]
		r := next.v / fast.v
		switch mark := noiseMark(opRepeats(g.files, fast.t, label, op), opRepeats(g.files, next.t, label, op)); {
		case mark == withinNoise:
			s = fmt.Sprintf("%s %s and %s were within the noise of their repeats (%s apart)", at, fast.t, next.t, times(r))
		case mark == tooFew && r < 1.05:
			s = fmt.Sprintf("%s %s and %s were even (within 5%%; too few repeats to measure the noise)", at, fast.t, next.t)
		case len(xs) > 2:
			s = fmt.Sprintf("%s %s was fastest, %s faster than %s", at, fast.t, times(r), next.t)
		default:
			s = fmt.Sprintf("%s %s was %s faster than %s", at, fast.t, times(r), next.t)
		}
		if mark := noiseMark(opRepeats(g.files, fast.t, label, op), opRepeats(g.files, next.t, label, op)); mark == tooFew && r >= 1.05 {
			s += fmt.Sprintf(" (too few repeats to tell this from noise: run with --repeat %d)", stats.LeastRepeats(reportAlpha))
		}
		if len(xs) > 2 && slow != next && slow.v/fast.v >= 1.05 {
			s += "; " + slowestClause(g, op, label, fast.t, slow.t, slow.v/fast.v)
		}
	}
	for _, e := range inProcess {
		clause := fmt.Sprintf("embedded %s (inside the shootout process: no network hop, CPU shared with the client) took %.3f ms", e.t, e.v)
		if len(xs) > 0 {
			sort.SliceStable(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
			clause += fmt.Sprintf(", %s the time of the fastest server", times(e.v/xs[0].v))
		}
		if s == "" {
			s = at + " " + clause
		} else {
			s += "; " + clause
		}
	}
	if len(xs) < 2 && len(inProcess) == 0 {
		return ""
	}
	if len(xs)+len(inProcess) < 2 {
		return ""
	}
	return s
}

// embeddedTarget is true when the target ran inside shootout.
func embeddedTarget(files []*result.File, target string) bool {
	for _, f := range files {
		if f.Cell.Target == target && embedded(f) {
			return true
		}
	}
	return false
}

// slowestClause names the slowest target against the fastest, as a
// difference only when their repeats put it beyond the noise.
func slowestClause(g *group, op, label, fast, slow string, r float64) string {
	a, b := opRepeats(g.files, fast, label, op), opRepeats(g.files, slow, label, op)
	switch noiseMark(a, b) {
	case withinNoise:
		return fmt.Sprintf("%s was within the noise of %s (~, %s apart)", slow, fast, times(r))
	case tooFew:
		return fmt.Sprintf("%s took %s the time of %s (?: %d against %d repeats cannot decide whether that is more than noise)", slow, times(r), fast, len(b), len(a))
	}
	return fmt.Sprintf("%s was %s slower than %s", slow, times(r), fast)
}

// endLabels are the lightest and the heaviest rows.
func endLabels(labels []string) []string {
	if len(labels) < 2 {
		return labels
	}
	return []string{labels[0], labels[len(labels)-1]}
}

// byTarget compares one figure (median over a target's successful repeats
// at one label) between the target with the least and the one with the
// most.
func byTarget(g *group, label, verb, what, fewer string, get func(*result.File) (float64, bool), show func(float64) string) string {
	type tv struct {
		t string
		v float64
	}
	var xs []tv
	for _, t := range g.targets {
		if v, _, ok := repeatFigureOf(pick(g.files, t, label), get); ok {
			xs = append(xs, tv{t, v})
		}
	}
	if len(xs) < 2 {
		return ""
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].v < xs[j].v })
	lo, hi := xs[0], xs[len(xs)-1]
	r := hi.v / lo.v
	if r < 1.05 {
		return fmt.Sprintf("%s and %s %s about the same %s (%s and %s)", lo.t, hi.t, verb, what, show(lo.v), show(hi.v))
	}
	return fmt.Sprintf("%s %s %s %s %s than %s (%s against %s)", lo.t, verb, times(r), fewer, what, hi.t, show(lo.v), show(hi.v))
}

// spaceClause compares the targets' space at one label in the kind of
// size all of them measured, or says that they measured different ones.
func spaceClause(g *group, label string) string {
	var fs []*result.File
	for _, t := range g.targets {
		fs = append(fs, pick(g.files, t, label)...)
	}
	ts := spaceTargets(fs)
	if len(ts) < 2 {
		return ""
	}
	kind, ok := commonSpace(fs, ts)
	if !ok {
		return "space on disk n/a: " + strings.Join(ts, ", ") + " did not measure one kind of size in common"
	}
	return byTarget(g, label, "took", "space on disk ("+kind.name+")", "less", func(f *result.File) (float64, bool) {
		return float64(kind.get(f)), kind.get(f) > 0
	}, func(v float64) string { return fmt.Sprintf("%.1f MiB", v/mib) })
}

// waClause adds the write amplification of the targets that have one.
func waClause(g *group, label string) string {
	var parts []string
	for _, t := range g.targets {
		if v, _, ok := repeatFigureOf(pick(g.files, t, label), func(f *result.File) (float64, bool) {
			if f.Server.WriteAmplification == nil {
				return 0, false
			}
			return *f.Server.WriteAmplification, true
		}); ok {
			parts = append(parts, fmt.Sprintf("%s %.1f", t, v))
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return "; write amplification " + strings.Join(parts, ", ")
}

func times(r float64) string { return fmt.Sprintf("%.1f×", r) }

func kbText(b float64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	if b >= 1024 {
		return fmt.Sprintf("%.1f KiB", b/1024)
	}
	return fmt.Sprintf("%.0f bytes", b)
}

// labelText reads a clients/neighbour label aloud: "4/x2" is "4 clients
// with 2 neighbour jobs".
func labelText(label string) string {
	c, n, _ := strings.Cut(label, "/")
	s := c + " clients"
	if c == "1" {
		s = "1 client"
	}
	switch {
	case n == "" || n == "0":
		return s + " without neighbours"
	case strings.HasSuffix(n, "%"):
		return fmt.Sprintf("%s beside a neighbour at %s of the IOPS cap", s, n)
	case n == "x1":
		return s + " beside 1 full-speed neighbour job"
	case strings.HasPrefix(n, "x"):
		return fmt.Sprintf("%s beside %s full-speed neighbour jobs", s, n[1:])
	}
	return s + " with neighbour " + n
}
