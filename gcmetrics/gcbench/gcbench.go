// Package gcbench adds writegc's GC figures to a Go benchmark:
//
//	func BenchmarkX(b *testing.B) {
//		setUp()
//		m := gcbench.Start(b)
//		b.ResetTimer()
//		for range b.N {
//			work()
//		}
//		b.StopTimer()
//		m.Stop()
//	}
//
// Stop reports, through b.ReportMetric, the figures [Metrics] names:
// gc-cpu-%, assist-cpu-%, gc-pause-p99-ns and gc-cycles/op, all computed
// by gcmetrics from the readings Start and Stop take, so a benchmark shows
// the same GC share the gcstress harness and explain would for the same
// interval. [UnitLines] gives the benchfmt "Unit" lines that tell
// benchstat and benchgate each figure's direction; scripts/units.txt
// carries them.
//
// Invariants and limits:
//   - Start and Stop never touch the benchmark timer. Stop costs a few
//     microseconds; call it after b.StopTimer to keep that out of ns/op.
//     Start reads first, so call b.ResetTimer after it, not before.
//   - The runtime's /cpu/classes counters advance only when a GC cycle
//     ends, so a run in which no cycle completed reports gc-cpu-% and
//     assist-cpu-% of 0 — and gc-cycles/op of 0, which is how a reader
//     tells "no measurement" from "no cost". Nothing forces a cycle: a
//     forced collection would be a cost the code under test did not cause.
//     Give the benchmark enough iterations (-benchtime) to span cycles.
//   - The figures cover the whole process between Start and Stop, other
//     goroutines included (b.RunParallel workers are wanted; a leftover
//     background goroutine is not).
//
// The package is meant for _test.go files; it imports testing.
package gcbench

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcmetrics"
)

// Measurement is one benchmark run's interval, from Start to Stop. It
// belongs to the goroutine running the benchmark function and lives for one
// call of it (a benchmark function runs once per b.N the framework tries;
// each call makes its own Measurement, and the last call's figures stand).
// It is not safe for concurrent use.
type Measurement struct {
	b       *testing.B
	r       *gcmetrics.Reader
	start   gcmetrics.Snapshot
	stopped bool
}

// Start reads the collector's counters for b's measurement. Call it after
// setup, just before b.ResetTimer and the loop.
func Start(b *testing.B) *Measurement {
	b.Helper()
	m := &Measurement{b: b, r: gcmetrics.NewReader()}
	m.start = m.r.Read()
	return m
}

// Stop reads the counters again and reports the interval's figures on the
// benchmark (see Metrics). It leaves the timer as it finds it. Calls after
// the first do nothing.
func (m *Measurement) Stop() {
	if m.stopped {
		return
	}
	m.stopped = true
	d := gcmetrics.Sub(m.start, m.r.Read())
	for _, x := range Metrics(d, m.b.N) {
		m.b.ReportMetric(x.Value, x.Unit)
	}
}

// Metric is one figure Stop reports: a value and its benchmark unit.
type Metric struct {
	Value float64
	Unit  string
}

// Units Stop reports.
const (
	UnitGCCPU    = "gc-cpu-%"        // gcmetrics.CPU.GCCPUPercent
	UnitAssist   = "assist-cpu-%"    // gcmetrics.CPU.AssistPercent
	UnitPauseP99 = "gc-pause-p99-ns" // gcmetrics.Delta.PauseP99, in ns
	UnitCycles   = "gc-cycles/op"    // completed GC cycles over n
)

// Metrics returns the figures for an interval d of n operations, in the
// order Stop reports them. gc-cycles/op is left out when n is not positive.
func Metrics(d gcmetrics.Delta, n int) []Metric {
	ms := []Metric{
		{d.GCCPUPercent(), UnitGCCPU},
		{d.AssistPercent(), UnitAssist},
		{d.PauseP99() * 1e9, UnitPauseP99},
	}
	if n > 0 {
		ms = append(ms, Metric{float64(d.Cycles) / float64(n), UnitCycles})
	}
	return ms
}

// UnitLines returns the benchfmt lines that give each of Stop's units its
// direction (all are better lower), one per line, newline-terminated, for
// prepending to stored results.
func UnitLines() string {
	var sb strings.Builder
	for _, u := range []string{UnitGCCPU, UnitAssist, UnitPauseP99, UnitCycles} {
		sb.WriteString("Unit " + u + " better=lower\n")
	}
	return sb.String()
}
