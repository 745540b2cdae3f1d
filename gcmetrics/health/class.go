package health

// Class is the health of a window or of a whole scenario, from the
// collector's and the writers' point of view:
//   - healthy: the GC takes a small share of busy CPU (below
//     Thresholds.HealthyGC) and mutator assists a smaller one (below
//     Thresholds.HealthyAssist);
//   - degraded: the GC share or the assist share reached its degraded
//     threshold, or the heap outgrew its goal; or (a scenario, not a
//     window) its writers were blocked by backpressure for at least
//     BlockedDegraded of their time after the warm-up;
//   - failed: the collector could not hold the heap (live heap near
//     GOMEMLIMIT with the CPU limiter engaged and throughput collapsed, for
//     several windows in a row), or the process passed its hard memory cap
//     or died.
//
// Elevated is the band in between healthy and degraded (GC CPU 10-25% or
// assists 2-5% by default): no longer healthy, not yet degraded.
//
// Interrupted is no health: it is the class of a scenario whose run was
// stopped before its load ended, whether or not it left a record of the
// part that ran, unless its windows had already failed it: a partial run
// is never called healthy. Windows never take it.
//
// Inconclusive is no health either: the scenario ended normally but fewer
// than MinWindows of its windows ended after the warm-up, too little data
// for a class (a failure condition still fails it). Windows never take it.
//
// The values are JSON strings (summary.json's results[].verdict.class) and
// do not change.
type Class string

// Health classes, from best to worst.
const (
	Healthy  Class = "healthy"
	Elevated Class = "elevated"
	Degraded Class = "degraded"
	Failed   Class = "failed"
	// Interrupted is outside the health scale (rank -1): see Class.
	Interrupted Class = "interrupted"
	// Inconclusive is outside the health scale (rank -1): see Class.
	Inconclusive Class = "inconclusive"
)

// Rank orders the health classes: 0 healthy to 3 failed; -1 for
// Interrupted, Inconclusive or an unknown class.
func (c Class) Rank() int {
	switch c {
	case Healthy:
		return 0
	case Elevated:
		return 1
	case Degraded:
		return 2
	case Failed:
		return 3
	}
	return -1
}

// MinWindows is the fewest windows that must end after the warm-up for a
// scenario to be classed healthy, elevated or degraded; with fewer it is
// Inconclusive. Three windows let one stray window not decide the class
// (Thresholds.Share) and hold at least one completed GC cycle at any
// realistic write rate.
const MinWindows = 3

// BlockedDegraded is the share (%) of the writers' time after the warm-up
// that, spent blocked by backpressure, degrades a scenario however cheap
// its collector was: writers stalled on flushes that cannot keep up are no
// healthy store. It is a whole-scenario rule: a blocked write is counted
// when it returns, so one window's share says little.
const BlockedDegraded = 50.0
