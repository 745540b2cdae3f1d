package frontier

import (
	"math"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// The steady figure. A grid point's own GC CPU per GB rests on a few GC
// cycles (two to thirty in 15 s) whose costs differ by ten times and
// more: a cycle's mark work follows the live heap at that moment, which
// an engine that buffers writes swings from empty to full memtables and
// back, so which few cycles a point happened to see decides its figure
// (heap at GOGC 400 read 0.5, 3.6, 0.7 and 0.9 s/GB across four limits
// that did not bind). Its GC cycles per GB is steady: it counts cycles,
// not their cost. The steady figure is a point's cycles per GB times the
// GC CPU a cycle costs, pooled over every measured point of the kind.

// relSEMedian is the standard error of a sample median in units of
// sigma/sqrt(n) for a normal sample (sqrt(pi/2)); madSigma turns a median
// absolute deviation into a sigma.
const (
	relSEMedian = 1.2533
	madSigma    = 1.4826
)

// CycleCost is a kind's pooled GC CPU per cycle. A plain value.
type CycleCost struct {
	PerCycle float64 // GC CPU-seconds per GC cycle: the median over the points
	RelSE    float64 // its relative standard error
	Points   int     // the points pooled
}

// PoolCycleCost is kind's GC CPU-seconds per cycle, the median over its
// measured points (with cycles over their span) of each point's own
// GCCPUSPerGB/CyclesPerGB: a median over points, so one point disturbed
// (a cycle slowed by another process) moves it little. Its relative
// standard error is the median's (relSEMedian times the MAD's sigma over
// the root of the points); with one point, that point's Poisson error
// (1/sqrt of its cycles). ok is false when no point has a cycle. A pure
// function.
func PoolCycleCost(points []results.FrontierPoint, kind string) (CycleCost, bool) {
	var costs []float64
	var cycles uint64
	for _, p := range points {
		if p.Kind != kind || !measured(p.Class) || p.CyclesPerGB <= 0 || p.SpanCycles == 0 || !finite(p.GCCPUSPerGB) {
			continue
		}
		costs = append(costs, p.GCCPUSPerGB/p.CyclesPerGB)
		cycles = p.SpanCycles
	}
	if len(costs) == 0 {
		return CycleCost{}, false
	}
	c := CycleCost{PerCycle: stat.Median(costs), Points: len(costs)}
	switch {
	case c.PerCycle <= 0:
		c.RelSE = 0
	case len(costs) == 1:
		c.RelSE = 1 / math.Sqrt(float64(cycles))
	default:
		c.RelSE = relSEMedian * madSigma * mad(costs, c.PerCycle) / c.PerCycle / math.Sqrt(float64(len(costs)))
	}
	return c, true
}

// Steady fills SteadyGCCPUSPerGB and SteadySE on every measured point
// with cycles over its span, per kind and build environment: its
// CyclesPerGB times the pooled PoolCycleCost of its kind in its
// environment; the standard error combines the Poisson error of the
// point's cycle count (1/sqrt(SpanCycles)) with the pooled cost's. Other
// points' are cleared. A pure function over the slice.
func Steady(points []results.FrontierPoint) {
	type series struct{ kind, env string }
	pools := map[series]CycleCost{}
	for i := range points {
		p := &points[i]
		p.SteadyGCCPUSPerGB, p.SteadySE = 0, 0
		if !measured(p.Class) || p.CyclesPerGB <= 0 || p.SpanCycles == 0 {
			continue
		}
		s := series{p.Kind, p.Env}
		c, ok := pools[s]
		if !ok {
			c, _ = PoolCycleCost(pointsIn(points, p.Env), p.Kind)
			pools[s] = c
		}
		p.SteadyGCCPUSPerGB = p.CyclesPerGB * c.PerCycle
		p.SteadySE = p.SteadyGCCPUSPerGB * math.Sqrt(1/float64(p.SpanCycles)+c.RelSE*c.RelSE)
	}
}

// figure is the GC CPU per GB the frontier ranks p on: its steady figure,
// or its own where it has none.
func figure(p results.FrontierPoint) float64 {
	if p.SteadyGCCPUSPerGB > 0 {
		return p.SteadyGCCPUSPerGB
	}
	return p.GCCPUSPerGB
}

// SpanPeakRSS is the highest RSS of r's windows that end within d of its
// start (plus half a window, for the window that ends at d): the peak
// over the span a grid point of duration d is a maximum over, for a
// confirmation run longer than d. 0 without such windows. A pure
// function.
func SpanPeakRSS(r results.Result, d time.Duration) uint64 {
	limit := d.Seconds() + r.Scenario.Window.Seconds()/2
	var peak uint64
	for _, w := range r.Windows {
		if w.T <= limit {
			peak = max(peak, w.RSS)
		}
	}
	return peak
}

// mad is the median absolute deviation of xs from m.
func mad(xs []float64, m float64) float64 {
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return stat.Median(d)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
