// Package explain captures Go profiles and runtime traces for a scenario and
// turns them into a short account, in plain words with figures, of what the
// garbage collector cost and which of the program's own code made it work.
//
// Two halves:
//
//   - Capture ([Capture], [ParseProfiles], [FlightRecorder]) writes the files of
//     one scenario into a directory: cpu.pprof, heap.pprof, allocs.pprof,
//     fgprof.pprof, trace.out, mutex.pprof, block.pprof, metrics.json and, on
//     demand, flight.out.
//   - Analysis ([Explain], [ExplainWith], [WriteDiff]) reads any Go CPU,
//     heap, allocs, fgprof, mutex or block profile (pprof protobuf, gzipped or
//     not, or the legacy text format) and any runtime/trace file of a Go
//     version golang.org/x/exp/trace reads (Go 1.11 to 1.26), whether or not
//     writegc produced it.
//
// Invariants:
//
//   - A file's type is detected from its content, never from its name
//     (names only tell mutex from block, which share one format). A file that
//     is empty, corrupt, or not a supported profile or trace is an error that
//     names the file and wraps [ErrEmpty], [ErrCorrupt] or [ErrUnsupported].
//     A file that starts like a profile or trace but does not parse (a
//     truncated gzip or plain protobuf profile, a cut trace header) is
//     corrupt, never unsupported.
//   - One unusable file does not lose the others: [ExplainWith] builds the
//     account from every usable file and lists the rest, with their errors,
//     in [Account.Unusable] (printed as "not used: ..."); it fails only when
//     no file is usable.
//   - In a CPU profile every sample is counted once, in the most specific
//     class (see [CPUClass]); shares are of the profile's total sampled CPU,
//     so they add up to 100%.
//   - Cost is attributed to the first frame, walking from the leaf toward the
//     root, that is neither runtime code nor a "library" package
//     (Options.Library, plus the standard library unless Options.KeepStdlib);
//     when every frame is library code the first non-runtime frame is used.
//   - The runtime/metrics GC CPU share is gcmetrics' (the one writegc
//     reports everywhere): mark assists, dedicated and fractional mark
//     workers and pauses, not sweeping or write barriers, and not
//     idle-priority marking, over the CPU the process used.
//     [CPUAccount.MetricsComparable] is the profile's figure on that
//     definition, printed beside the runtime/metrics figure
//     ([Account.MetricsGCCPU]) so the two can be compared. A capture
//     stores gcmetrics' raw CPU accounting in metrics.json
//     ([CaptureMetrics]); Explain computes the share from it with
//     gcmetrics, and a caller's -metrics-gc-cpu must be that same figure.
//   - Slow operations in a trace are user regions or tasks of type
//     Options.Region (default [DefaultRegion], "writegc.put") whose
//     duration is above Options.SlowOp, or above the p99 of all such
//     durations when SlowOp is zero. A trace without such regions still
//     yields the GC timeline.
//
// Nothing in this package logs or exits; all failures are returned.
package explain
