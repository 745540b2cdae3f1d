// Package putbench is the timed Put loop that writegc's write-path
// benchmarks share, in the main module (benches) and in the peers module
// (benches/peers), so that both time and count a Put the same way: b.N
// Puts of 16-byte random keys (internal/workload's KeyAt, a fresh seed per
// run), bytes per op of key plus value, allocations, and gcmetrics/gcbench's
// GC figures, with p50-ns and p99-ns latencies from an HdrHistogram in
// nanoseconds (internal/latency).
//
// For benchmarks only: it imports testing. Loop and Report are safe to
// call from any benchmark; a Loop's put runs on the benchmark's goroutine.
package putbench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/gcmetrics/gcbench"
	"github.com/writegc/writegc/internal/workload"
)

// Loop sets b's bytes per op (workload.KeySize + valueSize) and allocation
// reporting, starts gcbench's measurement, resets the timer and calls put
// b.N times, each with the next random key and the time the Put started;
// put records the latency itself (at once, or from an acknowledgement
// callback). An error from put fails the benchmark. It returns with the
// timer running and the measurement open: the caller finishes what the op
// count includes (a final Flush), then calls b.StopTimer and the
// measurement's Stop.
func Loop(b *testing.B, valueSize int, put func(key []byte, t0 time.Time) error) *gcbench.Measurement {
	b.Helper()
	key := make([]byte, workload.KeySize)
	seed := rand.Uint64()
	b.SetBytes(int64(workload.KeySize + valueSize))
	b.ReportAllocs()
	m := gcbench.Start(b)
	b.ResetTimer()
	for i := range b.N {
		workload.KeyAt(key, seed, uint64(i))
		if err := put(key, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	return m
}

// Report reports h's median and 99th percentile as p50-ns and p99-ns.
func Report(b *testing.B, h *hdrhistogram.Histogram) {
	b.ReportMetric(float64(h.ValueAtQuantile(50)), "p50-ns")
	b.ReportMetric(float64(h.ValueAtQuantile(99)), "p99-ns")
}
