// Package plan is gcstress's two searches over runs: the capacity search
// (capacity.go, whose doc states its invariants: the highest open-loop
// write rate at which the collector stays healthy) and the GOGC x
// GOMEMLIMIT frontier (this doc). Neither runs anything itself: a Runner
// runs each step or point (gcstress runs it as a child process), so every
// figure is a pure function of the Results it is given; no processes, no
// rendering.
//
// The frontier (the frontier set): for each kind, settings each run as one child at one open-loop
// rate and measured for GC CPU per GB against peak memory; the Pareto set
// of those points; the setting recommended for a container of a given
// size; and its confirmation run. A model-guided run (Plan.Adaptive)
// measures FitSettings, fits the GC cost model to them (FitCost) and
// measures only the setting it predicts cheapest within the container and
// a neighbour with less memory (Choose); a grid the user gave runs every
// setting. It runs nothing itself: a Plan's Runner runs each point
// (gcstress runs it as a child process) and its Point builds it, so every
// figure is a pure function of the Results it is given, and Grid,
// Measure, ClassOf, Steady, PoolCycleCost, MarkPareto, FitCost, Choose,
// Recommend, Confirm, Model and Plan.Estimate are pure functions.
//
// Invariants:
//   - Points are interleaved across kinds (setting major, kind minor) and,
//     with build environments (Plan.Envs), across environments within a
//     kind, so a drift of the machine reaches every kind and environment
//     alike. Each kind in each environment is a frontier of its own: its
//     Pareto set, model and recommendation see only its points (Env).
//   - Every point and confirmation settles first (its child writes closed
//     loop until its memory is steady, results.SettleSteady) and runs at
//     least its duration and until its GC cycles (Length,
//     results.RunDone), at most its cap.
//   - A point whose live heap met its GOMEMLIMIT while its collector ran
//     flat out (health.InSpiral at the scenario's degraded GC share,
//     idle-time marking included, results.SpiralWindows windows in a row) is
//     failed with cause results.CauseMemlimitSpiral; one that passed the
//     container (its hard RSS cap) is failed with results.CauseRSSCap; one
//     with fewer than results.FrontierMinCycles GC cycles after its
//     warm-up is inconclusive (results.CauseFewCycles): its GC CPU per GB
//     rests on too few cycles.
//   - The Pareto set, the model fit and the recommendation use only
//     measured points (healthy, elevated or degraded); failed and
//     inconclusive points never take part, but for the idle collector's
//     answer: when every setting that bounds the heap ran too few cycles,
//     GOGC does not matter at that rate, and that is the answer.
//   - The Pareto set, the model and the recommendation rank on the steady
//     figure (Steady): the GC CPU per GB of the point's effective setting
//     (ClassOf: a GOMEMLIMIT its heap goal never came near counts as
//     none, so such points are replicates), pooled over that setting's
//     points, with a standard error from the kind's scatter between
//     replicates; a point's own GC CPU per GB, which rests on a few cycles
//     of uneven cost, is reported but not ranked on.
//   - Recommend picks by the least-upper-bound rule: the least memory
//     among the fitting points whose steady figure is at most the least
//     figure plus standard error of any. It never picks a point that is
//     not healthy, whose peak RSS plus off-heap bytes passes the
//     container less its headroom, or whose p99 from intended start
//     passes the SLO. When none fits it picks nothing (Fits false, GOGC
//     0) and its reason names the nearest.
//   - Every candidate is confirmed by a run of its own (Confirm); one its
//     confirmation refutes is never recommended: the next candidate is
//     confirmed instead (at most MaxConfirms runs a kind), else there is
//     no recommendation. When Run returns, a recommendation either is
//     Confirmed or has GOGC and GOMEMLIMIT 0 and a Reason beginning
//     NoRecommendation.
package plan
