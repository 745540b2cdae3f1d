// Package child is the child process's side of a scenario: its load
// (this doc), the mixed read/write workload (mixload_doc.go), the window
// sampler (sampler.go), the runtime trace of the measured phase and what
// it says of the collector (trace.go, phases.go) and the profiles for
// explain (profiles.go); each of those files' docs states its invariants.
// It starts no process, and knows nothing of the orchestration or of the
// parent's side (package runner).
//
// The load: the
// writers that claim keys (or, for a mix, operations: mixload_doc.go) on
// one shared schedule and Put them, closed loop or paced open loop; the
// watchdogs (the hard RSS cap, the release of writers blocked past the
// load's end); the sampling goroutine that streams one window per tick on
// the child's stream (proto.Stream); the footprint read after the load; and
// the end line. gcstress builds the engine (its registry) and hands it to
// Run.
//
// Invariants:
//   - One Run per child process. Goroutines: Scenario.Writers writers,
//     watchRSS, releaseBlocked and Run's own, which samples, streams and
//     writes the end line; every field a writer shares with them is
//     atomic or guarded (the stop cause).
//   - The write path around Put allocates nothing (key generation,
//     timing, pacing, trace regions, the timed Puts kept for the trace's
//     assist attribution), so an engine's allocation figures are its own.
//   - Every measured phase is traced (trace.go), bounded; the
//     trace stops before the last window and is parsed after the
//     footprint, outside every figure of the load.
//   - The measured phase starts after the engine is built, the mix's
//     preload done and the footprint's baseline read; the footprint is
//     read once more after the last window, outside every window.
//   - The last line Run writes is the end line, whatever ended the load
//     (keys, duration, interrupt, RSS cap, a Put error, a writer that
//     vanished, a failed stream write); its error wraps ErrRSSCap,
//     ErrChild or proto.ErrStream, or is nil for a normal end. The
//     engine is closed once (an early close releases blocked writers
//     releaseAfter after the load ended).
//   - It starts no process and prints nothing but through the warnings
//     writer the context carries (WithWarnings) and the stream.
package child
