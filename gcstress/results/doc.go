// Package results is the schema of a gcstress run and what can be derived
// from it alone: the lines of samples.jsonl (Sample, SampleType,
// StopReason), a scenario (Scenario) and its Result, the run's Summary
// (summary.json) with its capacity searches (Capacity, CapacityStep,
// CapacityLimit) and machine figures (Machine), the classifier (Classify,
// ClassifyScenario, Health, WindowHealth) and replay (ReadResults,
// ReadSummary, MergeResults). The health vocabulary and the rules of one
// window (Class, Cause, Thresholds, ShareClass, OverGoal, LimiterEngaged,
// InSpiral) are package gcmetrics/health's, which gchealth applies to a
// running service; Class, Cause and Thresholds are aliases here.
//
// It is the leaf of gcstress's packages: every other (report, live,
// gcstress, cli) imports it and it imports none of them, nor gonum, nor
// net/http (`go list -deps` shows it), so a consumer of results folders
// needs nothing else.
//
// Invariants:
//   - The JSON names of every type here are the public contract of
//     samples.jsonl and summary.json (results[].scenario.name,
//     results[].verdict.class, results[].end, capacity[] ...): fields are
//     added, never renamed or removed; the CamelCase keys of older files
//     still decode (replay.go).
//   - Classify is a pure function of a scenario's windows, how its child
//     ended and the thresholds; replaying a stream (ReadResults) gives the
//     verdict the parent gave while it ran.
//   - The classes: healthy while the collector's share of busy CPU and the
//     assists charged to writers stay low; degraded once either reaches its
//     degraded threshold; failed when the collector cannot keep the heap
//     under GOMEMLIMIT (the live heap near the limit, the CPU limiter
//     engaged and throughput collapsed, for several windows in a row) or
//     the child dies or passes its memory cap. Because the /cpu/classes
//     counters advance only when a GC cycle ends, CPU shares are computed
//     over spans of consecutive windows merged until each span holds at
//     least one completed cycle; every raw window takes its span's class.
//   - "elevated" names a window between the healthy and degraded
//     thresholds; a scenario takes the worst class held by at least
//     Thresholds.Share (25%) of its windows after a warm-up (2 s), so one
//     stray window does not class a run; failure needs no share.
//   - A scenario with fewer than MinWindows (3) windows after the warm-up
//     is "inconclusive", never healthy, elevated or degraded (a failure
//     condition still fails it). A scenario's own warm-up
//     (Scenario.Warmup, set by the collapse group with its finer window)
//     replaces the thresholds' wherever the warm-up applies to it
//     (Scenario.EffectiveThresholds), in the run and in a replay alike.
//   - Footprint and Cost (the end record's per-entry and per-Put figures)
//     are derived from readings the child took; here they are only
//     carried and divided (NewFootprint, NewCost). The pointer-bearing
//     share is runtime/metrics' /gc/scan/heap:bytes, the scannable heap.
//   - Writers blocked: a scenario otherwise healthy or elevated whose
//     writers spent at least BlockedDegraded (50%) of their time after the
//     warm-up blocked by backpressure is degraded, with Health.Cause
//     CauseBlocked (ClassifyScenario, which knows the writer count; the
//     stall scenario is where it bites). A whole-scenario rule on recorded
//     figures, so replay gives the same class.
//   - Every window that is not healthy has a Cause, and a healthy one has
//     none; a scenario degraded by the blocked rule has Health.Cause. The
//     capacity search reads those causes and never re-tests a threshold on
//     raw figures.
//   - How an end line says a child ended (ExitOfEnd) is written once, for
//     the parent and for replay.
//   - ReadResults reads lines of at most MaxRecord bytes: a longer line, or
//     one that is not JSON, is skipped and counted (ReadSamples, SkipWarning),
//     never a reason to lose the rest. ReadSummary reads only a regular file
//     of at most MaxSummaryBytes (internal/inputfile), refusing anything else
//     before a byte is read. Every value here is a plain value, safe to copy,
//     and no function keeps its arguments.
package results
