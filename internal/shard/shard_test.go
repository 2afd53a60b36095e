package shard

import (
	"fmt"
	"strings"
	"testing"

	"shootout/internal/result"
)

// cells is a plan's cells as Resolve orders them: repeats outermost,
// rows (dataset, workload, clients, neighbour), targets innermost.
func cells(repeats, rows int, targets ...string) []result.Cell {
	var out []result.Cell
	for r := 1; r <= repeats; r++ {
		for j := 0; j < rows; j++ {
			for _, t := range targets {
				out = append(out, result.Cell{ID: fmt.Sprintf("%s_c%d__r%d", t, j+1, r), Target: t, Workload: "w",
					Dataset: "d", Clients: j + 1, Conditions: result.Conditions{Neighbour: "0"}, Repeat: r})
			}
		}
	}
	return out
}

// The N shards of one plan are disjoint and cover it, each in the
// plan's order, and none is more than a row's cells from the others.
func TestShardsAreDisjointAndCoverThePlan(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7, 20} {
		all := cells(3, 5, "a", "b")
		seen := map[string]int{}
		sizes := []int{}
		for i := 0; i < n; i++ {
			got := Select(all, Spec{I: i, N: n})
			sizes = append(sizes, len(got))
			last := -1
			for _, c := range got {
				seen[c.ID]++
				k := indexOf(all, c.ID)
				if k < last {
					t.Errorf("n=%d shard %d: %s out of the plan's order", n, i, c.ID)
				}
				last = k
			}
		}
		for _, c := range all {
			if seen[c.ID] != 1 {
				t.Errorf("n=%d: %s in %d shards", n, c.ID, seen[c.ID])
			}
		}
		lo, hi := sizes[0], sizes[0]
		for _, s := range sizes {
			lo, hi = min(lo, s), max(hi, s)
		}
		if hi-lo > 2 {
			t.Errorf("n=%d: shard sizes %v differ by more than a row", n, sizes)
		}
		// k8s warns of idle pods by Units: it must be the shards kept busy
		busy := 0
		for _, s := range sizes {
			if s > 0 {
				busy++
			}
		}
		if want := min(n, Units(all)); busy != want || Units(all) != 15 {
			t.Errorf("n=%d: %d shards have cells, Units says %d of 15", n, busy, Units(all))
		}
	}
}

// A cell's repeats rotate over the shards, each on the next machine,
// and the targets of one row run on the same machine in each repeat.
func TestRepeatsInterleaveAcrossShardsAndRowsStayTogether(t *testing.T) {
	all := cells(3, 4, "a", "b", "c")
	shardOf := map[string]int{}
	for i := 0; i < 3; i++ {
		for _, c := range Select(all, Spec{I: i, N: 3}) {
			shardOf[c.ID] = i
		}
	}
	for j := 1; j <= 4; j++ {
		machines := map[int]bool{}
		for r := 1; r <= 3; r++ {
			s := shardOf[fmt.Sprintf("a_c%d__r%d", j, r)]
			machines[s] = true
			for _, other := range []string{"b", "c"} {
				if o := shardOf[fmt.Sprintf("%s_c%d__r%d", other, j, r)]; o != s {
					t.Errorf("row %d repeat %d: a on shard %d, %s on %d", j, r, s, other, o)
				}
			}
		}
		if len(machines) != 3 {
			t.Errorf("row %d: its 3 repeats ran on shards %v, not on 3", j, machines)
		}
	}
}

func TestParseRefusesWhatIsNotIOfN(t *testing.T) {
	for _, bad := range []string{"", "1", "3/3", "-1/3", "0/0", "a/b", "1/2/3", "0/1001"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "I from 0 to N-1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if s, err := Parse("2/3"); err != nil || s != (Spec{I: 2, N: 3}) {
		t.Errorf("2/3: %v %v", s, err)
	}
}

func indexOf(cells []result.Cell, id string) int {
	for i, c := range cells {
		if c.ID == id {
			return i
		}
	}
	return -1
}
