package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// The model-guided frontier (Plan.Adaptive): rather than every setting of
// the grid, it measures FitSettings for each kind, fits the GC cost model
// to them (FitCost), predicts every candidate setting (CostModel.Predict),
// and measures only the cheapest predicted to fit the container less its
// headroom and a neighbour with less memory (Choose); the recommendation
// and its confirmation then rest on measured points alone.
//
// The model is the collector's pacing: a cycle starts when the heap has
// grown from the live heap to its goal, so the GC cycles per GB written
// are K / (goal - live), where K (bytes the heap grows per GB written) is
// a property of the store at its rate, measured at the fit settings; the
// goal is live x (1 + GOGC/100), at most GOMEMLIMIT; a cycle costs the
// kind's pooled GC CPU per cycle (it marks the live heap, which the
// setting does not change); the peak RSS is the goal plus what the
// process holds beside the heap (the fit points' peak RSS over their heap
// goal), and the container must also hold the engine's off-heap bytes.

// FitSettings are the settings a model-guided run measures first for
// every kind: Go's default and GOGC 50, neither with a GOMEMLIMIT. GOGC
// 50 runs twice the cycles per GB of the default, so the two give the
// cost of a cycle and the heap's growth per GB from as many cycles as a
// point's length allows, and the model's check of the GC guide's law.
var FitSettings = []Setting{{GOGC: 100}, {GOGC: 50}}

// Model margins: a candidate is predicted to fit when its predicted need
// is within the budget less FitMargin (the model's memory figure is a
// median over two points); the neighbour is the cheapest predicted with
// at most NeighbourShare of the pick's need.
const (
	FitMargin      = 0.05
	NeighbourShare = 0.9
)

// CostModel is a kind's fitted GC cost model (FitCost). A plain value.
type CostModel struct {
	Live      float64 // bytes: the fit points' median live heap
	Growth    float64 // bytes the heap grows per GB written (K)
	CycleCost float64 // GC CPU-seconds per cycle (PoolCycleCost)
	Beside    float64 // bytes the process holds beside the heap goal at its peak
	OffHeap   int64   // the most off-heap bytes the engine reported
	Points    int     // the measured points fitted
}

// FitCost fits kind's cost model to its measured points without a
// GOMEMLIMIT that completed GC cycles (of build environment env: the
// points given should be one environment's); ok is false when there is
// none. A pure function.
func FitCost(points []results.FrontierPoint, kind string) (CostModel, bool) {
	var live, growth, beside []float64
	m := CostModel{}
	for _, p := range points {
		if p.Kind != kind {
			continue
		}
		m.OffHeap = max(m.OffHeap, p.OffHeapBytes)
		if !measured(p.Class) || p.MemLimit != 0 || p.GOGC <= 0 || p.LiveHeap == 0 || p.HeapGoal <= p.LiveHeap || !(p.CyclesPerGB > 0) {
			continue
		}
		live = append(live, float64(p.LiveHeap))
		growth = append(growth, p.CyclesPerGB*float64(p.HeapGoal-p.LiveHeap))
		beside = append(beside, max(float64(p.PeakRSS)-float64(p.HeapGoal), 0))
	}
	c, ok := PoolCycleCost(points, kind)
	if len(live) == 0 || !ok {
		return m, false
	}
	m.Live, m.Growth, m.Beside, m.CycleCost, m.Points = stat.Median(live), stat.Median(growth), stat.Median(beside), c.PerCycle, len(live)
	return m, true
}

// Prediction is one setting's predicted GC CPU per GB and need (peak RSS
// plus off-heap bytes). A plain value.
type Prediction struct {
	Setting
	GCCPUSPerGB float64 // +Inf: a goal at or under the live heap (the death spiral)
	CyclesPerGB float64 // +Inf likewise
	Need        int64
}

// Predict is s's prediction under m; ok is false for a setting that
// bounds nothing (GOGC off with no GOMEMLIMIT: no goal, no cycle, the
// heap grows with the garbage). A pure function.
func (m CostModel) Predict(s Setting) (Prediction, bool) {
	goal := math.Inf(1)
	if s.GOGC > 0 {
		goal = m.Live * (1 + float64(s.GOGC)/100)
	}
	if s.MemLimit > 0 {
		goal = min(goal, float64(s.MemLimit))
	}
	if math.IsInf(goal, 1) {
		return Prediction{}, false
	}
	p := Prediction{Setting: s, Need: int64(goal+m.Beside) + m.OffHeap, GCCPUSPerGB: math.Inf(1), CyclesPerGB: math.Inf(1)}
	if g := goal - m.Live; g > 0 {
		p.CyclesPerGB = m.Growth / g
		p.GCCPUSPerGB = m.CycleCost * p.CyclesPerGB
	}
	return p, true
}

// Choose predicts every candidate under m and picks the cheapest whose
// need is within l's budget less FitMargin (then the least need), and
// its neighbour: the cheapest with at most NeighbourShare of the pick's
// need (none when no candidate takes that much less). ok is false when no
// candidate is predicted to fit. A pure function.
func Choose(m CostModel, candidates []Setting, l Limits) (pick, neighbour Prediction, hasNeighbour, ok bool) {
	budget := float64(Budget(l.Container, l.Headroom)) * (1 - FitMargin)
	var fit []Prediction
	for _, s := range candidates {
		if p, ok := m.Predict(s); ok && float64(p.Need) <= budget && !math.IsInf(p.GCCPUSPerGB, 1) {
			fit = append(fit, p)
		}
	}
	if len(fit) == 0 {
		return Prediction{}, Prediction{}, false, false
	}
	slices.SortStableFunc(fit, func(a, b Prediction) int {
		return cmp.Or(cmp.Compare(a.GCCPUSPerGB, b.GCCPUSPerGB), cmp.Compare(a.Need, b.Need))
	})
	pick = fit[0]
	for _, p := range fit[1:] {
		if float64(p.Need) <= NeighbourShare*float64(pick.Need) {
			return pick, p, true, true
		}
	}
	return pick, Prediction{}, false, true
}

// PredictionText says what the model fitted and chose, in one sentence.
func PredictionText(kind string, m CostModel, pick, neighbour Prediction, hasNeighbour bool, l Limits) string {
	s := fmt.Sprintf("%s: the model (live heap %s, the heap growing %.2g bytes per byte written, %.3g GC CPU-s a cycle, %s beside the heap goal, from %d point(s)) predicts %s cheapest within %s: %.3g GC CPU-s per GB, need %s",
		kind, results.MiB(uint64(m.Live)), m.Growth/1e9, m.CycleCost, results.MiB(uint64(m.Beside)), m.Points,
		pick.Label(), results.MiB(uint64(float64(Budget(l.Container, l.Headroom))*(1-FitMargin))), pick.GCCPUSPerGB, results.MiB(uint64(pick.Need)))
	if hasNeighbour {
		s += fmt.Sprintf("; its neighbour with less memory %s: %.3g s/GB, need %s", neighbour.Label(), neighbour.GCCPUSPerGB, results.MiB(uint64(neighbour.Need)))
	}
	return s
}
