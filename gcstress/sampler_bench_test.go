package gcstress

import (
	"testing"
	"time"

	"github.com/writegc/writegc/internal/workload"
)

// BenchmarkLatencyRecord is what timing one Put costs the writer: two clock
// reads and one HdrHistogram record (two in an open-loop run) under the
// writer's own mutex.
func BenchmarkLatencyRecord(b *testing.B) {
	for _, loop := range []string{"closed", "open"} {
		b.Run("loop="+loop, func(b *testing.B) {
			r := newLatRecorder()
			due := time.Now()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				done := time.Now()
				intended := int64(-1)
				if loop == "open" {
					intended = int64(done.Sub(due))
				}
				r.Record(int64(done.Sub(t0)), intended)
			}
		})
	}
}

// BenchmarkPut is one Put into the server directly (path "server"), per
// kind at 100 B values, for comparison with BenchmarkLatencyRecord.
func BenchmarkPut(b *testing.B) {
	for _, kind := range []string{"heap", "arena", "offheap"} {
		b.Run("kind="+kind, func(b *testing.B) {
			s := Scenario{Kind: kind, Regions: 2, Flushers: 2, Memstore: 16 << 20, Backpressure: true, MaxPendingFlushes: 2, Path: "server", Writers: 1}
			e, err := newEngine(s)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			key, val := make([]byte, workload.KeySize), workload.Value(100)
			b.SetBytes(int64(len(key) + len(val)))
			for i := 0; i < b.N; i++ {
				workload.KeyAt(key, 1, uint64(i))
				if err := e.Put(key, val); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
