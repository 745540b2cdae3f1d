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

// Budget is what a setting may use of a container of container bytes with
// headroom (0..1) kept for what the runtime cannot see.
func Budget(container int64, headroom float64) int64 {
	return container - int64(headroom*float64(container))
}

// Need is what a point takes of the container: its peak RSS plus the
// off-heap bytes its engine reported (an engine whose off-heap bytes are
// also resident is counted twice: the check errs on the safe side).
func Need(p results.FrontierPoint) int64 { return int64(p.PeakRSS) + p.OffHeapBytes }

// Limits are what a recommended setting must meet. A plain value.
type Limits struct {
	Container int64         // bytes; the hard RSS cap every point ran under
	Headroom  float64       // share of Container kept free (0..1)
	SLO       time.Duration // p99 from intended start; 0: none
}

// fits says whether p may be recommended under l, and if not, why.
func (l Limits) fits(p results.FrontierPoint) (bool, string) {
	switch budget := Budget(l.Container, l.Headroom); {
	case p.Class != results.Healthy && !p.Borderline:
		// A borderline elevated point is a candidate: its confirmation decides.
		return false, string(p.Class)
	case Need(p) > budget:
		return false, fmt.Sprintf("needs %s > %s", memText(p), results.MiB(uint64(budget)))
	case l.SLO > 0 && p.ILatP99 > int64(l.SLO):
		return false, fmt.Sprintf("p99 %s > %v", durText(p.ILatP99), l.SLO)
	}
	return true, ""
}

// Recommend picks, among kind's points that fit (healthy or borderline
// (FrontierPoint.Borderline: within the noise of the healthy line), Need within
// the container less its headroom, p99 from intended start within the
// SLO), by the least-upper-bound rule (byBound) on the steady figure
// (Steady; a point's own GC CPU per GB where it has none): the least
// figure plus standard error of any fitting point is the bar, and of the
// fitting points at or under it the one with the least Need (then the
// least figure) is picked.
// The reason says why, in one sentence, with the cost against Go's
// default (GOGC 100, no GOMEMLIMIT). When none fits, GOGC and MemLimit
// are 0 (Fits false) and the reason names the nearest point (the least
// excess over the limits among the points not failed). A pure function.
func Recommend(points []results.FrontierPoint, kind string, l Limits) results.Recommendation {
	rec := results.Recommendation{Kind: kind}
	var fit []*results.FrontierPoint
	var base *results.FrontierPoint
	for i := range points {
		p := &points[i]
		if p.Kind != kind {
			continue
		}
		rec.Value = p.Value
		if SettingOf(*p).IsDefault() {
			base = p
		}
		if ok, _ := l.fits(*p); ok {
			fit = append(fit, p)
		}
	}
	if len(fit) == 0 {
		if idle := idleFits(points, kind, l); len(idle) > 0 {
			return withFraction(idleCollector(rec, idle, l), l)
		}
		return noneFits(rec, points, l)
	}
	bound, best, within := byBound(fit)
	rec.GOGC, rec.MemLimit, rec.Fits = best.GOGC, best.MemLimit, true
	rec.PredictedGCCPUSPerGB, rec.PredictedGCCPUSE, rec.PredictedPeakRSS = figure(*best), best.SteadySE, best.PeakRSS
	if c, ok := PoolCycleCost(points, kind); ok {
		rec.CycleCost = c.PerCycle
	}
	rec.Reason = fmt.Sprintf("%s: %s, peak %s of %s; of the %d healthy setting(s) within %s, %s",
		FractionLabel(SettingOf(*best), l.Container), versusDefault(*best, base, l), memText(*best), results.MiB(uint64(l.Container)),
		len(fit), limitsText(l), pickText(*bound, *best, within))
	if best.Borderline {
		rec.Reason += fmt.Sprintf("; its point was %s with GC CPU %.1f%% ± %.1f%% of busy CPU, on the line between healthy and elevated, which its confirmation decides",
			best.Class, best.GCPct, best.GCPctSE)
	}
	return withFraction(rec, l)
}

// FractionLabel is s's Label with its GOMEMLIMIT as a share of the
// container: "GOGC 200 with GOMEMLIMIT 410 MiB (80% of the container)".
func FractionLabel(s Setting, container int64) string {
	if s.MemLimit <= 0 || container <= 0 {
		return s.Label()
	}
	return fmt.Sprintf("%s (%.0f%% of the container)", s.Label(), 100*float64(s.MemLimit)/float64(container))
}

// withFraction fills rec's GOMEMLIMIT as a fraction of l's container.
func withFraction(rec results.Recommendation, l Limits) results.Recommendation {
	rec.MemLimitFraction = 0
	if rec.MemLimit > 0 && l.Container > 0 {
		rec.MemLimitFraction = float64(rec.MemLimit) / float64(l.Container)
	}
	return rec
}

// byBound applies the least-upper-bound rule to the fitting points: the
// bound is the point whose figure plus its SteadySE is least (then the
// least Need); the pick is the least Need (then the least figure) among
// the points whose figure is at most that bound; within counts them. The
// least figure of a noisy set is biased low (a point that measured cheap
// by chance wins), so the bar is set by the setting whose cost is best
// established, and a setting no cheaper within it is preferred when it
// takes less memory.
func byBound(fit []*results.FrontierPoint) (bound, pick *results.FrontierPoint, within int) {
	upper := func(p *results.FrontierPoint) float64 { return figure(*p) + p.SteadySE }
	for _, p := range fit {
		if bound == nil || upper(p) < upper(bound) || (upper(p) == upper(bound) && Need(*p) < Need(*bound)) {
			bound = p
		}
	}
	bar := upper(bound)
	for _, p := range fit {
		if figure(*p) > bar {
			continue
		}
		within++
		if pick == nil || Need(*p) < Need(*pick) || (Need(*p) == Need(*pick) && figure(*p) < figure(*pick)) {
			pick = p
		}
	}
	return bound, pick, within
}

// pickText says how the least-upper-bound rule chose best.
func pickText(bound, best results.FrontierPoint, within int) string {
	if best.SteadyGCCPUSPerGB <= 0 {
		return "the least GC CPU per GB"
	}
	if SettingOf(best) == SettingOf(bound) {
		return fmt.Sprintf("the least upper bound on GC CPU per GB (%.3g ± %.2g s/GB, pooled over the %d points of its effective setting) and the least memory of the %d at most that",
			figure(best), best.SteadySE, best.SteadyPoints, within)
	}
	return fmt.Sprintf("the least memory of the %d whose GC CPU per GB is at most the least upper bound, %s's %.3g ± %.2g s/GB (this one %.3g ± %.2g, pooled over the %d points of its effective setting)",
		within, SettingOf(bound).Label(), figure(bound), bound.SteadySE, figure(best), best.SteadySE, best.SteadyPoints)
}

// versusDefault is a pick's cost against the default's point.
func versusDefault(best results.FrontierPoint, base *results.FrontierPoint, l Limits) string {
	switch {
	case SettingOf(best).IsDefault():
		return fmt.Sprintf("Go's default (%.3g GC CPU-s per GB)", figure(best))
	case base == nil:
		return fmt.Sprintf("%.3g GC CPU-s per GB (the grid has no GOGC 100 without a limit to compare with)", figure(best))
	case figure(*base) <= 0 || !measured(base.Class):
		return fmt.Sprintf("%.3g GC CPU-s per GB (the default, GOGC 100 with no GOMEMLIMIT, was %s)", figure(best), base.Class)
	}
	pct := 100 * (1 - figure(best)/figure(*base))
	s := fmt.Sprintf("%.0f%% less GC CPU per GB than the default (%.3g vs %.3g s/GB)", pct, figure(best), figure(*base))
	if pct < 0 {
		why := "for less memory"
		if ok, no := l.fits(*base); !ok {
			why = "which does not fit (" + no + ")"
		}
		s = fmt.Sprintf("%.0f%% more GC CPU per GB than the default (%.3g vs %.3g s/GB), %s", -pct, figure(best), figure(*base), why)
	}
	return s
}

// idleFits are kind's points that would fit but for too few GC cycles:
// inconclusive for few cycles under a setting that bounds the heap (GOGC
// on, or a GOMEMLIMIT), within the container and the SLO. With such a
// setting the collector runs when the heap reaches its goal, so a point
// with no cycle (or one) is a store whose heap did not grow to it in the
// span: at that rate it costs the collector next to nothing. GOGC off
// with no limit bounds nothing: its lack of cycles says nothing.
func idleFits(points []results.FrontierPoint, kind string, l Limits) []*results.FrontierPoint {
	var out []*results.FrontierPoint
	for i := range points {
		p := &points[i]
		if p.Kind != kind || p.Class != results.Inconclusive || p.Cause != results.CauseFewCycles || SettingOf(*p).Unbounded() {
			continue
		}
		q := *p
		q.Class = results.Healthy
		if ok, _ := l.fits(q); ok {
			out = append(out, p)
		}
	}
	return out
}

// idleCollector is the answer for a kind whose collector (nearly) never
// ran at this rate: GOGC does not matter. Its points are replicates of
// one behaviour (the setting changes neither the GC's cost nor, beyond
// run-to-run scatter, the peak RSS), so it keeps Go's GOGC and sets a
// GOMEMLIMIT at the container's budget less the engine's off-heap bytes
// (idleLimit): a bound the heap stays far under at this rate, which
// still makes the collector run before the container's limit should the
// heap grow. Its predicted peak RSS is the highest of the points': they
// scatter around one level, and the confirmation is held to it.
func idleCollector(rec results.Recommendation, idle []*results.FrontierPoint, l Limits) results.Recommendation {
	rss := make([]float64, len(idle))
	var off int64
	for i, p := range idle {
		rss[i], off = float64(p.PeakRSS), max(off, p.OffHeapBytes)
	}
	lo, hi, med := slices.Min(rss), slices.Max(rss), stat.Median(rss)
	rec.GOGC, rec.Fits, rec.Idle, rec.PredictedPeakRSS = 100, true, true, uint64(hi)
	limit := idleLimit(l, off)
	what := fmt.Sprintf("set no GOMEMLIMIT (the container less its %.0f%% headroom and the engine's %s off-heap leaves %s, under the peak)",
		100*l.Headroom, results.MiB(uint64(off)), results.MiB(uint64(max(limit, 0))))
	if float64(limit) > med {
		rec.MemLimit = limit
		what = fmt.Sprintf("set GOMEMLIMIT %.0f%% of the container (%s: the container less its %.0f%% headroom", 100*float64(limit)/float64(l.Container), results.MiB(uint64(limit)), 100*l.Headroom)
		if off > 0 {
			what += fmt.Sprintf(" and the engine's %s off-heap", results.MiB(uint64(off)))
		}
		what += ") for headroom"
	}
	rec.Reason = fmt.Sprintf("GOGC does not matter at this rate: the collector ran fewer than %d GC cycles in every one of the %d setting(s) that bound the heap and fit, peak RSS %s to %s (median %s); keep GOGC 100 and %s",
		results.FrontierMinCycles, len(idle), results.MiB(uint64(lo)), results.MiB(uint64(hi)), results.MiB(uint64(med)), what)
	return rec
}

// idleLimit is the GOMEMLIMIT of the idle answer: the container's budget
// less the engine's off-heap bytes, which GOMEMLIMIT does not see.
func idleLimit(l Limits, offHeap int64) int64 {
	return Budget(l.Container, l.Headroom) - offHeap
}

// noneFits is the recommendation when no point fits: the nearest named.
func noneFits(rec results.Recommendation, points []results.FrontierPoint, l Limits) results.Recommendation {
	var near *results.FrontierPoint
	nearScore := math.Inf(1)
	for i := range points {
		p := &points[i]
		if p.Kind != rec.Kind || p.Class == results.Failed || p.Class == results.Interrupted {
			continue
		}
		if s := excess(*p, l); s < nearScore || (s == nearScore && p.GCCPUSPerGB < near.GCCPUSPerGB) {
			near, nearScore = p, s
		}
	}
	rec.Reason = fmt.Sprintf("%s: no setting fits: none is healthy within %s", NoRecommendation, limitsText(l))
	if near == nil {
		rec.Reason += "; every point failed or was interrupted"
		return rec
	}
	_, why := l.fits(*near)
	rec.NearestGOGC, rec.NearestMemLimit = near.GOGC, near.MemLimit
	rec.Reason += fmt.Sprintf("; the nearest is %s (%s: peak %s, p99 %s, %.3g GC CPU-s per GB)",
		SettingOf(*near).Label(), why, memText(*near), durText(near.ILatP99), near.GCCPUSPerGB)
	return rec
}

// excess is how far p lies outside l: its memory over the budget and its
// p99 over the SLO, each relative, plus one per class below healthy.
func excess(p results.FrontierPoint, l Limits) float64 {
	s := 0.0
	if b := Budget(l.Container, l.Headroom); b > 0 && Need(p) > b {
		s += float64(Need(p)-b) / float64(b)
	}
	if l.SLO > 0 && p.ILatP99 > int64(l.SLO) {
		s += float64(p.ILatP99-int64(l.SLO)) / float64(l.SLO)
	}
	if r := p.Class.Rank(); r > 0 {
		s += float64(r)
	} else if r < 0 {
		s++ // inconclusive: no figure to trust
	}
	return s
}

func limitsText(l Limits) string {
	s := fmt.Sprintf("%s (%s less %.0f%% headroom)", results.MiB(uint64(Budget(l.Container, l.Headroom))), results.MiB(uint64(l.Container)), 100*l.Headroom)
	if l.SLO > 0 {
		s += fmt.Sprintf(" with p99 from intended start within %v", l.SLO)
	}
	return s
}

// memText is a point's peak RSS, with its off-heap bytes when it has any.
func memText(p results.FrontierPoint) string {
	if p.OffHeapBytes > 0 {
		return fmt.Sprintf("%s + %s off-heap", results.MiB(p.PeakRSS), results.MiB(uint64(p.OffHeapBytes)))
	}
	return results.MiB(p.PeakRSS)
}

func durText(ns int64) string {
	return time.Duration(ns).Round(10 * time.Microsecond).String()
}

// GuideSlope is the GC guide's model: GC CPU inversely proportional to
// GOGC, a slope of -1 in log-log.
const GuideSlope = -1.0

// Model fits log(GC CPU per GB) against log(GOGC) over kind's measured
// points without a GOMEMLIMIT and with a GOGC (not off) and a GC figure,
// by least squares: Slope on the steady figure (figure: Steady's, a
// point's own where it has none), RawSlope on each point's own GC CPU
// per GB; ok is false with fewer than two GOGC values. A pure function.
func Model(points []results.FrontierPoint, kind string) (m results.FrontierModel, ok bool) {
	m = results.FrontierModel{Kind: kind, GuideSlope: GuideSlope}
	var xs, ys, raw []float64
	var fit []results.FrontierPoint
	lo, hi := math.MaxInt, 0
	for _, p := range points {
		if p.Kind != kind || p.MemLimit != 0 || p.GOGC <= 0 || p.GCCPUSPerGB <= 0 || figure(p) <= 0 || !measured(p.Class) {
			continue
		}
		xs, ys, raw = append(xs, math.Log(float64(p.GOGC))), append(ys, math.Log(figure(p))), append(raw, math.Log(p.GCCPUSPerGB))
		lo, hi = min(lo, p.GOGC), max(hi, p.GOGC)
		fit = append(fit, p)
	}
	m.Points = len(xs)
	if lo >= hi {
		m.Note = fmt.Sprintf("%s: too few measured GOGC values without a GOMEMLIMIT (%d) for a slope", kind, len(xs))
		return m, false
	}
	m.Slope, m.RawSlope = slope(xs, ys), slope(xs, raw)
	m.GCFalls, m.RSSRises = trends(fit)
	m.Note = fmt.Sprintf("%s: steady GC CPU per GB against GOGC (%d points, GOGC %d to %d, no GOMEMLIMIT) has a log-log slope of %.2f (each point's own figure: %.2f): each doubling of GOGC multiplies it by %.2f; the GC guide's inverse law says %.0f (x%.2f); as GOGC rose, steady GC CPU per GB %s and peak RSS %s",
		kind, m.Points, lo, hi, m.Slope, m.RawSlope, math.Pow(2, m.Slope), GuideSlope, math.Pow(2, GuideSlope), word(m.GCFalls, "fell at every step", "did not fall at every step"),
		word(m.RSSRises, "rose at every step", "did not rise at every step"))
	return m, true
}

// trends says whether, in GOGC order, every step up lowered the GC CPU
// per GB (figure) and raised the peak RSS.
func trends(ps []results.FrontierPoint) (gcFalls, rssRises bool) {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b results.FrontierPoint) int { return cmp.Compare(a.GOGC, b.GOGC) })
	gcFalls, rssRises = true, true
	for i := 1; i < len(ps); i++ {
		gcFalls = gcFalls && figure(ps[i]) < figure(ps[i-1])
		rssRises = rssRises && ps[i].PeakRSS > ps[i-1].PeakRSS
	}
	return gcFalls, rssRises
}

func word(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// slope is the least-squares slope of ys on xs (at least two distinct xs).
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
