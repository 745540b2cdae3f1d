// Package benches holds writegc's `go test -bench` suites over the memtables
// and write paths: arena-chunked versus heap-allocated memtables, and direct
// versus buffered write paths, for values of 10 B to 10 KB.
//
// Conventions (relied on by scripts/ and the CI gate):
//   - Sub-benchmark names are key=value paths
//     (BenchmarkPut/kind=arena/value=100B/keys=1M), so `benchstat -col /kind`
//     compares layouts.
//   - b.SetBytes counts key plus value bytes only.
//   - GC cost is measured with gcmetrics/gcbench: gcbench.Start after
//     setup and before b.ResetTimer, Measurement.Stop after b.StopTimer.
//     Stop reports gc-cpu-%, assist-cpu-%, gc-pause-p99-nsec and
//     gc-cycles/op over the timed loop, on gcmetrics' definitions (the GC
//     share leaves out idle-priority marking), the same figures a gcstress
//     window or explain shows. A case too short to complete a GC cycle
//     reports gc-cycles/op 0 and GC shares of 0: no measurement, not no
//     cost. The memtable benchmarks add heap-B/key (memory held per key
//     beyond its key and value bytes, off-heap included) and fullgc-ns
//     (one forced runtime.GC with the memtable live).
//   - Cases that need more memory than the budget skip with the reason;
//     large cases skip under -short so `make test` stays fast.
//   - Keys are 16 random bytes generated before the timer starts into one
//     flat buffer, so the harness adds no pointers of its own. Values are
//     generated before the timer too: BenchmarkPut passes one buffer,
//     BenchmarkPutRecycled rotates eight (as BenchmarkMemmove's copies do).
//   - BenchmarkPut's first memtable starts on fresh memory (its cost is
//     in the figure); BenchmarkPutRecycled fills and closes one memtable
//     before the timer, so the arena kinds write recycled chunks only.
package benches
