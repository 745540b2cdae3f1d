// Package health is writegc's one vocabulary and rule book for the health
// of a Go collector: the classes (Class: healthy, elevated, degraded,
// failed, and the two non-verdicts interrupted and inconclusive), the
// causes that explain them (Cause), the classifier's settings (Thresholds,
// DefaultThresholds) and the rules every classifier applies to one
// window's figures: ShareClass (GC and assist shares of busy CPU),
// OverGoal (heap objects past the heap goal), LimiterEngaged (the GC CPU
// limiter) and InSpiral (the GOMEMLIMIT death spiral). gcstress's
// classifier (package gcstress/results) judges a recorded scenario with
// them, and gchealth a running service: a write path in the lab and a
// service in production are judged alike, by the same code.
//
// The figures it judges are gcmetrics' (shares of the CPU the process
// used, idle-priority marking left out); it takes them as plain numbers
// and reads nothing itself.
//
// Invariants:
//   - A leaf: it imports nothing of writegc (not even gcmetrics) and
//     nothing but the standard library; internal/lint checks it. gchealth
//     depends on it and on nothing of gcstress.
//   - Every function here is pure and allocates nothing but its error or
//     its String; every type is a plain value, safe to copy.
//   - The string values of Class and Cause are JSON strings of
//     summary.json and samples.jsonl and Prometheus label values: values
//     are added, never renamed or removed. Thresholds' JSON keys likewise;
//     the CamelCase keys of older files still decode.
//   - The scale: Rank orders Healthy (0), Elevated, Degraded, Failed (3);
//     Interrupted and Inconclusive are off the scale (rank -1) and no
//     window takes them.
//   - ShareClass looks at the GC share before the assist share and at the
//     degraded thresholds before the healthy ones, so a class's cause is
//     the worst condition, GC first; it returns CauseNone exactly when it
//     returns Healthy.
//   - The death spiral needs GOMEMLIMIT: with none (memLimit 0) no window
//     is in the spiral, whatever its GC share. A heap goal of 0 is unknown,
//     never passed.
//   - Validate accepts exactly the thresholds a classifier can apply:
//     percentages from 0 to 100 (NaN refused), healthy at or below
//     degraded, at least one failing window, no negative warm-up; its
//     error is a *ThresholdError naming the flag that sets the field.
package health
