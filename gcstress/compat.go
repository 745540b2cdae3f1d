package gcstress

import (
	"io"

	"github.com/writegc/writegc/gcstress/live"
	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/gcstress/results"
)

// The results schema lives in package gcstress/results (samples.jsonl,
// summary.json, the classifier and replay). These aliases keep the names
// of the earlier single package working for one release; new code should
// use package results.
type (
	Summary       = results.Summary
	Result        = results.Result
	Sample        = results.Sample
	SampleType    = results.SampleType
	StopReason    = results.StopReason
	Scenario      = results.Scenario
	Class         = results.Class
	Thresholds    = results.Thresholds
	WindowHealth  = results.WindowHealth
	Exit          = results.Exit
	Verdict       = results.Verdict
	Capacity      = results.Capacity
	CapacityStep  = results.CapacityStep
	CapacityLimit = results.CapacityLimit
	Machine       = results.Machine
	ForeignOutput = results.ForeignOutput
)

// Deprecated forms of the results package's constants.
const (
	SampleStart  = results.SampleStart
	SampleWindow = results.SampleWindow
	SampleFlight = results.SampleFlight
	SampleEnd    = results.SampleEnd
	SampleExit   = results.SampleExit

	StopKeys        = results.StopKeys
	StopDuration    = results.StopDuration
	StopInterrupted = results.StopInterrupted
	StopRSSCap      = results.StopRSSCap
	StopError       = results.StopError
	StopFailed      = results.StopFailed
	StopHung        = results.StopHung
	StopStalled     = results.StopStalled

	Healthy      = results.Healthy
	Elevated     = results.Elevated
	Degraded     = results.Degraded
	Failed       = results.Failed
	Interrupted  = results.Interrupted
	Inconclusive = results.Inconclusive
	// UnboundedKeys is results.UnboundedKeys: a duration-first scenario's key count.
	UnboundedKeys = results.UnboundedKeys

	LimitNone         = results.LimitNone
	LimitMemory       = results.LimitMemory
	LimitGCCPU        = results.LimitGCCPU
	LimitAssist       = results.LimitAssist
	LimitHeap         = results.LimitHeap
	LimitLatency      = results.LimitLatency
	LimitRate         = results.LimitRate
	LimitInconclusive = results.LimitInconclusive

	SpanNote  = results.SpanNote
	BusyCores = results.BusyCores
)

// DefaultThresholds is results.DefaultThresholds.
func DefaultThresholds() Thresholds { return results.DefaultThresholds() }

// Classify is results.Classify.
func Classify(samples []Sample, exit Exit, th Thresholds) Verdict {
	return results.Classify(samples, exit, th)
}

// ReadResults is results.ReadResults.
func ReadResults(r io.Reader, th Thresholds) ([]Result, error) { return results.ReadResults(r, th) }

const bytesPerMB = results.BytesPerMB

func mbps(n int64, secs float64) float64 { return results.MBps(n, secs) }
func mib(b uint64) string                { return results.MiB(b) }

// WriteTable is report.WriteTable.
//
// Deprecated: use package report.
func WriteTable(w io.Writer, sum *Summary) error { return report.WriteTable(w, sum) }

// WriteYCSB is report.WriteYCSB.
//
// Deprecated: use package report.
func WriteYCSB(w io.Writer, sum *Summary) error { return report.WriteYCSB(w, sum) }

// WritePE is report.WritePE.
//
// Deprecated: use package report.
func WritePE(w io.Writer, sum *Summary) error { return report.WritePE(w, sum) }

// WriteHTML is report.WriteHTML.
//
// Deprecated: use package report.
func WriteHTML(w io.Writer, sum *Summary) error { return report.WriteHTML(w, sum) }

// WriteMarkdown is report.WriteMarkdown.
//
// Deprecated: use package report.
func WriteMarkdown(w io.Writer, sum *Summary, charts []string) error {
	return report.WriteMarkdown(w, sum, charts)
}

// The live page's names, now package live's.
//
// Deprecated: use package live.
type (
	LiveServer  = live.Server
	LiveOptions = live.Options
	LiveStats   = live.Stats
)

// NewLiveServer is live.NewServer.
//
// Deprecated: use package live.
func NewLiveServer(opts LiveOptions) *LiveServer { return live.NewServer(opts) }

// LiveAddr is live.Addr.
//
// Deprecated: use package live.
func LiveAddr(s string) (string, error) { return live.Addr(s) }
