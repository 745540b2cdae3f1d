package explain

import (
	"runtime"
	"time"

	"github.com/writegc/writegc/gcmetrics"
)

// MetricsFile is the name of the JSON file Capture writes beside cpu.pprof
// with runtime/metrics' view of the same window; Explain reads it from a
// directory to fill Account.MetricsGCCPU.
const MetricsFile = "metrics.json"

// CaptureMetrics is the content of MetricsFile: runtime/metrics' CPU
// accounting over a capture window, kept as gcmetrics' raw figures so that
// the GC share explain prints is gcmetrics' definition, the one gcstress
// windows and benchmarks report. It is a plain value.
type CaptureMetrics struct {
	// CPU is the window's CPU accounting (cpu-seconds, GC cycles). A file
	// without it (written before gcmetrics defined the share) has no
	// runtime/metrics figure.
	CPU *gcmetrics.CPU `json:"cpu,omitempty"`
	// WindowSeconds is the capture window's length.
	WindowSeconds float64 `json:"window_seconds"`
	// GCCycles is how many GC cycles completed in the window.
	GCCycles uint64 `json:"gc_cycles"`
	// GoVersion and GOEXPERIMENT name the toolchain that ran the capture.
	GoVersion    string `json:"go_version"`
	GOEXPERIMENT string `json:"goexperiment,omitempty"`
}

// NewCaptureMetrics returns the metrics of a window from snapshot a to the
// later snapshot b, window long, for this process's toolchain.
func NewCaptureMetrics(a, b gcmetrics.Snapshot, window time.Duration) CaptureMetrics {
	cpu := gcmetrics.CPUBetween(a, b)
	return CaptureMetrics{CPU: &cpu, WindowSeconds: window.Seconds(), GCCycles: cpu.Cycles, GoVersion: runtime.Version()}
}

// GCCPUShare returns gcmetrics' GC share of the CPU used (0..1,
// gcmetrics.CPU.GCCPUPercent over 100), the figure comparable with
// CPUAccount.MetricsComparable. ok is false when the file has no CPU
// accounting or the window has none to share out (no GC cycle ended).
func (m CaptureMetrics) GCCPUShare() (share float64, ok bool) {
	if m.CPU == nil || !m.CPU.Counted() {
		return 0, false
	}
	return m.CPU.GCCPUPercent() / 100, true
}
