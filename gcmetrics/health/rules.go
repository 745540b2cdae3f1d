package health

// ShareClass is the class and cause that a span's GC and assist shares (%)
// give its windows under th: degraded from DegradedGC or DegradedAssist,
// elevated from HealthyGC or HealthyAssist, else healthy (CauseNone); the
// GC share is looked at before the assist share. It is the rule gcstress's
// classifier applies to every span and gchealth to a running service's
// windows. A pure function; it allocates nothing.
func ShareClass(gcPct, assistPct float64, th Thresholds) (Class, Cause) {
	switch {
	case gcPct >= th.DegradedGC:
		return Degraded, CauseGCCPU
	case assistPct >= th.DegradedAssist:
		return Degraded, CauseAssist
	case gcPct >= th.HealthyGC:
		return Elevated, CauseGCCPU
	case assistPct >= th.HealthyAssist:
		return Elevated, CauseAssist
	}
	return Healthy, CauseNone
}

// OverGoal reports whether a window whose reading shows heapObjects bytes
// of heap objects and a heap goal of heapGoal passed its goal (a zero goal
// is unknown: never over). Such a window is at least degraded, cause
// CauseHeapOverGoal.
func OverGoal(heapObjects, heapGoal uint64) bool { return heapGoal != 0 && heapObjects > heapGoal }

// LimiterEngaged reports whether the GC CPU limiter engaged in a window:
// /gc/limiter/last-enabled:gc-cycle advanced past prevLast (its highest
// value before the window), or it names the cycle in progress (last at or
// above cycles, /gc/cycles/total at the same reading).
func LimiterEngaged(prevLast, last, cycles uint64) bool {
	return last > prevLast || (last > 0 && last >= cycles)
}

// The death-spiral rule's defaults (InSpiral's heapPct and spiralGCPct,
// and how many windows in a row make a spiral).
const (
	SpiralHeapPct = 95.0
	SpiralGCPct   = 50.0
	SpiralWindows = 3
)

// InSpiral says whether one window meets the death-spiral condition: a
// GOMEMLIMIT (memLimit > 0) that the live heap reaches to heapPct percent
// while the collector runs flat out (gcPct, its span's GC CPU share, at
// or above spiralGCPct, or the limiter engaged). A pure function: the one
// rule of gchealth and gcstress's frontier, which each count the windows
// in a row.
func InSpiral(heapLive, memLimit uint64, gcPct float64, limiter bool, heapPct, spiralGCPct float64) bool {
	return memLimit > 0 && float64(heapLive) >= heapPct/100*float64(memLimit) && (gcPct >= spiralGCPct || limiter)
}
