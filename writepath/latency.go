package writepath

import (
	"io"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/ycsbfmt"
)

// The latency recorder and its printers live in internal/latency and
// internal/ycsbfmt (shared with gcstress's reports); these forms keep
// writepath's names working for one release.

// Recorder is latency.Recorder.
//
// Deprecated: use internal/latency.
type Recorder = latency.Recorder

// RecorderOptions is latency.RecorderOptions.
//
// Deprecated: use internal/latency.
type RecorderOptions = latency.RecorderOptions

// NewRecorder is latency.NewRecorder.
func NewRecorder(opts RecorderOptions) *Recorder { return latency.NewRecorder(opts) }

// NewHistogram is latency.NewHistogram.
func NewHistogram() *hdrhistogram.Histogram { return latency.NewHistogram() }

// WritePE is ycsbfmt.WritePE.
func WritePE(w io.Writer, name string, h *hdrhistogram.Histogram) error {
	return ycsbfmt.WritePE(w, name, h)
}

// WriteYCSBOverall is ycsbfmt.WriteYCSBOverall.
func WriteYCSBOverall(w io.Writer, runtime time.Duration, ops int64) error {
	return ycsbfmt.WriteYCSBOverall(w, runtime, ops)
}

// WriteYCSBOp is ycsbfmt.WriteYCSBOp.
func WriteYCSBOp(w io.Writer, op string, h *hdrhistogram.Histogram, errors int64) error {
	return ycsbfmt.WriteYCSBOp(w, op, h, errors)
}

// WriteRecorderYCSB is ycsbfmt.WriteRecorderYCSB.
func WriteRecorderYCSB(w io.Writer, r *Recorder) error { return ycsbfmt.WriteRecorderYCSB(w, r) }
