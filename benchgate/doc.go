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
//     (ErrNoBenchmarks, ErrMissingInHead, and unexported ones), never a
//     pass. Malformed lines are collected with their file:line (ErrMalformed)
//     and the caller decides whether they are fatal (the CLI says yes).
//   - Every measurement is a finite, non-negative number, in every unit (the
//     standard ns/op, B/op, allocs/op, MB/s and custom ones alike: the gate's
//     relative change and direction assume a magnitude). A result line with a
//     NaN, ±Inf or negative value is malformed (file:line) and left out of the
//     Set; Compare refuses a hand-built Set holding one (an error), so the
//     statistics, which do not terminate on NaN, never see it.
//   - Options are validated, not clamped: Alpha in (0, 1), Threshold finite
//     and at most MaxThreshold (100%); anything else, NaN included, is
//     an error. RunConfig's Count (at most MaxCount), Nice ([-20, 19])
//     and Timeout (not negative) likewise.
//   - Input is bounded: a Parser reads at most MaxBytes per input (default
//     64 MiB) and lines of at most MaxLineBytes (default and maximum 64 KiB
//     less one byte), and stops with ErrTooLarge at the first byte past
//     either, so /dev/zero or a huge file fails at once instead of filling
//     memory. The accepted-regressions file is read under the same limits.
//   - Run streams each benchmark binary's standard output to base.txt or
//     head.txt, at most RunConfig.MaxOutput (default 256 MiB) a run
//     (ErrOutputTooLarge naming the benchmark and the limit past it), and
//     parses the files as streams: what a benchmark prints never sits in
//     memory. Its worktrees and binaries are removed on every way out
//     (error, cancellation, a child killed by the OOM killer or a signal);
//     worktrees left by a Run that was itself killed are removed by the
//     next Run in the repository once their process is gone.
//   - Runs of one repository may run at once (in one process or several):
//     every git worktree add, remove, list and prune holds a lock, a
//     flock(2) on benchgate-worktrees.lock in the git common directory
//     (in-process only where the OS has no flock), because git's own
//     worktree commands corrupt each other's bookkeeping when they overlap.
//     The lock is held for one git command, never across a build or a
//     benchmark, so parallel gates still build and measure in parallel.
//   - The code under test gets no secret and cannot outlive its run: every
//     process Run starts (git, go, the benchmark binaries, valgrind) gets
//     this process's environment without the SecretEnv registry's variables
//     (CI tokens, DSNs, *_TOKEN, *_SECRET, *PASSWORD*, ...) and
//     RunConfig.EnvDrop's, and leads a process group of its own that is
//     killed whole on timeout, on cancellation and once the process exits,
//     with a WaitDelay bounding a grandchild that escaped the group.
//   - Reports escape what they take from their inputs: in Markdown,
//     benchmark and function names are code spans no name can close, other
//     text (units, notes, reasons, errors) has its Markdown and HTML
//     characters escaped, and no absolute local path is shown.
//   - "Where it got slower" ranks functions by the growth of their absolute
//     cost per op (profile value / op count of its run, both sides running
//     the same ops), never by share of the profile, and leaves out the
//     profiler's, the testing harness's and the scheduler's bookkeeping
//     (see DiffProfiles).
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
//   - No pass on missing data: with Options.Rounds (Run's Count, which the
//     CLI passes), a benchmark or unit that a side has in fewer rounds than
//     it ran is Incomplete (ErrMissingRounds, naming it), on either side; a
//     benchmark that fails in either side stops Run (ErrBenchFailed, naming
//     the benchmarks the testing package reported failed). A benchmark the
//     base lacks in every round is New and allowed: a benchmark new in the
//     head and one the base skipped every time look the same in its output.
//   - A row reports its own noise (Row.Noise): the larger of the two sides'
//     MedianUncertainty, how well its rounds pin down each side's median;
//     and its minimum detectable effect (Row.MDE, see MDE and
//     DetectableShift): the smallest change of the median the U test finds
//     with probability Options.Power (0.8) at Alpha and the rounds each side
//     ran, from each side's scatter (a normal approximation of the rank
//     test, documented in mde.go). A timed row that would pass (Unchanged
//     or Within) but whose MDE exceeds its threshold (in the threshold's
//     terms: relative, absolute, or both for a floor) is Noisy: too noisy
//     to judge, neither a pass nor a regression (Report.Inconclusive; the
//     row's note gives the rounds a side that would bring its MDE under the
//     threshold, Row.RoundsNeeded, and Report.NoiseAdvice names the rows
//     and suggests those rounds or instruction mode). A significant
//     regression stays Regressed and a significant improvement Improved
//     whatever the noise; a zero threshold is never exceeded. The CLI
//     exits 0 pass, 1 regression, 2 error or missing data, 3 noisy with
//     none regressed; an error wins over a regression, a regression over
//     noise.
//   - A regression is confirmed before it fails a gate: with
//     RunConfig.ConfirmSelect (benchgate run's default), the regressed
//     benchmarks run again in fresh interleaved rounds, and Report.Confirm
//     keeps a row Regressed only when it regresses again; one that does not
//     is Unconfirmed, a pass showing its first figures.
//   - A benchmark file is text or `go test -json` output (its first
//     non-blank byte '{'), read under the same limits.
//   - Benchmarks are keyed by their full name as written, including the
//     -GOMAXPROCS suffix, and by their unit as written (ns/op, not sec/op).
//   - No comparison across machines by accident: Compare refuses
//     (ErrCrossMachine, naming each difference) a base and head whose
//     machines differ in a StrictMachineKeys key (goos, goarch, goamd64,
//     goversion, cpu, gomaxprocs), or a thresholds file calibrated on another
//     machine, unless Options.AllowCrossMachine makes it a warning. A key
//     only one side states is unknown: a note, never a refusal, so files
//     from older tools stay comparable. Run writes the machine into both of
//     its outputs.
//   - A row's threshold is, in order: its unit's own `gate=` metadata (an
//     absolute `+Npt`, a relative `N%`, or both `N%,Mpt`, see UnitGate), a calibrated
//     Thresholds row, Options.Threshold; the row records which (Row.ThresholdFrom).
//     Calibrated thresholds are never below the default they were made with.
//   - Accepted regressions expire: every entry carries until=DATE or
//     commits=N, and CheckExpiry turns an expired one into ErrAcceptExpired.
//     Compare itself reads no clock and no git history.
//   - Instruction mode (RunConfig.Measure = MeasureInstructions, `benchgate
//     run -measure instructions`) counts instead of timing: each test
//     binary runs once a round and side under `valgrind --tool=callgrind
//     --cache-sim=yes`, GOMAXPROCS=1 and GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off,
//     at a fixed op count N+1, and each leaf's figure is the difference of its
//     N+1-op call and its N=1 probe, counted from the benchmark's ResetTimer
//     to the call's end (callgrind dumps split the process's counts per call),
//     divided by N; a binary whose run does not split so (a b.Loop benchmark)
//     runs each leaf in two processes of its own, at 2 and N+2 ops, whose
//     difference over N is the figure. Startup, set-up and the probe cancel:
//     instructions/op, D1-misses/op (first-level data misses), LL-misses/op
//     (last-level misses) and est-cycles/op = Ir + 10·(I1mr + D1mr + D1mw) +
//     100·(ILmr + DLmr + DLmw). Counts do not depend on timing, so base and
//     head run side by side (RunConfig.Jobs) and the rounds need not be
//     interleaved with care; they are gated like timed units, with their own
//     default gates (InstructionUnits: 1%; misses 5% and at least half a miss
//     per op). A duration benchtime is an error in this mode. The same
//     difference per function (callgrind's self counts) names the functions
//     behind a regressed benchmark (RunResult.FuncDiffs), as profiles do in
//     wall mode.
//
// What instruction mode cannot see. Valgrind runs one thread at a time, so
// GC concurrency, lock contention, false sharing between goroutines and
// memory-level parallelism are not real: a mutex that eight writers fight
// over, or two counters sharing a cache line written from two cores, costs
// the same instructions and the same modelled misses as uncontended code,
// however much slower it runs on hardware; the wall-time mode (or gcstress)
// is what sees those. The caches are a model (sizes read from the host, LRU,
// no prefetcher), so est-cycles/op ranks changes rather than predicting
// time. The collector's pacing depends on time, so its cycles start at
// different points from run to run: allocation-heavy benchmarks vary by
// about 1-2%, and any benchmark whose op count puts too few instructions into
// the difference varies by more (see InstructionUnits for what was
// measured). Nor can it make a benchmark deterministic that is not: one
// whose work depends on a random seed drawn per process (a skiplist's tower
// heights from math/rand/v2) or on timing (batching by a timer) varies
// between processes by as much as the benchmark does, 8-30% for writegc's
// Put and Write benchmarks, which scripts/gate therefore leaves out of this
// mode. What it catches that wall time
// misses: a change that adds 2% instructions per op is a 2% change of
// instructions/op however busy the machine, above the 1% gate with five
// rounds a side, where on a shared 2-core machine the wall-time gate needs
// its 10% threshold against noise and lets the change through.
//
// The package imports nothing else from writegc but small internal helpers
// (internal/oskit, internal/inputfile, internal/stat); it stands alone so the gate can
// judge any module's benchmarks.
//
// The manual (commands, flags, worked examples) is docs/benchgate.md in the repository.
package benchgate
