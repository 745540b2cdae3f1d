package health

// Cause names what made a window, a scenario or a frontier point
// unhealthy: the classifier sets one on every window that is not healthy,
// and the capacity search maps it to its limit. The values are JSON
// strings (summary.json's results[].verdict.windows[].cause,
// results[].verdict.cause, frontier[].points[].cause) and Prometheus label
// values, and do not change.
type Cause string

// Window causes. A window takes the cause of the condition that set its
// class: its span's GC or assist share (the degraded share first, then the
// elevated one), a heap past its goal that degraded it, or the failure
// condition (memory).
const (
	CauseNone         Cause = ""               // a healthy window
	CauseGCCPU        Cause = "gc_cpu"         // the span's GC CPU share
	CauseAssist       Cause = "assist"         // the span's assist share
	CauseHeapOverGoal Cause = "heap_over_goal" // heap objects past the heap goal
	CauseMemory       Cause = "memory"         // the failure condition: live heap near GOMEMLIMIT, limiter on, throughput collapsed
)

// Scenario causes: what set a scenario's class when no window did (never a
// window's).
const (
	// CauseBlocked: the writers were blocked by backpressure for
	// BlockedDegraded of their time: degraded.
	CauseBlocked Cause = "blocked"
	// CauseNoCycle: a mixed workload's measured phase completed no GC
	// cycle: inconclusive. With one, CauseFewCycles.
	CauseNoCycle Cause = "no-gc-cycle"
)

// Frontier causes (a frontier point's; a window never takes them).
const (
	// CauseMemlimitSpiral: the GOMEMLIMIT death spiral (InSpiral) held
	// for SpiralWindows windows in a row: failed. The same string is a
	// live service's cause of a failing window (package gchealth).
	CauseMemlimitSpiral Cause = "memlimit-spiral"
	// CauseRSSCap: the point's RSS passed the container (its hard cap),
	// or its process died: failed.
	CauseRSSCap Cause = "rss-cap"
	// CauseFewCycles: too few GC cycles completed after the warm-up for a
	// GC CPU per GB: inconclusive. Also a mixed workload's scenario cause
	// when its measured phase completed one cycle.
	CauseFewCycles Cause = "few-cycles"
)
