// Package ycsbfmt prints latency histograms (nanoseconds, as package
// latency records them) in the formats of the seed experiments: YCSB's
// [OVERALL] and per-operation lines and HBase PerformanceEvaluation's
// latency summary, values in microseconds. It is used by writepath's seed
// runs (cmd/seedrun) and gcstress's ycsb and pe reports, so both print the
// same lines.
//
// Invariants: the printers only read the histograms and write to w; the
// line formats are those of YCSB and PE and do not change; a write error
// is returned, never dropped.
package ycsbfmt

import (
	"fmt"
	"io"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/writegc/writegc/internal/latency"
)

// The printers take histograms in nanoseconds (latency.NewHistogram).

func us(ns float64) float64 { return ns / 1e3 }

// WritePE writes one line in the format of HBase PerformanceEvaluation's
// latency summary (HBASE-18500's tables), values in microseconds:
//
//	<name> Latency (us) : mean=…, min=…, max=…, stdDev=…, 50th=…, 75th=…, 95th=…, 99th=…, 99.9th=…, 99.99th=…, count=…
func WritePE(w io.Writer, name string, h *hdrhistogram.Histogram) error {
	_, err := fmt.Fprintf(w, "%s Latency (us) : mean=%.2f, min=%.2f, max=%.2f, stdDev=%.2f, 50th=%.2f, 75th=%.2f, 95th=%.2f, 99th=%.2f, 99.9th=%.2f, 99.99th=%.2f, count=%d\n",
		name, us(h.Mean()), us(float64(h.Min())), us(float64(h.Max())), us(h.StdDev()),
		us(float64(h.ValueAtQuantile(50))), us(float64(h.ValueAtQuantile(75))),
		us(float64(h.ValueAtQuantile(95))), us(float64(h.ValueAtQuantile(99))),
		us(float64(h.ValueAtQuantile(99.9))), us(float64(h.ValueAtQuantile(99.99))), h.TotalCount())
	return err
}

// WriteYCSBOverall writes YCSB's [OVERALL] lines.
func WriteYCSBOverall(w io.Writer, runtime time.Duration, ops int64) error {
	tput := 0.0
	if runtime > 0 {
		tput = float64(ops) / runtime.Seconds()
	}
	_, err := fmt.Fprintf(w, "[OVERALL], RunTime(ms), %.1f\n[OVERALL], Throughput(ops/sec), %g\n",
		float64(runtime)/float64(time.Millisecond), tput)
	return err
}

// WriteYCSBOp writes YCSB's per-operation lines for op ("INSERT",
// "MULTIREAD", ...), latencies in microseconds; errors > 0 adds a
// Return=ERROR line.
func WriteYCSBOp(w io.Writer, op string, h *hdrhistogram.Histogram, errors int64) error {
	_, err := fmt.Fprintf(w, "[%s], Operations, %d\n[%s], AverageLatency(us), %g\n[%s], MinLatency(us), %d\n[%s], MaxLatency(us), %d\n[%s], 95thPercentileLatency(us), %d\n[%s], 99thPercentileLatency(us), %d\n[%s], Return=OK, %d\n",
		op, h.TotalCount()+errors, op, us(h.Mean()), op, h.Min()/1e3, op, h.Max()/1e3,
		op, h.ValueAtQuantile(95)/1e3, op, h.ValueAtQuantile(99)/1e3, op, h.TotalCount())
	if err == nil && errors > 0 {
		_, err = fmt.Fprintf(w, "[%s], Return=ERROR, %d\n", op, errors)
	}
	return err
}

// WriteRecorderYCSB writes a YCSB summary of every operation in r.
func WriteRecorderYCSB(w io.Writer, r *latency.Recorder) error {
	var ops int64
	names := r.Ops()
	for _, op := range names {
		ops += r.Histogram(op).TotalCount() + r.Errors(op)
	}
	if err := WriteYCSBOverall(w, r.Elapsed(), ops); err != nil {
		return err
	}
	for _, op := range names {
		if err := WriteYCSBOp(w, op, r.Histogram(op), r.Errors(op)); err != nil {
			return err
		}
	}
	return nil
}
