package explain

import (
	"runtime/metrics"
)

// MetricsFile is the name of the JSON file Capture writes beside cpu.pprof
// with runtime/metrics' view of the same window; Explain reads it from a
// directory to fill Account.MetricsGCCPU.
const MetricsFile = "metrics.json"

// CaptureMetrics is the content of MetricsFile.
type CaptureMetrics struct {
	// GCCPUShare is runtime/metrics' GC CPU over busy CPU, gc/(total-idle),
	// over the capture window; nil when no GC cycle completed in it (the
	// /cpu/classes counters only advance when a cycle ends).
	GCCPUShare *float64 `json:"gc_cpu_share,omitempty"`
	// AssistCPUShare is mark assists over busy CPU.
	AssistCPUShare *float64 `json:"assist_cpu_share,omitempty"`
	// WindowSeconds is the capture window's length.
	WindowSeconds float64 `json:"window_seconds"`
	// GCCycles is how many GC cycles completed in the window.
	GCCycles uint64 `json:"gc_cycles"`
	// GoVersion and GOEXPERIMENT name the toolchain that ran the capture.
	GoVersion    string `json:"go_version"`
	GOEXPERIMENT string `json:"goexperiment,omitempty"`
}

// CPUClasses is one reading of runtime/metrics' CPU accounting, in
// CPU-seconds. Take one at the start of a window and one at its end, then
// call GCShareSince. It is a plain value.
type CPUClasses struct {
	GC, Assist, Total, Idle float64
	Cycles                  uint64
}

var cpuClassMetrics = []string{
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
	"/cpu/classes/idle:cpu-seconds",
	"/gc/cycles/total:gc-cycles",
}

// ReadCPUClasses reads the current CPU accounting. Safe for concurrent use.
func ReadCPUClasses() CPUClasses {
	s := make([]metrics.Sample, len(cpuClassMetrics))
	for i, n := range cpuClassMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	f := func(i int) float64 {
		if s[i].Value.Kind() == metrics.KindFloat64 {
			return s[i].Value.Float64()
		}
		return 0
	}
	var cycles uint64
	if s[4].Value.Kind() == metrics.KindUint64 {
		cycles = s[4].Value.Uint64()
	}
	return CPUClasses{GC: f(0), Assist: f(1), Total: f(2), Idle: f(3), Cycles: cycles}
}

// GCShareSince returns GC CPU over busy (non-idle) CPU between prev and c,
// the figure comparable with a CPU profile's CPUAccount.MetricsComparable,
// and the assist share likewise. ok is false when no busy CPU was recorded
// (the counters advance only when a GC cycle ends, so a window without a
// completed cycle has none).
func (c CPUClasses) GCShareSince(prev CPUClasses) (gc, assist float64, ok bool) {
	busy := (c.Total - prev.Total) - (c.Idle - prev.Idle)
	if busy <= 0 {
		return 0, 0, false
	}
	return (c.GC - prev.GC) / busy, (c.Assist - prev.Assist) / busy, true
}
