package gcmetrics

import "testing"

// Report adds writegc's standard GC metrics for an interval of b.N
// operations to a benchmark: gc-cpu-%, assist-cpu-%, gc-pause-p99-ns and
// gc-cycles/op. Call it after b.StopTimer.
func Report(b *testing.B, d Delta) {
	b.ReportMetric(d.GCCPUPercent(), "gc-cpu-%")
	b.ReportMetric(d.AssistPercent(), "assist-cpu-%")
	b.ReportMetric(d.Pauses.Quantile(0.99)*1e9, "gc-pause-p99-ns")
	if b.N > 0 {
		b.ReportMetric(float64(d.Cycles)/float64(b.N), "gc-cycles/op")
	}
}
