// Package benchgate is writegc's benchmark regression gate: it reads Go
// benchmark output (the format of golang.org/design/14313-benchmark-format,
// via golang.org/x/perf/benchfmt), compares a base and a head sample of every
// benchmark and unit with golang.org/x/perf/benchmath, and decides whether the
// head regressed. It can also produce those samples itself: Run builds the test
// binaries of two commits and runs them interleaved, round by round.
//
// Invariants:
//
//   - Nothing passes by accident. Empty input, input without benchmark results,
//     two inputs with no benchmark in common, and a head that lacks a
//     benchmark (or a unit of a benchmark) the base has are errors
//     (ErrEmptyInput, ErrNoBenchmarks, ErrNoCommon, ErrMissingInHead), never a
//     pass. Malformed lines are collected with their file:line (ErrMalformed)
//     and the caller decides whether they are fatal (the CLI says yes).
//   - A timed unit regresses when the Mann-Whitney U test (benchmath's
//     AssumeNothing) gives p < Alpha AND the head median is worse than the base
//     median by more than Threshold. Both conditions are needed: the test
//     alone flags tiny shifts on quiet machines; the threshold alone flags noise.
//   - An exact unit (allocs/op, B/op, or a unit declared assume=exact)
//     regresses on any increase of its value. If a sample of an exact unit is
//     not in fact constant (amortised allocations vary with b.N), the row says
//     so and that unit is compared like a timed unit instead.
//   - Direction comes from `Unit NAME better=lower|higher` metadata first, then
//     from built-in defaults (see Direction). A unit with no known direction is
//     reported but never gated, and the report says so.
//   - A row whose sample sizes cannot reach p < Alpha at all is marked
//     underpowered: the gate cannot see a regression there, and the report
//     (and the CLI's exit status) says so rather than passing silently.
//   - Benchmarks are keyed by their full name as written, including the
//     -GOMAXPROCS suffix, and by their unit as written (ns/op, not sec/op).
//
// The package imports nothing else from writegc; it stands alone so the gate
// can judge any module's benchmarks.
package benchgate
