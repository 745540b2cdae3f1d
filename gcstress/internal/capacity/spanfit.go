package capacity

import (
	"cmp"
	"math"
	"slices"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// The collector's shares are fitted by counting, not by their worst
// window. A step is judged on every classifier span after its warm-up
// (windows merged until one holds a completed GC cycle) and fails when
// any is unhealthy, so its worst-window share is the maximum of a few
// draws: replayed on results/capacity-repeats, heap's unhealthy spans
// (one cycle's assists landing in a short span) came at about the same
// low rate from 5.6 to 15 MB/s, one step in four or five failed anywhere
// in that band, and a fit of the worst window followed whichever steps
// happened to fail (11.9, 9.26 and 7.31 MB/s in three quiet searches,
// intervals ±10% that held none of the others).
//
// So each share figure reads, per step, how many of its spans were at or
// over the share's limit (k of n), pools the steps into the fraction of
// unhealthy spans against the rate (isotonic: weighted pool-adjacent-
// violators, so a rate's level never falls below a lower rate's), and
// reads the rate where that fraction reaches q = 1 - 2^(-1/m), m the
// median spans per step: the fraction at which a step of m spans passes
// half the time. That is the knee the bisection itself looks for (the rate
// where a step is as likely to fail as to pass), read from every span of
// every step instead of one pass or fail per step; no constant is tuned.
//
// The interval is the set of rates not rejected by one-sided binomial
// tests at level spanAlpha each side, using only that the fraction rises
// with the rate: a rate x is below the knee's lower end when the spans at
// rates from x to CapacityFitReach times x hold too few unhealthy ones
// for a fraction of q (P(X ≤ k) < spanAlpha), and above its upper end when
// the spans from x/CapacityFitReach to x hold too many for q (P(X ≥ k) <
// spanAlpha). Any spans on the right side of x make a valid test; the
// neighbourhood is the search's doubling (every tested rate has at least
// one other within it), because pooling spans far from x (heap's spans at
// a quarter of the knee are never unhealthy) dilutes the count and leaves
// the test without power: over all the spans below it, a knee at 20 MB/s
// got intervals 16 times wide in simulation, 4 times with the doubling.
// Spans, not windows, are the units (a span's windows share its shares).
// Where the steps hold few spans near the knee the interval is wide (15
// spans, none unhealthy, do not reject 13% at 5%): it says how far the
// search's own evidence places the knee, not how repeatable it hopes to be.

// spanAlpha is each side's level of the interval's binomial tests: a 90%
// interval.
const spanAlpha = 0.05

// spanCount is one step's unhealthy spans k of n at x = ln(target MB/s).
type spanCount struct {
	x    float64
	k, n int
}

// spanSpec is a share figure counted over spans.
type spanSpec struct {
	fig       results.CapacityFigure
	threshold float64 // the share a span is unhealthy at (%)
	blame     results.CapacityLimit
	spans     func(st results.CapacityStep) []float64
	worst     func(st results.CapacityStep) float64
}

// spanFigures are the share figures under th.
func spanFigures(th results.Thresholds) []spanSpec {
	return []spanSpec{
		{results.FigureGCPct, th.HealthyGC, results.LimitGCCPU,
			func(st results.CapacityStep) []float64 { return st.SpanGCPct },
			func(st results.CapacityStep) float64 { return st.GCPct }},
		{results.FigureAssistPct, th.HealthyAssist, results.LimitAssist,
			func(st results.CapacityStep) []float64 { return st.SpanAssistPct },
			func(st results.CapacityStep) float64 { return st.AssistPct }},
	}
}

// countSpans is st's unhealthy spans on f; a step recorded without its
// spans (an older summary) counts as one span, its worst window's.
func countSpans(f spanSpec, st results.CapacityStep) (k, n int) {
	shares := f.spans(st)
	if len(shares) == 0 {
		shares = []float64{f.worst(st)}
	}
	for _, s := range shares {
		if s >= f.threshold {
			k++
		}
	}
	return k, len(shares)
}

// fitSpans fits f over the usable steps (false: fewer than two of them).
func fitSpans(f spanSpec, steps []results.CapacityStep) (results.CapacityFit, bool) {
	var cs []spanCount
	var per []float64
	blamed := false
	for _, st := range steps {
		if !usable(st) {
			continue
		}
		k, n := countSpans(f, st)
		cs = append(cs, spanCount{math.Log(st.TargetMBps), k, n})
		per = append(per, float64(n))
		blamed = blamed || st.Limit == f.blame
	}
	if len(cs) < 2 || f.threshold <= 0 {
		return results.CapacityFit{}, false
	}
	q := 1 - math.Pow(2, -1/stat.Median(per))
	fit := spanFit(f.fig, q, cs)
	fit.Threshold, fit.Bracketed = f.threshold, fit.Bracketed && blamed
	return fit, true
}

// spanFit is the fit of counts cs at the unhealthy fraction q (0-1): the
// isotonic fraction's crossing of q and its binomial interval (in %).
func spanFit(fig results.CapacityFigure, q float64, cs []spanCount) results.CapacityFit {
	slices.SortFunc(cs, func(a, b spanCount) int { return cmp.Compare(a.x, b.x) })
	reach := math.Log(results.CapacityFitReach)
	lox, hix := cs[0].x-reach, cs[len(cs)-1].x+reach
	iso := isotonicFraction(cs)
	below, above := false, false
	for _, c := range cs {
		frac := float64(c.k) / float64(max(c.n, 1))
		below, above = below || frac < q, above || frac >= q
	}
	f := results.CapacityFit{Figure: fig, Limit: 100 * q, Points: len(cs), Bracketed: below && above, Model: results.FitUnhealthySpans}
	for _, c := range iso {
		f.Curve = append(f.Curve, results.CapacityFitPoint{MBps: math.Exp(c.x), Value: 100 * c.y})
	}
	cross := crossing(iso, q, lox, hix)
	lo, hi := binomialBand(cs, q, lox, hix)
	res := math.Log1p(results.CapacityResolution)
	f.CrossMBps = math.Exp(cross)
	f.LoMBps, f.HiMBps = math.Exp(min(lo, cross-res)), math.Exp(max(hi, cross+res))
	return f
}

// isotonicFraction is the weighted isotonic regression of the fractions
// k/n on x (cs sorted by x): one point per distinct x, non-decreasing, each
// level the pooled fraction of the spans its block holds.
func isotonicFraction(cs []spanCount) []point {
	type block struct {
		xs   []float64
		k, n int
	}
	frac := func(b block) float64 { return float64(b.k) / float64(max(b.n, 1)) }
	var bs []block
	for _, c := range cs {
		if len(bs) > 0 && bs[len(bs)-1].xs[len(bs[len(bs)-1].xs)-1] == c.x {
			bs[len(bs)-1].k += c.k
			bs[len(bs)-1].n += c.n
		} else {
			bs = append(bs, block{xs: []float64{c.x}, k: c.k, n: c.n})
		}
		for len(bs) > 1 && frac(bs[len(bs)-2]) > frac(bs[len(bs)-1]) {
			last := bs[len(bs)-1]
			bs = bs[:len(bs)-1]
			prev := &bs[len(bs)-1]
			prev.xs, prev.k, prev.n = append(prev.xs, last.xs...), prev.k+last.k, prev.n+last.n
		}
	}
	var out []point
	for _, b := range bs {
		for _, x := range b.xs {
			out = append(out, point{x, frac(b)})
		}
	}
	return out
}

// binomialBand is the interval of the rates at which an unhealthy fraction
// of q is not rejected (cs sorted by x, see the comment above): lo is the
// lowest tested rate whose spans up to CapacityFitReach above it do not
// reject a fraction of at least q (hix when every one does), hi the
// highest whose spans down to CapacityFitReach below it do not reject at
// most q (hix when the highest does not: the knee may lie beyond the
// steps; lox when none).
func binomialBand(cs []spanCount, q, lox, hix float64) (lo, hi float64) {
	lo, hi = hix, lox
	reach := math.Log(results.CapacityFitReach)
	for i := range cs {
		if i > 0 && cs[i].x == cs[i-1].x {
			continue
		}
		var ka, na, kb, nb int
		for _, c := range cs {
			if c.x >= cs[i].x && c.x <= cs[i].x+reach {
				ka, na = ka+c.k, na+c.n
			}
			if c.x <= cs[i].x && c.x >= cs[i].x-reach {
				kb, nb = kb+c.k, nb+c.n
			}
		}
		if lo == hix && binomCDF(ka, na, q) >= spanAlpha {
			lo = cs[i].x
		}
		if 1-binomCDF(kb-1, nb, q) >= spanAlpha {
			hi = cs[i].x
			if i == len(cs)-1 || cs[len(cs)-1].x == cs[i].x {
				hi = hix
			}
		}
	}
	return lo, hi
}

// binomCDF is P(X ≤ k) for X ~ Binomial(n, p).
func binomCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	sum := 0.0
	for i := 0; i <= k; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lc - li - lr + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return min(sum, 1)
}
