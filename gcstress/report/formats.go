package report

import (
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/ycsbfmt"
)

// FormatYCSB and FormatPE print the run as YCSB's and HBase
// PerformanceEvaluation's reports do (internal/ycsbfmt).
const (
	FormatYCSB Name = "ycsb"
	FormatPE   Name = "pe"
)

var (
	ycsbFormat = Format{Name: FormatYCSB, Terminal: WriteYCSB}
	peFormat   = Format{Name: FormatPE, Terminal: WritePE}
)

// histOf is the whole run's latency histogram of a scenario (nil when the
// child died before its end line or latencies were off).
func histOf(r results.Result) *hdrhistogram.Histogram {
	if r.End == nil || r.End.Hist == nil {
		return nil
	}
	return hdrhistogram.Import(r.End.Hist)
}

// WriteYCSB prints each scenario as a YCSB client prints a run, with
// writepath's printers ([OVERALL] and [INSERT], latencies in microseconds),
// then YCSB's GC lines ([TOTAL_GCS], [TOTAL_GC_TIME], [TOTAL_GC_TIME_%])
// and writegc's own ([GC_ASSIST_TIME_%], [GC_PAUSE], [HEALTH]).
// Throughput(MB/sec) is key+value bytes in MB = 10^6 B.
func WriteYCSB(w io.Writer, sum *results.Summary) error {
	ew := &errWriter{w: w}
	for _, r := range sum.Results {
		f := view.FiguresOf(r)
		gcMS := 0.0
		if e := r.End; e != nil {
			gcMS = e.GCCPU * 1000
		} else {
			for _, w := range r.Windows {
				gcMS += w.GCCPU * 1000
			}
		}
		fmt.Fprintf(ew, "# %s: %s\n", escape.Terminal(r.Scenario.Name), escape.Terminal(r.Scenario.Describe()))
		runtime := time.Duration(f.Seconds * float64(time.Second))
		if h := histOf(r); h != nil {
			_ = ycsbfmt.WriteYCSBOverall(ew, runtime, f.Keys)
			fmt.Fprintf(ew, "[OVERALL], Throughput(MB/sec), %.2f\n", f.MBps)
			_ = ycsbfmt.WriteYCSBOp(ew, "INSERT", h, 0)
			fmt.Fprintf(ew, "[INSERT], 99.9thPercentileLatency(us), %d\n", h.ValueAtQuantile(99.9)/1e3)
			if every := r.Scenario.LatencyEvery; every > 1 {
				fmt.Fprintf(ew, "[INSERT], LatencySampled, 1 in %d\n", every)
			}
		} else {
			_ = ycsbfmt.WriteYCSBOverall(ew, runtime, f.Keys)
			fmt.Fprintf(ew, "[OVERALL], Throughput(MB/sec), %.2f\n", f.MBps)
			fmt.Fprintf(ew, "[INSERT], Operations, %d\n", f.Keys)
		}
		fmt.Fprintf(ew, "[TOTAL_GCS], Count, %d\n", f.Cycles)
		fmt.Fprintf(ew, "[TOTAL_GC_TIME], Time(ms), %.0f\n", gcMS)
		fmt.Fprintf(ew, "[TOTAL_GC_TIME_%%], Time(%%), %.2f\n", f.GCPct)
		fmt.Fprintf(ew, "[GC_ASSIST_TIME_%%], Time(%%), %.2f\n", f.AssistPct)
		fmt.Fprintf(ew, "[GC_PAUSE], 50thPercentileLatency(us), %.0f\n", f.PauseP50)
		fmt.Fprintf(ew, "[GC_PAUSE], 99thPercentileLatency(us), %.0f\n", f.PauseP99)
		fmt.Fprintf(ew, "[GC_PAUSE], MaxLatency(us), %.0f\n", f.PMax)
		fmt.Fprintf(ew, "[HEALTH], Class, %s\n", escape.Terminal(string(r.Verdict.Class)))
		if r.Verdict.Class == results.Failed {
			fmt.Fprintf(ew, "[HEALTH], Result, %s\n", escape.Terminal(view.CellText(r)))
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "# thresholds: %s\n", sum.Rules)
	return ew.err
}

// WritePE prints each scenario as HBase's PerformanceEvaluation prints a
// RandomWriteTest: writepath's latency line, then the "Finished ... in Nms
// for N rows (MB/s)" line (key+value, MB = 10^6 B) and a GC line.
func WritePE(w io.Writer, sum *results.Summary) error {
	ew := &errWriter{w: w}
	for _, r := range sum.Results {
		f := view.FiguresOf(r)
		name := escape.Terminal(r.Scenario.Name) + " RandomWriteTest:"
		if h := histOf(r); h != nil {
			_ = ycsbfmt.WritePE(ew, name, h)
		}
		fmt.Fprintf(ew, "%s Finished in %.0fms for %d rows (%.2f MB/s)\n", name, f.Seconds*1000, f.Keys, f.MBps)
		fmt.Fprintf(ew, "%s GC cycles=%d, gc-cpu=%.1f%%, assist=%.1f%%, pause p99=%.0fus, peak heap=%s, health=%s\n",
			name, f.Cycles, f.GCPct, f.AssistPct, f.PauseP99, results.MiB(f.PeakHeap), escape.Terminal(string(r.Verdict.Class)))
		if r.Verdict.Class == results.Failed {
			fmt.Fprintf(ew, "%s %s: %s\n", name, escape.Terminal(view.CellText(r)), escape.Terminal(r.Verdict.Why))
		}
	}
	fmt.Fprintf(ew, "thresholds: %s\n", sum.Rules)
	return ew.err
}
