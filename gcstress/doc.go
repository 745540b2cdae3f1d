// Package gcstress is writegc's main job (`make stress`): sustained write
// load through a write path until the Go garbage collector degrades or
// fails, reported like the Hypertable addendum reported HBase (MB/s per
// value size and kind, and "failed at 60%" for a run the collector could
// not carry).
//
// A scenario is one kind x value size x key count x write path x memory
// settings (Scenario). A kind is an Engine: writegc's memtable kinds inside
// its region server (heap, arena, offheap, btree), any memtable registered
// with memtable.Register (run in that same region server), or a whole write
// path of the user's registered with RegisterEngine (Kinds lists them). Run runs each scenario in a child process: the same
// binary, re-executed with the scenario in the environment variable
// ChildEnv, which the program's main hands to RunChild (package
// gcstress/cli does both sides, and is the command), with its own GOGC,
// GOMEMLIMIT and a hard resident-memory cap. With Config.BuildEnvs
// (-build-envs) the child is instead the command built in the scenario's
// build environment (Scenario.BuildEnv; package gcstress/internal/
// buildenvs), built once per
// environment before anything is written, and every scenario runs under
// each environment in turn (the capacity search per kind, the frontier
// per grid point). The child streams one JSON
// line (Sample) per window on a pipe of its own (file descriptor 3, named
// in StreamEnv), never on its stdout, so nothing a user's engine
// prints can corrupt the stream; the parent appends every line to
// samples.jsonl as it arrives (and, once the child exited, an exit line of
// its own), classifies the stream (results.Classify), shows progress and writes
// the reports. What the child prints on stdout and stderr is drained as it
// comes, counted, kept in part (the first and last 64 KiB of each, in the
// scenario's child-stdout.txt and child-stderr.txt) and warned about.
//
// This package is a library: it parses no flags, never exits the process
// and writes only to the io.Writers it is given (Options, RunChild's
// writers). Expected failures are errors wrapping its sentinels
// (ErrUsage, ErrInterrupted, ErrRSSCap, ErrChild, ErrStream, ErrWrite); a
// panic means a broken invariant (a kind registered twice).
//
// Invariants:
//   - One scenario runs at a time; its child is the only process under load.
//   - Everything a child streamed is on disk before the parent looks at it,
//     so a child killed by the kernel, a signal or the hard memory cap still
//     leaves its samples, and its row reads "failed at N%" with the progress
//     of its last line. A write of the stream that fails (samples.jsonl, a
//     capture file, or the child's own stream) is a tool failure wrapping
//     ErrStream that names the file: the child is stopped and the run
//     fails (exit 1); no verdict is drawn from a stream with a hole.
//   - The parent reads at most MaxRecord (16 MiB) per record, checked
//     before buffering; a longer record is skipped and named.
//   - A scenario without a run-time cap has a watchdog (Scenario.
//     StallTimeout, -stall-timeout, 30 s by default, at least three
//     windows; none with -window 0): a child that streams no progress
//     (no key written, or no record at all) for that long is stopped
//     (SIGTERM, then SIGKILL) and fails as "stalled", with the reason
//     named.
//   - A scenario cut short by the run's end (Ctrl-C, SIGTERM, or gcstress
//     killed with its child, seen on replay as a stream with neither an end
//     nor an exit line) that left no end record is "interrupted" (a Class
//     of its own), never "failed".
//   - The parent and its children are one program: a kind registered in the
//     parent is registered in the child, because both run the same main.
//   - Health is classified per window by package results (Classify, with
//     thresholds that are settings printed in every report).
//   - Keys are generated on the fly (workload.KeyAt), so a scenario can write
//     billions of keys: the key count is keys written through flushes, not
//     keys held.
//   - A bad Config is refused (ErrUsage, naming the flag that sets the
//     field) before any work. Size arithmetic is overflow-checked; a
//     run-time cap is 0 (none) or at least MinDuration, also after the stall
//     scenario halves it; a kind or value size given twice is refused, so
//     scenario names are unique in a round (with Count N > 1 each name
//     runs once per round, Scenario.Repeat its round, its folder its own).
//   - A results folder (Config.Out) holds one run. A folder that is not
//     empty is refused (ErrUsage) unless ReplaceOut is set, which removes
//     only what the earlier run's manifest (ManifestFile)
//     lists and is still as that run wrote it (size and SHA-256), and the
//     folders it created once empty; a folder with files but no manifest,
//     or where this run would overwrite a file no manifest accounts for,
//     is refused (ErrUsage) with nothing removed. samples.jsonl is created
//     exclusively, never appended to. Without Out every run gets a new
//     folder, DefaultOutParent/<UTC time>-<id> under the working
//     directory; ReportPath names the report to open in it.
//   - Every other file of a results folder (summary.json, bench.txt, the
//     reports, the charts, the manifest) is written atomically: a temporary file in the
//     folder, fsync, rename, fsync of the folder. A failed
//     write, or a failed sync or close of samples.jsonl, is an error
//     wrapping ErrWrite naming the file: no partial file, and no report
//     resting on samples that may not be on disk.
//   - Names, notes and errors that come from engines or children reach the
//     terminal with control characters escaped and report.md with Markdown
//     escaped (internal/escape); report.html and the live page escape as
//     HTML.
//   - A child stops its profiles as soon as its load ends, whatever ended
//     it (SIGTERM or SIGINT from the parent included), before waiting for
//     its writers and engine, so a child killed after its grace period keeps
//     what it captured.
//   - An open-loop scenario (Scenario.Rate > 0) never runs ahead of its
//     schedule by more than paceSlack: key i is due i/Rate seconds after the
//     load started, whichever writer claims it; latency from intended start
//     is recorded for the same timed Puts as service time and is never
//     below it.
//   - The failure set's verdict rests on memory (a hard cap with GOMEMLIMIT
//     below it, every kind on the same schedule), so it does not turn with
//     the machine's load; the collapse set's does, and every report says so
//     (CollapseNote).
//   - A mixed workload (Scenario.Mixed: -mix other than w; package
//     gcstress/internal/child) preloads its records before the measured
//     phase, whose windows, figures and trace cover only what follows;
//     each of its operations takes one slot of the open-loop schedule and
//     is timed like a Put.
//     Mix w runs the Put loop unchanged. A mix the engine cannot serve
//     (no Getter or Scanner) is refused by Config.Validate (ErrUsage).
//     The reads' attribution to GC phases (package gcstress/internal/
//     gctrace) is parsed after the run's figures were taken.
//   - Every scenario needs results.MinWindows windows after its warm-up
//     for a verdict. Matrix scenarios on the default key counts write on
//     until the warm-up plus those windows passed (Scenario.MinRun); the
//     collapse set samples finer, so that its least run time stays short
//     (more keys would take arena to its limit too): DefaultCollapseWindow
//     after a warm-up of its own, DefaultCollapseWarmup (Scenario.Warmup,
//     also in the thresholds its child samples with), unless -window or
//     -warmup is given (Config.CollapseWindow, Config.CollapseWarmup),
//     and a kind that finishes its fixed work sooner writes on only until
//     that least run time (1.7 s at the defaults) passed.
//
// Choices of this package:
//   - Once a scenario is classified failed the parent stops its child
//     (SIGTERM), as HBase's runs ended at their concurrent mode failure.
//   - One Put in DefaultLatencyEvery (16) is timed by default: timing every
//     Put costs 4-6% of arena throughput here (results/gcstress/sampling-cost).
//   - The parent kills a child whose RSS passes 110% of its cap; the child
//     stops itself at 100% (polling /proc/self/statm every 50 ms).
//   - Cancelling Run's context (the command does on Ctrl-C; children run in
//     their own process group) stops the current scenario; the reports
//     cover what ran, and Run returns ErrInterrupted.
//
// Packages: gcstress is the orchestration (Config, the sets, the engines,
// Run). The schema of what a run writes, the classifier and replay are
// package gcstress/results, bench.txt and its comparison gcstress/compare,
// every report behind one registry of formats and the live page
// gcstress/report, and the command line gcstress/cli; under
// gcstress/internal are the capacity search and the GOGC x GOMEMLIMIT
// frontier (plan), the parent's side of a child process and the results
// folder's writer (runner), the child's side (child: the load, mixed
// workloads, the sampler, traces, profiles), what both sides share
// (proto: the stream writer, the operation mixes, /proc) and how a run is
// shown (view). docs/ARCHITECTURE.md draws the graph.
// Scenario, Sample, Verdict, Result and Summary are permanent aliases of
// package results's types: the vocabulary of a program that registers an
// engine or reads a run's Summary.
//
// The manual (commands, flags, worked examples) is docs/gcstress.md in the repository.
package gcstress
