// The mixed read/write workload of a gcstress child
// (results.Scenario.Mixed: -mix other than w): the preload phase, the key
// chooser, each worker's operations (read, update, insert, scan,
// read-modify-write) against the engine's Put, Get and Scan, the
// per-operation recorders and histograms that fill a window's and the end
// record's ops, and the attribution of timed reads to the collector's
// phases (phases.go). It takes what it needs of
// the child through Deps (the engine's Put, the engine to probe for Get
// and Scan, the heap reading, the preload batch); it runs no process and
// knows nothing of the child's schedule, which stays gcstress's.
//
// Invariants:
//   - New checks the mix against the engine (Support, ErrUnsupported) and
//     preloads spec.Preload records closed loop, by spec.Writers
//     goroutines, before the measured phase: the preload's time, rate and
//     GC cycles go to the end record's preload, apart from every window.
//   - A Run is made once per child. Op is called by worker w's goroutine
//     only (one goroutine per worker, as many as spec.Writers), concurrently
//     with the other workers and with Window; Window and End are called by
//     the sampling goroutine only, End once after every worker returned.
//     UseTrace is called once before the load; the child starts and
//     stops the trace (trace.go), End parses it.
//   - Reads pick only records whose insert returned (the acknowledged
//     prefix, ackCounter), so a miss is the engine's, never the harness's.
//   - Memory is bounded before the load: each worker keeps at most
//     maxReadRecords/spec.Writers timed reads (24 B each, pointer-free);
//     reads past it are still timed and counted as dropped. Histograms
//     span 1 ns to opLatMax.
//   - A nil *Run is the write-only loop: every method is a no-op (HeapBase
//     and Records return what they are given).

package child
