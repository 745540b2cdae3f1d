package gcstress

import (
	"testing"

	"github.com/writegc/writegc/internal/workload"
)

// BenchmarkPut is one Put into the server directly (path "server"), per
// kind at 100 B values, for comparison with package gcstress/internal/child's sampler
// BenchmarkLatencyRecord.
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
