// Package shard splits a plan's cells among machines (run --shard I/N)
// and joins the result directories they write into one (shootout merge).
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"shootout/internal/result"
)

// Valid is what a --shard value must be, for the one-line refusal.
const Valid = "I/N: this machine's share, I from 0 to N-1 of N machines (N from 1 to 1000), " +
	"as a Kubernetes Indexed Job's JOB_COMPLETION_INDEX counts"

// Spec is one machine's share of a plan: shard I of N.
type Spec struct{ I, N int }

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Parse reads "I/N". The index is 0-based because the Job that runs the
// shards hands each pod its JOB_COMPLETION_INDEX, which is.
func Parse(text string) (Spec, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(text), "/")
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if !ok || errI != nil || errN != nil || n < 1 || n > 1000 || i < 0 || i >= n {
		return Spec{}, fmt.Errorf("%q is not %s", text, Valid)
	}
	return Spec{I: i, N: n}, nil
}

// Select is the cells of shard s, in the plan's order.
//
// The rule: a row is the cells of one repeat that a report puts side by
// side (one dataset, workload, client count and neighbour, every target
// and variant of it), and a row's repeat goes whole to one shard, so the
// targets it compares ran on the same machine, one after the other, as
// on one box. Rows are numbered j = 0, 1, ... in the plan's order, the
// plan has R repeats, and repeat r (from 1) of row j is unit
// u = j*R + r - 1, which runs on shard u mod N. Units are dealt round
// the shards like cards, so shards differ by at most one row's cells;
// and a row's R repeats are R consecutive units, so they run on R
// consecutive shards (on every shard once R >= N), each repeat on the
// next machine, every target of the row following the same rotation: a
// machine a little faster than its twins lifts every target's repeats
// alike instead of one target's. Every shard works out the same
// numbering from the same plan, so the N shards are disjoint and cover
// it; within a shard the cells keep the plan's order (repeats
// outermost), so a drift of one machine still spreads over its cells.
//
// With --repeat auto the plan holds only each cell's first repeat (R is
// 1), and the rounds that follow stay on its shard: the rule that stops
// repeating a cell needs its repeats in one place.
func Select(cells []result.Cell, s Spec) []result.Cell {
	repeats := 1
	for _, c := range cells {
		repeats = max(repeats, c.Repeat)
	}
	rows := map[string]int{}
	var out []result.Cell
	for _, c := range cells {
		key := RowKey(c)
		j, ok := rows[key]
		if !ok {
			j = len(rows)
			rows[key] = j
		}
		if (j*repeats+max(c.Repeat, 1)-1)%s.N == s.I {
			out = append(out, c)
		}
	}
	return out
}

// RowKey is what the cells of one row share: the plan's outer axes,
// the repeat aside.
func RowKey(c result.Cell) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s", c.Dataset, c.Workload, c.Clients, c.Conditions.Neighbour)
}

// Units is how many shards the cells can keep busy: a row's repeat is
// the least that goes to one shard.
func Units(cells []result.Cell) int {
	units := map[string]bool{}
	for _, c := range cells {
		units[fmt.Sprintf("%s\x00%d", RowKey(c), c.Repeat)] = true
	}
	return len(units)
}

// IDs are the cells' ids, as a shard's run.json records the cells it is
// to run.
func IDs(cells []result.Cell) []string {
	out := make([]string, 0, len(cells))
	for _, c := range cells {
		out = append(out, c.ID)
	}
	return out
}

// Digest is a SHA-256 of a set of cell ids (in any order): the ids carry
// the conditions' hash, so two plans whose cells differ in anything the
// cells record have different digests, whatever their names.
func Digest(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	s = slices.Compact(s)
	h := sha256.Sum256([]byte(strings.Join(s, "\n")))
	return hex.EncodeToString(h[:])
}
