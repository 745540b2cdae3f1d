package changepoint

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/writegc/writegc/internal/stat"
)

// Defaults of Options (see the package doc for the reasons).
const (
	DefaultWindow       = 50
	DefaultP            = 0.001
	DefaultMinSegment   = 3
	DefaultMinMagnitude = 0.01
)

// Limits, checked before anything is allocated.
const (
	// MaxPoints bounds the length of one series.
	MaxPoints = 1_000_000
	// MaxWindow bounds Options.Window: a window costs O(Window²) time.
	MaxWindow = 10_000
	// MaxMinMagnitude bounds Options.MinMagnitude (10 is 1000%).
	MaxMinMagnitude = 10
)

// Sentinel errors.
var (
	// ErrBadOption: an Options field is out of range.
	ErrBadOption = errors.New("changepoint: option out of range")
	// ErrBadSeries: a series is too long or holds a NaN or infinite value.
	ErrBadSeries = errors.New("changepoint: unusable series")
)

// Direction says which way a series' unit improves: internal/stat's
// Direction, the one benchgate and the history database use too (a leaf like
// this package, so changepoint still imports nothing else of writegc).
type Direction = stat.Direction

// Directions.
const (
	DirUnknown     = stat.UnknownDirection // no direction: change points are of Kind Change
	LowerIsBetter  = stat.Lower            // durations, sizes, counts
	HigherIsBetter = stat.Higher           // throughputs
)

// Kind says whether a change point made the benchmark worse.
type Kind string

// Kinds of change point, by the unit's direction.
const (
	Regression  Kind = "regression"  // worse by the unit's direction
	Improvement Kind = "improvement" // better by the unit's direction
	Change      Kind = "change"      // the unit has no direction
)

// Point is one commit's value: the median of its sample.
type Point struct {
	Commit string
	Value  float64
}

// Series is what Detect reads: the points in commit order and the direction
// of their unit. Detect does not modify it.
type Series struct {
	Points    []Point
	Direction Direction
}

// Options configures Detect. The zero value means the defaults. It is a
// plain value holding no state.
type Options struct {
	// Window is the number of points E-divisive looks at at once, at least
	// 2*MinSegment and at most MaxWindow; 0 means DefaultWindow.
	Window int
	// P is the significance level of Welch's t-test, in (0, 1); 0 means
	// DefaultP.
	P float64
	// MinSegment is the fewest points on each side of a change point, at
	// least 2; 0 means DefaultMinSegment.
	MinSegment int
	// MinMagnitude is the smallest relative change of the medians (0.01 is
	// 1%) that counts, at most MaxMinMagnitude; 0 means
	// DefaultMinMagnitude and a negative value means no minimum.
	MinMagnitude float64
}

// ChangePoint is a commit where the series changed level.
type ChangePoint struct {
	// Index is the position in the series of the first point of the new
	// level; Commit is its commit.
	Index  int
	Commit string
	// PrevCommit is the last commit measured before Commit ("" at the
	// start): the change came in one of the commits after PrevCommit, up
	// to and including Commit.
	PrevCommit string
	// Before and After are the medians of the segments either side (from
	// the previous change point, up to the next one).
	Before, After float64
	// RelChange is (After-Before)/Before; a change from a zero median
	// counts as ±1 (100%).
	RelChange float64
	// P is the p-value of Welch's t-test between the two segments.
	P         float64
	Direction Kind
}

// Result is the outcome of Detect.
type Result struct {
	// ChangePoints in index order.
	ChangePoints []ChangePoint
	// First and Last are the medians of the first and last segments (the
	// whole series when there is no change point); Drift is their relative
	// change and DriftKind its direction.
	First, Last float64
	Drift       float64
	DriftKind   Kind
	// Level is the significance level each change point passed: Options.P
	// from Detect, the family's cutoff from DetectAll (see the package doc).
	Level float64
}

// Validate returns an error wrapping ErrBadOption when a field is out of
// range.
func (o Options) Validate() error {
	d := o.withDefaults()
	switch {
	case d.MinSegment < 2:
		return fmt.Errorf("%w: MinSegment %d: want at least 2", ErrBadOption, o.MinSegment)
	case d.Window < 2*d.MinSegment || d.Window > MaxWindow:
		return fmt.Errorf("%w: Window %d: want %d to %d", ErrBadOption, o.Window, 2*d.MinSegment, MaxWindow)
	case !(d.P > 0 && d.P < 1):
		return fmt.Errorf("%w: P %g: want a value in (0, 1)", ErrBadOption, o.P)
	case math.IsNaN(o.MinMagnitude) || o.MinMagnitude > MaxMinMagnitude:
		return fmt.Errorf("%w: MinMagnitude %g: want at most %d", ErrBadOption, o.MinMagnitude, MaxMinMagnitude)
	}
	return nil
}

func (o Options) withDefaults() Options {
	o.Window = cmp.Or(o.Window, DefaultWindow)
	o.P = cmp.Or(o.P, DefaultP)
	o.MinSegment = cmp.Or(o.MinSegment, DefaultMinSegment)
	switch {
	case o.MinMagnitude == 0:
		o.MinMagnitude = DefaultMinMagnitude
	case o.MinMagnitude < 0:
		o.MinMagnitude = 0
	}
	return o
}

// Detect finds the change points of s (see the package doc). Errors wrap
// ErrBadOption or ErrBadSeries.
func Detect(s Series, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	x, err := values(s)
	if err != nil {
		return nil, err
	}
	return detectAt(s, x, o, o.P), nil
}

// values checks s and returns its values.
func values(s Series) ([]float64, error) {
	if len(s.Points) > MaxPoints {
		return nil, fmt.Errorf("%w: %d points, more than the limit of %d", ErrBadSeries, len(s.Points), MaxPoints)
	}
	x := make([]float64, len(s.Points))
	for i, p := range s.Points {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			return nil, fmt.Errorf("%w: point %d (%s): value %v", ErrBadSeries, i, p.Commit, p.Value)
		}
		x[i] = p.Value
	}
	return x, nil
}

// detectAt finds the change points of s (values x): candidates at o.P, kept
// when they pass level (at most o.P).
func detectAt(s Series, x []float64, o Options, level float64) *Result {
	floor := noiseFloor(x)
	keep := despike(x, o.MinSegment-1, outlierSigmas*math.Sqrt(floor))
	kept := make([]float64, len(keep))
	for i, k := range keep {
		kept[i] = x[k]
	}
	d := &detector{x: kept, o: o, level: level, floor: floor, floorDF: math.Max(1, floorEfficiency*float64(len(x)-1))}
	idx := d.eliminate(d.refine(d.eliminate(d.dedup(d.candidates()))))
	res := &Result{Level: level}
	bounds := append(append([]int{0}, idx...), len(kept))
	at := func(j int) int { // position in x of position j of kept
		if j == len(keep) {
			return len(x)
		}
		return keep[j]
	}
	for i, c := range idx {
		lo, ci, hi := at(bounds[i]), at(c), at(bounds[i+2])
		cp := ChangePoint{Index: ci, Commit: s.Points[ci].Commit, P: d.welch(kept[bounds[i]:c], kept[c:bounds[i+2]]).p}
		if ci > 0 {
			cp.PrevCommit = s.Points[ci-1].Commit
		}
		cp.Before, cp.After = stat.Median(x[lo:ci]), stat.Median(x[ci:hi])
		cp.RelChange = relChange(cp.Before, cp.After)
		cp.Direction = kindOf(cp.RelChange, s.Direction)
		res.ChangePoints = append(res.ChangePoints, cp)
	}
	if len(x) > 0 {
		res.First = stat.Median(x[:at(bounds[1])])
		res.Last = stat.Median(x[at(bounds[len(bounds)-2]):])
		res.Drift = relChange(res.First, res.Last)
		res.DriftKind = kindOf(res.Drift, s.Direction)
	}
	return res
}

// detector holds one series being analysed.
type detector struct {
	x []float64
	o Options
	// level is the significance level a change point must pass in the
	// elimination: o.P for a lone series, the family's cutoff in DetectAll.
	level float64
	// floor is the series' noise variance (see noiseFloor): the least
	// variance the t-test grants a segment.
	floor float64
	// floorDF is the degrees of freedom of floor's estimate (see
	// floorEfficiency).
	floorDF float64
}

// floorEfficiency is the efficiency of noiseFloor's median-based estimate
// of the variance relative to the sample variance under normal noise (about
// 0.37, as for the median absolute deviation): its degrees of freedom are
// about floorEfficiency·(n−1) for n points.
const floorEfficiency = 0.37

// noiseFloor estimates the variance of the noise from the successive
// differences, robustly: median(|x[i]-x[i-1]|) is 0.954σ for normal noise,
// and a level shift moves only one difference. A segment of a few points
// whose values happen to lie close together would otherwise look far more
// certain than the noise of the series allows.
func noiseFloor(x []float64) float64 {
	if len(x) < 3 {
		return 0
	}
	diffs := make([]float64, len(x)-1)
	for i := range diffs {
		diffs[i] = math.Abs(x[i+1] - x[i])
	}
	sigma := stat.Median(diffs) / 0.9539
	return sigma * sigma
}

// outlierSigmas is how far (in noise σ) a point must lie from the median
// of its neighbourhood to be an outlier.
const outlierSigmas = 6

// despike returns the positions of the points of x that are no outliers:
// an outlier lies farther than limit from the median of the 2h+1 points
// around it (the window shifted to fit at the ends). A run of at most h
// points cannot hold the majority of such a window, so a spike or dip of up
// to h commits is left out, while a level held for h+1 commits or more, the
// shortest segment a change point may have, holds it and is kept.
func despike(x []float64, h int, limit float64) []int {
	w := 2*h + 1
	keep := make([]int, 0, len(x))
	buf := make([]float64, w)
	for i := range x {
		if len(x) >= w {
			lo := min(max(0, i-h), len(x)-w)
			copy(buf, x[lo:lo+w])
			slices.Sort(buf)
			if math.Abs(x[i]-buf[h]) > limit {
				continue
			}
		}
		keep = append(keep, i)
	}
	return keep
}

// candidates runs E-divisive in every window and returns the splits found.
func (d *detector) candidates() []int {
	x, o := d.x, d.o
	n, w := len(x), o.Window
	var out []int
	var split func(lo, hi int)
	split = func(lo, hi int) {
		tau, ok := energyBest(x[lo:hi], o.MinSegment)
		if !ok || d.welch(x[lo:lo+tau], x[lo+tau:hi]).p >= o.P {
			return
		}
		out = append(out, lo+tau)
		split(lo, lo+tau)
		split(lo+tau, hi)
	}
	if n <= w {
		split(0, n)
		return out
	}
	for start := 0; ; start += w / 2 {
		if start+w >= n {
			split(n-w, n)
			return out
		}
		split(start, start+w)
	}
}

// energyBest returns the split τ of x (both sides at least minSeg long) that
// maximises the E-divisive statistic, in O(len(x)²) time and O(len(x))
// memory; ok is false when x is too short to split.
func energyBest(x []float64, minSeg int) (tau int, ok bool) {
	n := len(x)
	if n < 2*minSeg {
		return 0, false
	}
	// left[t] = Σ_{i<j<t} |x_i-x_j|; right[t] = Σ_{t<=i<j<n} |x_i-x_j|.
	left := make([]float64, n+1)
	right := make([]float64, n+1)
	for t := 0; t < n; t++ {
		var row float64
		for i := 0; i < t; i++ {
			row += math.Abs(x[i] - x[t])
		}
		left[t+1] = left[t] + row
	}
	for t := n - 1; t >= 0; t-- {
		var row float64
		for j := t + 1; j < n; j++ {
			row += math.Abs(x[t] - x[j])
		}
		right[t] = right[t+1] + row
	}
	total := left[n]
	best := math.Inf(-1)
	for t := minSeg; t <= n-minSeg; t++ {
		m, k := float64(t), float64(n-t)
		between := total - left[t] - right[t]
		q := m * k / float64(n) * (2*between/(m*k) - 2*left[t]/(m*(m-1)) - 2*right[t]/(k*(k-1)))
		if q > best {
			best, tau = q, t
		}
	}
	return tau, true
}

// dedup reduces candidates closer than MinSegment to the one with the
// largest local t statistic; the result is in index order.
func (d *detector) dedup(cands []int) []int {
	x, o := d.x, d.o
	slices.Sort(cands)
	cands = slices.Compact(cands)
	type scored struct {
		idx int
		t   float64
	}
	s := make([]scored, len(cands))
	half := o.Window / 2
	for i, c := range cands {
		s[i] = scored{c, math.Abs(d.welch(x[max(0, c-half):c], x[c:min(len(x), c+half)]).t)}
	}
	slices.SortStableFunc(s, func(a, b scored) int { return cmp.Compare(b.t, a.t) })
	var out []int
	for _, c := range s {
		if !slices.ContainsFunc(out, func(k int) bool { return abs(k-c.idx) < o.MinSegment }) {
			out = append(out, c.idx)
		}
	}
	slices.Sort(out)
	return out
}

// eliminate drops the weakest failing candidate until all pass. Each
// candidate's test is cached and redone only when a neighbour goes, so the
// whole elimination costs O(k·n log n) for k candidates, not O(k²·n log n).
func (d *detector) eliminate(idx []int) []int {
	idx = slices.Clone(idx)
	p := make([]float64, len(idx)) // the p-value; > 1 marks a failing candidate
	eval := func(i int) {
		lo, hi := 0, len(d.x)
		if i > 0 {
			lo = idx[i-1]
		}
		if i+1 < len(idx) {
			hi = idx[i+1]
		}
		left, right := d.x[lo:idx[i]], d.x[idx[i]:hi]
		p[i] = d.welch(left, right).p
		switch {
		case len(left) < d.o.MinSegment || len(right) < d.o.MinSegment:
			p[i] = 3 // the weakest of all: removed first
		case p[i] >= d.level || math.Abs(relChange(stat.Median(left), stat.Median(right))) < d.o.MinMagnitude:
			p[i] += 1.5 // failing; the larger p goes first
		}
	}
	for i := range idx {
		eval(i)
	}
	for {
		worst := -1
		for i := range idx {
			if p[i] > 1 && (worst < 0 || p[i] > p[worst]) {
				worst = i
			}
		}
		if worst < 0 {
			return idx
		}
		idx = slices.Delete(idx, worst, worst+1)
		p = slices.Delete(p, worst, worst+1)
		if worst > 0 {
			eval(worst - 1)
		}
		if worst < len(idx) {
			eval(worst)
		}
	}
}

type tTest struct{ t, p float64 }

// refine moves each change point to the split of the segment between its
// neighbours (within half a window of where it was found) that best
// separates two means: the most likely place of a single shift under normal
// noise, which E-divisive's energy statistic locates less precisely.
func (d *detector) refine(idx []int) []int {
	x, ms := d.x, d.o.MinSegment
	prefix := make([]float64, len(x)+1)
	for i, v := range x {
		prefix[i+1] = prefix[i] + v
	}
	out := slices.Clone(idx)
	for i, c := range idx {
		lo, hi := 0, len(x)
		if i > 0 {
			lo = out[i-1]
		}
		if i+1 < len(idx) {
			hi = idx[i+1]
		}
		first, last := max(lo+ms, c-d.o.Window/2), min(hi-ms, c+d.o.Window/2)
		best, bestQ := c, -1.0
		for t := first; t <= last; t++ {
			m, k := float64(t-lo), float64(hi-t)
			diff := (prefix[t]-prefix[lo])/m - (prefix[hi]-prefix[t])/k
			if q := m * k / (m + k) * diff * diff; q > bestQ {
				best, bestQ = t, q
			}
		}
		// A best split at the edge of the search, short of the segment's
		// own ends, is no local maximum: the segment holds more than one
		// shift (a creep, or a change too weak to be kept), and the
		// single-shift model would drag the point away from its step.
		if (best == first && first > lo+ms) || (best == last && last < hi-ms) {
			best = c
		}
		out[i] = best
	}
	return out
}

// welch is Welch's two-sample t-test (two-sided), each side's variance at
// least the series' noise floor. Sides with fewer than two values give
// p = 1; two constant sides give p = 0 when their means differ.
func (d *detector) welch(a, b []float64) tTest {
	if len(a) < 2 || len(b) < 2 {
		return tTest{0, 1}
	}
	ma, va := stat.MeanVar(a)
	mb, vb := stat.MeanVar(b)
	na, nb := float64(len(a)), float64(len(b))
	// A side whose variance is raised to the floor is only as certain as
	// the floor's estimate: its degrees of freedom are the floor's.
	dfa, dfb := na-1, nb-1
	if va < d.floor {
		va, dfa = d.floor, math.Min(dfa, d.floorDF)
	}
	if vb < d.floor {
		vb, dfb = d.floor, math.Min(dfb, d.floorDF)
	}
	sa, sb := va/na, vb/nb
	se2 := sa + sb
	if se2 == 0 {
		if ma == mb {
			return tTest{0, 1}
		}
		return tTest{math.Copysign(math.Inf(1), mb-ma), 0}
	}
	t := (mb - ma) / math.Sqrt(se2)
	df := se2 * se2 / (sa*sa/dfa + sb*sb/dfb)
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return tTest{t, math.Min(p, 1)}
}

// relChange is (after-before)/before; from zero it is ±1 (or 0).
func relChange(before, after float64) float64 {
	if before == 0 {
		switch {
		case after > 0:
			return 1
		case after < 0:
			return -1
		}
		return 0
	}
	return (after - before) / math.Abs(before)
}

func kindOf(rel float64, d Direction) Kind {
	switch {
	case !d.Known() || rel == 0:
		return Change
	case (rel > 0) == (d == LowerIsBetter):
		return Regression
	}
	return Improvement
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
