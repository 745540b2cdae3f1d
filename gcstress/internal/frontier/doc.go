// Package frontier is gcstress's GOGC x GOMEMLIMIT frontier (the frontier
// set): for each kind, a grid of settings, each one child run at one
// open-loop rate, measured for GC CPU per GB against peak memory; the
// Pareto set of those points; the setting recommended for a container of
// a given size; and a longer confirmation run that checks the grid's
// prediction for it. It runs nothing itself: a Plan's Runner runs each
// point (gcstress runs it as a child process) and its Point builds it, so
// every figure is a pure function of the Results it is given, and Grid,
// Measure, ClassOf, Steady, PoolCycleCost, MarkPareto, Recommend, Span,
// Confirm and Model are pure functions.
//
// Invariants:
//   - Points are interleaved across kinds (setting major, kind minor) and,
//     with build environments (Plan.Envs), across environments within a
//     kind, so a drift of the machine reaches every kind and environment
//     alike. Each kind in each environment is a frontier of its own: its
//     Pareto set, model and recommendation see only its points (Env).
//   - A point whose live heap met its GOMEMLIMIT while its collector ran
//     flat out (results.InSpiral at the scenario's degraded GC share,
//     results.SpiralWindows windows in a row) is
//     failed with cause results.CauseMemlimitSpiral; one that passed the
//     container (its hard RSS cap) is failed with results.CauseRSSCap; one
//     with fewer than results.FrontierMinCycles GC cycles after its
//     warm-up is inconclusive (results.CauseFewCycles): its GC CPU per GB
//     rests on too few cycles.
//   - The Pareto set and the model fit use only measured points (healthy,
//     elevated or degraded); failed and inconclusive points never take part.
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
//     not healthy, whose peak RSS
//     plus off-heap bytes passes the container less its headroom, or whose
//     p99 from intended start passes the SLO. When none fits it picks
//     nothing (Fits false, GOGC 0) and its reason names the nearest.
//   - The confirmation runs only for a setting that fits, for longer than a
//     grid point; it is confirmed only when it is not failed, its GC CPU
//     per GB and peak RSS over a grid point's span (Span) lie within
//     results.FrontierConfirmTolerance of the prediction, and its GC CPU
//     per GB over the whole run is not above the prediction by more.
package frontier
