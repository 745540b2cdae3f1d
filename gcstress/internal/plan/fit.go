package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// The fit: every limiting figure of every step is fitted against the
// offered rate over all the steps of a search, and the sustainable rate is
// where the lowest bracketed fit reaches its limit. Each figure is a level
// (results.CapacityFit: an isotonic median curve): the collector's mean GC
// and assist shares over a step's windows after the warm-up (what Judge
// holds a step to), the heap's median share of its goal at the windows'
// ends and the p99 from intended start. One pass/fail step near a flat knee
// decides nothing (one noisy window moves it; results/capacity-repeats shows
// how far): a fit over every step moves only as far as the steps do, and its
// interval says how far the steps place the knee.

// point is one step's figure y at x = ln(target MB/s).
type point struct{ x, y float64 }

// figureSpec is what one figure reads from a step and its limit.
type figureSpec struct {
	fig   results.CapacityFigure
	limit float64
	// blame is the step limit the classifier names when this figure fails
	// a step: a fit counts (Bracketed) only if some step was failed so,
	// so that a figure drifting around its line by noise (the heap near
	// its goal at a window's end) does not set the rate.
	blame results.CapacityLimit
	// read returns the step's figure and whether the step counts for it.
	read func(st results.CapacityStep) (float64, bool)
	// share: the figure is a 0/100 verdict, pooled as an isotonic mean
	// (results.FitShare), blamed by any step failed on a named limit.
	share bool
}

// figures are the figures fitted under th and slo (no latency figure
// without an SLO). The mean shares are P-time over P-time (runtime/metrics
// CPU classes), so they do not move when the OS takes the threads' CPUs.
func figures(th results.Thresholds, slo time.Duration) []figureSpec {
	fs := []figureSpec{
		{results.FigureGCPct, th.HealthyGC, results.LimitGCCPU, func(st results.CapacityStep) (float64, bool) { return st.SteadyGCPct, true }, false},
		{results.FigureAssistPct, th.HealthyAssist, results.LimitAssist, func(st results.CapacityStep) (float64, bool) { return st.SteadyAssistPct, true }, false},
		{results.FigureHeapGoal, 100, results.LimitHeap, func(st results.CapacityStep) (float64, bool) { return st.HeapGoalPct, st.HeapGoalPct > 0 }, false},
	}
	if slo > 0 {
		// Latency depends on the neighbours: a step the machine's other
		// load took CPU from says nothing about the path's own p99.
		fs = append(fs, figureSpec{results.FigureP99, float64(slo) / 1e6, results.LimitLatency, func(st results.CapacityStep) (float64, bool) {
			return float64(st.P99) / 1e6, st.P99 > 0 && st.OthersCores <= results.BusyCores
		}, false})
	}
	// The steps' own verdicts, whichever limit failed them: a rate whose
	// steps fail more often than they pass is past the knee, whatever one
	// figure's level says (results.FigureUnhealthy).
	return append(fs, figureSpec{fig: results.FigureUnhealthy, limit: results.CapacityFailShare, share: true,
		read: func(st results.CapacityStep) (float64, bool) {
			if st.Healthy || st.Limit == results.LimitNone {
				return 0, true
			}
			return 100, true
		}})
}

// usable reports whether a step's figures are evidence: it ran to its end
// with an end record and enough windows, and was not a contended re-run.
func usable(st results.CapacityStep) bool {
	return st.TargetMBps > 0 && st.AchievedMBps > 0 && !st.Contended &&
		st.Class != results.Interrupted && st.Class != results.Inconclusive
}

// Fit fits every figure of steps against the offered rate, each against
// its limit under th and slo (no latency figure without an SLO).
func Fit(steps []results.CapacityStep, th results.Thresholds, slo time.Duration) []results.CapacityFit {
	var out []results.CapacityFit
	for _, f := range figures(th, slo) {
		var ps []point
		blamed := false
		for _, st := range steps {
			if y, ok := f.read(st); ok && usable(st) {
				ps = append(ps, point{math.Log(st.TargetMBps), y})
				blamed = blamed || st.Limit == f.blame || (f.share && y > 0)
			}
		}
		if len(ps) < 2 || f.limit <= 0 {
			continue
		}
		fit := fitFigure(f.fig, f.limit, ps, f.share)
		fit.Bracketed = fit.Bracketed && blamed
		if f.share {
			fit.Threshold = th.HealthyGC
		}
		out = append(out, fit)
	}
	return out
}

// fitFigure is one figure's fit over ps: the isotonic median curve (a
// figure that does not fall as the rate rises, each level the median of the
// steps it pools, so a lone noisy step takes its neighbours' level), its
// crossing of limit, interpolated in ln rate between the levels around it,
// and the crossing's interval. No line is assumed: replayed on
// results/busy-machine, heap's worst-window GC share rose by 4 points from
// 4 to 28 MB/s, by 5 from 28 to 34 and then sat at 11-13% up to 60, and a
// Theil-Sen line through those steps crossed 10% at 38-40 MB/s where the
// steps cross it at 31 in both quiet runs.
//
// With share, ps are 0/100 verdicts and each level is the mean of the steps
// its block pools (a share of failing steps, results.FitShare): a median of
// verdicts is 0, 50 or 100 and says nothing about one failure in three.
func fitFigure(fig results.CapacityFigure, limit float64, ps []point, share bool) results.CapacityFit {
	lox, hix := math.Inf(1), math.Inf(-1)
	below, above := false, false
	for _, p := range ps {
		lox, hix = min(lox, p.x), max(hix, p.x)
		below, above = below || p.y < limit, above || p.y >= limit
	}
	reach := math.Log(results.CapacityFitReach)
	lox, hix = lox-reach, hix+reach
	f := results.CapacityFit{Figure: fig, Limit: limit, Points: len(ps), Bracketed: below && above, Model: results.FitIsotonic}
	pool := stat.Median
	if share {
		f.Model, pool = results.FitShare, stat.Mean
	}
	iso := isotonic(ps, pool)
	f.Spread = robustSpread(ps, iso)
	cross := crossing(iso, limit, lox, hix)
	// Two spreads: a step's noise about an isotonic curve understates it
	// (the curve follows the steps it pools), and another search of the
	// same build should land inside the interval, about √2 times one
	// search's own scatter away.
	band := 2 * f.Spread
	if share {
		// Residuals of verdicts about a share are ±its level, not noise
		// of a figure: a share's band is where a step fails between a
		// quarter and three quarters of the time.
		band = results.CapacityFailShare / 2
	}
	lo, hi := isoBand(iso, band, limit, lox, hix)
	for _, c := range iso {
		f.Curve = append(f.Curve, results.CapacityFitPoint{MBps: math.Exp(c.x), Value: c.y})
	}
	// The interval holds the zone where the steps disagree: from the
	// lowest rate a step was at or over the limit to the highest one a step
	// was under it (when they overlap; else the two tested rates around
	// the knee). Where repeats of a rate pass and fail, the knee lies
	// anywhere in that band, whatever the fit's residuals say. And at
	// least the search's own resolution each way: its bisection places no
	// knee finer than results.CapacityResolution.
	zlo, zhi := disagreement(ps, limit)
	res := math.Log1p(results.CapacityResolution)
	f.CrossMBps = math.Exp(cross)
	f.LoMBps, f.HiMBps = math.Exp(min(lo, cross-res, zlo)), math.Exp(max(hi, cross+res, zhi))
	return f
}

// disagreement is the band between the highest x with a point under limit
// and the lowest x with a point at or over it, either way round; (+Inf,
// -Inf) when all points lie on one side.
func disagreement(ps []point, limit float64) (lo, hi float64) {
	pass, fail := math.Inf(-1), math.Inf(1)
	for _, p := range ps {
		if p.y < limit {
			pass = max(pass, p.x)
		} else {
			fail = min(fail, p.x)
		}
	}
	if math.IsInf(pass, 0) || math.IsInf(fail, 0) {
		return math.Inf(1), math.Inf(-1)
	}
	return min(pass, fail), max(pass, fail)
}

// robustSpread is the steps' spread about curve (one point per distinct
// x): 1.4826 times the median absolute deviation of the residuals, σ for
// normal noise, unmoved by a few outliers.
func robustSpread(ps, curve []point) float64 {
	res := make([]float64, len(ps))
	for i, p := range ps {
		for _, c := range curve {
			if c.x == p.x {
				res[i] = p.y - c.y
				break
			}
		}
	}
	med := stat.Median(res)
	for i := range res {
		res[i] = math.Abs(res[i] - med)
	}
	return 1.4826 * stat.Median(res)
}

// isoBand is the interval of an isotonic curve's crossing: where the curve
// raised and lowered by spread reaches limit, and at least the two tested
// rates around the crossing (between them the steps cannot place it).
func isoBand(curve []point, spread, limit, lox, hix float64) (lo, hi float64) {
	shift := func(d float64) []point {
		out := slices.Clone(curve)
		for i := range out {
			out[i].y += d
		}
		return out
	}
	lo, hi = crossing(shift(spread), limit, lox, hix), crossing(shift(-spread), limit, lox, hix)
	for i, c := range curve {
		if c.y >= limit && i > 0 {
			lo, hi = min(lo, curve[i-1].x), max(hi, c.x)
			break
		}
	}
	return lo, hi
}

// isotonic is the isotonic regression of ps under pool: one point per
// distinct x, in order, whose y never decreases, each pool of the steps its
// block pools (pool-adjacent-violators). With stat.Median, a lone outlier
// pooled with its neighbours takes their level, not a mean dragged toward
// it; stat.Mean pools verdicts into shares.
func isotonic(ps []point, pool func([]float64) float64) []point {
	sorted := slices.Clone(ps)
	slices.SortFunc(sorted, func(a, b point) int { return cmp.Compare(a.x, b.x) })
	type block struct {
		xs, ys []float64 // the distinct xs it covers, the ys it pools
		med    float64
	}
	var bs []block
	for i := 0; i < len(sorted); {
		b := block{xs: []float64{sorted[i].x}}
		for ; i < len(sorted) && sorted[i].x == b.xs[0]; i++ {
			b.ys = append(b.ys, sorted[i].y)
		}
		b.med = pool(b.ys)
		for len(bs) > 0 && bs[len(bs)-1].med > b.med {
			prev := bs[len(bs)-1]
			bs = bs[:len(bs)-1]
			b.xs, b.ys = append(prev.xs, b.xs...), append(prev.ys, b.ys...)
			b.med = pool(b.ys)
		}
		bs = append(bs, b)
	}
	var out []point
	for _, b := range bs {
		for _, x := range b.xs {
			out = append(out, point{x, b.med})
		}
	}
	return out
}

// crossing is the x where the curve first reaches limit, interpolated
// linearly between the levels on either side, held within [lox, hix]: a
// curve at or above limit from its first point gives lox, one that never
// reaches it hix (the limit lies beyond the steps).
func crossing(curve []point, limit, lox, hix float64) float64 {
	for i, c := range curve {
		if c.y < limit {
			continue
		}
		if i == 0 {
			return lox
		}
		p := curve[i-1]
		return p.x + (c.x-p.x)*(limit-p.y)/(c.y-p.y)
	}
	return hix
}

// EstimateCapacity sets c's sustainable rate and interval from its steps: the fits
// (Fit, c.Fits), the lowest crossing of a bracketed one, held at or below
// the lowest rate a step failed at on a limit no figure measures (memory,
// blocked writers, the rate itself); without a bracketed fit, the search's
// own step figure with the first unhealthy rate as the top of its interval.
// It also gives a row whose steps failed a first unhealthy rate and limit,
// and marks c Contended when any step ran on a busy machine (see Mark).
func EstimateCapacity(c *results.Capacity, th results.Thresholds) {
	c.StepMBps = c.SustainableMBps
	c.Fits = Fit(c.Steps, th, c.SLO)
	firstFailed(c)
	sus, lo, hi := c.StepMBps, c.StepMBps, c.StepMBps
	if c.FirstUnhealthyMBps > 0 {
		hi = c.FirstUnhealthyMBps
	}
	c.FitFigure = ""
	for _, f := range c.Fits {
		if f.Bracketed && (c.FitFigure == "" || f.CrossMBps < sus) {
			sus, lo, hi, c.FitFigure = f.CrossMBps, f.LoMBps, f.HiMBps, f.Figure
		}
	}
	if cap := unmeasuredFailure(c.Steps); c.FitFigure != "" && cap > 0 && cap < hi {
		sus, lo, hi = min(sus, cap), min(lo, cap), cap
	}
	c.SustainableMBps, c.SustainableLoMBps, c.SustainableHiMBps = sus, min(lo, sus), max(hi, sus)
	c.SetKnee()
	Mark(c)
}

// unmeasuredFailure is the lowest target a usable step failed at on a limit
// no fitted figure measures (0: none).
func unmeasuredFailure(steps []results.CapacityStep) float64 {
	low := 0.0
	for _, st := range steps {
		switch st.Limit {
		case results.LimitMemory, results.LimitBlocked, results.LimitRate:
			if usable(st) && (low == 0 || st.TargetMBps < low) {
				low = st.TargetMBps
			}
		}
	}
	return low
}

// firstFailed gives c a first unhealthy rate and its limit when its steps
// failed but the search left none (it stopped contended, or its failures
// lay below its figure): the lowest failed target above the step figure,
// else the lowest failed one.
func firstFailed(c *results.Capacity) {
	if c.FirstUnhealthyMBps > 0 && c.Limit != results.LimitNone {
		return
	}
	lowest := func(above float64) (float64, results.CapacityLimit) {
		t, l := 0.0, results.LimitNone
		for _, st := range c.Steps {
			if !st.Healthy && st.TargetMBps > above && (t == 0 || st.TargetMBps < t) {
				t, l = st.TargetMBps, st.Limit
			}
		}
		return t, l
	}
	t, l := c.FirstUnhealthyMBps, results.LimitNone
	if t == 0 {
		if t, l = lowest(c.StepMBps); t == 0 {
			t, l = lowest(0)
		}
	}
	for _, st := range c.Steps {
		if l == results.LimitNone && !st.Healthy && st.TargetMBps == t {
			l = st.Limit
		}
	}
	if t > 0 {
		c.FirstUnhealthyMBps = t
		if c.Limit == results.LimitNone {
			c.Limit = l
		}
	}
}

// Mark marks c Contended when any of its steps ran while other processes
// and steal took more than results.BusyCores: its figures then hold for
// the CPU the search got, a lower bound of the kind's capacity on a quiet
// machine, whichever limit stopped it. A search already contended (a step
// that failed on latency or rate while busy) keeps its reason.
func Mark(c *results.Capacity) {
	c.BusySteps = 0
	worst := 0.0
	for _, st := range c.Steps {
		if st.OthersCores > results.BusyCores {
			c.BusySteps++
			worst = max(worst, st.OthersCores)
		}
	}
	if c.BusySteps == 0 || c.Contended {
		return
	}
	c.Contended = true
	c.ContendedWhy = fmt.Sprintf("%d of %d steps ran while other processes and steal took more than %.2g cores (up to %.2f)",
		c.BusySteps, len(c.Steps), results.BusyCores, worst)
}
