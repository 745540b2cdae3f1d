package plan

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
// back, and the share of it the idle mark workers take (not counted as
// GC CPU) varies from cycle to cycle, so which few cycles a point
// happened to see decides its figure (heap at GOGC 400 read 0.65 to 3.6
// s/GB across four limits that did not bind). Its GC cycles per GB is
// steadier: it counts cycles, not their cost. The steady figure is the
// GC cycles per GB of the point's effective setting times the GC CPU a
// cycle costs, pooled over every measured point of the kind. The grid
// holds replicates of each setting: a point whose GOMEMLIMIT never bound
// (its heap goal stayed under bindFrac of the limit) ran the same
// collector as its GOGC with no limit, so its cycles and bytes pool with
// that setting's (ClassOf).

// bindFrac is the share of a point's GOMEMLIMIT its heap goal must reach
// for the limit to count as binding: under it the runtime's goal was
// GOGC's, and the point is a replicate of its GOGC with no limit.
const bindFrac = 0.9

// Class is the setting a point ran in effect: its kind, build
// environment and GOGC, and its GOMEMLIMIT where it bound (0 where it did
// not). A plain value.
type Class struct {
	Kind, Env string
	GOGC      int
	MemLimit  int64
}

// ClassOf is p's effective setting: a limit under which p's highest heap
// goal after the warm-up stayed below bindFrac of it did not bind (an
// unknown goal counts as binding). A pure function.
func ClassOf(p results.FrontierPoint) Class {
	c := Class{Kind: p.Kind, Env: p.Env, GOGC: p.GOGC, MemLimit: p.MemLimit}
	if c.MemLimit > 0 && p.HeapGoal > 0 && float64(p.HeapGoal) < bindFrac*float64(c.MemLimit) {
		c.MemLimit = 0
	}
	return c
}

// spanGB is the bytes (in 10^9) p's GC CPU per GB is over; 0 when it has
// no cycles.
func spanGB(p results.FrontierPoint) float64 {
	if p.SpanCycles == 0 || !(p.CyclesPerGB > 0) {
		return 0
	}
	return float64(p.SpanCycles) / p.CyclesPerGB
}

// pooled is one class's points: their bytes (10^9) and cycles summed,
// and how many.
type pooled struct {
	gb     float64
	cycles uint64
	n      int
}

// pools groups points' measured points with cycles into their classes.
func pools(points []results.FrontierPoint) map[Class]*pooled {
	out := map[Class]*pooled{}
	for _, p := range points {
		gb := spanGB(p)
		if !measured(p.Class) || gb <= 0 {
			continue
		}
		c := out[ClassOf(p)]
		if c == nil {
			c = &pooled{}
			out[ClassOf(p)] = c
		}
		c.gb, c.cycles, c.n = c.gb+gb, c.cycles+p.SpanCycles, c.n+1
	}
	return out
}

// Steady fills SteadyGCCPUSPerGB, SteadySE and SteadyPoints on every
// measured point with cycles over its span: its class's GC cycles per GB
// (see ClassOf; the class's cycles over its bytes) times its kind's
// pooled GC CPU per cycle (PoolCycleCost, in its environment); the
// standard error combines the Poisson error of the class's cycles with
// the pooled cost's. Other points' are cleared. A pure function over the
// slice.
func Steady(points []results.FrontierPoint) {
	ps := pools(points)
	type series struct{ kind, env string }
	costs := map[series]CycleCost{}
	for i := range points {
		p := &points[i]
		p.SteadyGCCPUSPerGB, p.SteadySE, p.SteadyPoints = 0, 0, 0
		c, ok := ps[ClassOf(*p)]
		if !ok || !measured(p.Class) || spanGB(*p) <= 0 {
			continue
		}
		s := series{p.Kind, p.Env}
		cost, ok := costs[s]
		if !ok {
			cost, _ = PoolCycleCost(pointsIn(points, p.Env), p.Kind)
			costs[s] = cost
		}
		f := float64(c.cycles) / c.gb * cost.PerCycle
		p.SteadyGCCPUSPerGB, p.SteadySE, p.SteadyPoints = f, f*math.Sqrt(1/float64(c.cycles)+cost.RelSE*cost.RelSE), c.n
	}
}

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

// figure is the GC CPU per GB the frontier ranks p on: its steady figure,
// or its own where it has none.
func figure(p results.FrontierPoint) float64 {
	if p.SteadyGCCPUSPerGB > 0 {
		return p.SteadyGCCPUSPerGB
	}
	return p.GCCPUSPerGB
}

// Span is the part of r a grid point of duration d would have measured:
// its windows that end within d of its start (plus half a window, for the
// window that ends at d), and of the end record only the scale its GC
// and assist CPU took (OnCPU; its figures are the whole run's). Measure of
// it gives the GC CPU per GB and the peak RSS over a grid point's span of
// a confirmation run longer than d. A pure function.
func Span(r results.Result, d time.Duration) results.Result {
	limit := d.Seconds() + r.Scenario.Window.Seconds()/2
	out := r
	out.End, out.Windows = nil, nil
	if r.End != nil {
		out.End = &results.Sample{}
		out.End.OnCPU = r.End.OnCPU
	}
	for _, w := range r.Windows {
		if w.T <= limit {
			out.Windows = append(out.Windows, w)
		}
	}
	return out
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
