package oltp

import "math/rand/v2"

// idGen draws row ids in [1, n] the way sysbench's --rand-type does.
type idGen interface{ next() int64 }

func newIDGen(kind string, n int64, rng *rand.Rand) idGen {
	if kind == "uniform" {
		return uniform{n, rng}
	}
	return special{a: 1, b: n, rng: rng, iter: 12, pct: 1, res: 75}
}

type uniform struct {
	n   int64
	rng *rand.Rand
}

func (u uniform) next() int64 { return 1 + u.rng.Int64N(u.n) }

// special is sysbench 1.0's default distribution (--rand-type=special,
// --rand-spec-iter=12, --rand-spec-pct=1, --rand-spec-res=75): res% of the
// draws fall uniformly on the middle pct% of the range, the rest follow a
// bell curve (the mean of iter uniform draws) over the whole range. Hot rows
// are what make sysbench's read-write tests contend.
type special struct {
	a, b     int64
	rng      *rand.Rand
	iter     int
	pct, res float64
}

func (s special) next() int64 {
	t := float64(s.b - s.a)
	rangeSize := t * 100 / (100 - s.res)
	rnd := s.rng.Float64()
	if rnd*rangeSize < t {
		sum := 0.0
		for i := 0; i < s.iter; i++ {
			sum += s.rng.Float64()
		}
		return s.a + int64(sum*t/float64(s.iter))
	}
	d := t * s.pct / 100
	res := rnd*(d+1) + t/2 - t*s.pct/200
	return s.a + int64(res)
}
