package history

import (
	"math"
	"slices"
)

// The bounds of Assess: a series is unstable when, over its latest
// UnstableWindow points, its noise exceeds UnstableMaxNoise or its verdicts
// flip UnstableMaxFlips times or more.
const (
	// UnstableWindow is the number of latest points judged: recent enough
	// that a series which has since been fixed stops being unstable.
	UnstableWindow = 10
	// UnstableMinPoints is the fewest points judged at all: below it a
	// series is never unstable (its noise cannot be told from a change).
	UnstableMinPoints = 5
	// UnstableMaxNoise bounds the noise (a robust coefficient of variation
	// of the points' medians): half the gate's default 10% threshold, past
	// which commit-to-commit scatter alone crosses the threshold often.
	UnstableMaxNoise = 0.05
	// UnstableMaxFlips is the number of verdict flips that makes a series
	// unstable: a regression, its revert and a re-land are two flips,
	// worse-better-worse-better is three.
	UnstableMaxFlips = 3
	// UnstableMinMove is the smallest relative move that counts as a
	// verdict (the history's default minimum magnitude): a significant
	// change of 0.1% in an exact count is not a flip.
	UnstableMinMove = 0.01
)

// madToSigma turns the median absolute successive difference into a
// standard deviation for normal noise: sqrt(2) * Phi^-1(0.75).
const madToSigma = 0.9538725524089335

// Stability is how steady a series has been over its latest points, as
// Assess returns it. A plain value.
type Stability struct {
	// Points is the number of points judged (at most UnstableWindow).
	Points int
	// Noise is the commit-to-commit scatter of the judged points' medians
	// relative to their median (the median absolute difference of
	// successive points, scaled to a standard deviation, so that one step
	// change among them does not count); 0 when not judged.
	Noise float64
	// Flips is the number of verdicts opposite to the one before (see
	// Assess).
	Flips int
	// Unstable: Points >= UnstableMinPoints and Noise > UnstableMaxNoise
	// or Flips >= UnstableMaxFlips.
	Unstable bool
}

// verdict is one point's move: -1 down, +1 up, 0 none.
type verdict int

// Assess judges the latest UnstableWindow points of s. A point's verdict is
// its gate run's head/base ratio where it has one (up when the ratio's
// interval lies above 1, down when below, by at least UnstableMinMove), else
// its interval against the previous point's (up when the two are disjoint and
// the median rose by at least UnstableMinMove); points without an interval
// have none. A flip is a verdict opposite to the latest one before it. Up and
// down are used whatever the unit's direction: a flip is a flip either way.
// A pure function.
func Assess(s Series) Stability {
	ps := s.Points
	if len(ps) > UnstableWindow {
		ps = ps[len(ps)-UnstableWindow:]
	}
	st := Stability{Points: len(ps)}
	if len(ps) < UnstableMinPoints {
		return st
	}
	st.Noise = noise(ps)
	var last verdict
	for i := range ps {
		v := pointVerdict(ps, i)
		if v == 0 {
			continue
		}
		if last != 0 && v != last {
			st.Flips++
		}
		last = v
	}
	st.Unstable = st.Noise > UnstableMaxNoise || st.Flips >= UnstableMaxFlips
	return st
}

// Unstable reports whether s is unstable by Assess: the gate reports such a
// series' regression but, unless told otherwise, does not fail on it.
func Unstable(s Series) bool { return Assess(s).Unstable }

// UnstableSeries returns the Assess of each unstable series of ss by its
// key: what a gate that loaded the history (DB.Load) looks its rows up in,
// to report a regression of an unstable series without failing on it.
func UnstableSeries(ss []Series) map[SeriesKey]Stability {
	out := map[SeriesKey]Stability{}
	for _, s := range ss {
		if st := Assess(s); st.Unstable {
			out[s.SeriesKey] = st
		}
	}
	return out
}

// noise is the robust relative scatter of the medians of ps (0 when their
// median is 0 or not finite).
func noise(ps []Point) float64 {
	meds := make([]float64, len(ps))
	diffs := make([]float64, 0, len(ps)-1)
	for i, p := range ps {
		meds[i] = p.Median
		if i > 0 {
			diffs = append(diffs, math.Abs(p.Median-ps[i-1].Median))
		}
	}
	center := math.Abs(median(meds))
	if center == 0 || !finite(center) {
		return 0
	}
	n := median(diffs) / madToSigma / center
	if !finite(n) {
		return 0
	}
	return n
}

// median returns the median of vs, reordering them.
func median(vs []float64) float64 {
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// pointVerdict is ps[i]'s move (see Assess).
func pointVerdict(ps []Point, i int) verdict {
	p := ps[i]
	if p.HasRatio {
		switch {
		case p.RatioLo > 1 && p.Ratio >= 1+UnstableMinMove:
			return 1
		case p.RatioHi < 1 && p.Ratio <= 1-UnstableMinMove:
			return -1
		}
		return 0
	}
	if i == 0 || !p.HasInterval || !ps[i-1].HasInterval {
		return 0
	}
	q := ps[i-1]
	rel := 0.0
	if q.Median != 0 {
		rel = (p.Median - q.Median) / math.Abs(q.Median)
	}
	switch {
	case p.Lo > q.Hi && rel >= UnstableMinMove:
		return 1
	case p.Hi < q.Lo && rel <= -UnstableMinMove:
		return -1
	}
	return 0
}
