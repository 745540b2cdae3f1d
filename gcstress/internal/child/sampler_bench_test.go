package child

import (
	"testing"
	"time"
)

// BenchmarkLatencyRecord is what timing one Put costs the writer: two clock
// reads and one HdrHistogram record (two in an open-loop run) under the
// writer's own mutex.
func BenchmarkLatencyRecord(b *testing.B) {
	for _, loop := range []string{"closed", "open"} {
		b.Run("loop="+loop, func(b *testing.B) {
			r := NewRecorder()
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
