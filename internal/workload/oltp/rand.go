package oltp

import "math/rand/v2"

// idGen draws row ids in [1, n] the way sysbench's --rand-type does.
type idGen interface{ next() int64 }

func newIDGen(kind string, n int64, rng *rand.Rand) idGen {
	if kind == "uniform" {
		return uniform{n, rng}
	}
	return special{n: n, rng: rng, pct: 1, res: 75}
}

type uniform struct {
	n   int64
	rng *rand.Rand
}

func (u uniform) next() int64 { return 1 + u.rng.Int64N(u.n) }

// special is sysbench 1.0's default distribution: res% of the draws fall on
// the first pct% of the range, the rest uniformly on the whole range.
type special struct {
	n        int64
	rng      *rand.Rand
	pct, res float64
}

func (s special) next() int64 {
	return 1 + s.rng.Int64N(s.n) // replaced below once the exact algorithm is confirmed
}
