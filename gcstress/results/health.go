package results

import (
	"fmt"
	"time"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcmetrics/health"
)

// The health vocabulary is package health's (gcmetrics/health), the one
// that gchealth uses too; these aliases keep it the schema's words.
type (
	// Class is a window's or a scenario's health (health.Class).
	Class = health.Class
	// Thresholds are the classifier's settings, printed in every report
	// (health.Thresholds).
	Thresholds = health.Thresholds
	// Cause names what made a window or a scenario unhealthy
	// (health.Cause); WindowHealth.Cause and Health.Cause hold one.
	Cause = health.Cause
	// FlagError is a bad threshold, named by its flag (health.ThresholdError);
	// package gcstress reports it as a usage error.
	FlagError = health.ThresholdError
)

// Health classes, from best to worst (see health.Class).
const (
	Healthy      = health.Healthy
	Elevated     = health.Elevated
	Degraded     = health.Degraded
	Failed       = health.Failed
	Interrupted  = health.Interrupted
	Inconclusive = health.Inconclusive
)

// MinWindows and BlockedDegraded are health's scenario rules (see there).
// The warm-up MinWindows counts from is the scenario's own when it has one
// (Scenario.Warmup): the collapse group samples finer (a shorter window
// and warm-up) because its work is fixed and a fast kind finishes it in
// under 3 s, too soon for MinWindows windows of the run's default after
// its default warm-up. BlockedDegraded is applied by ClassifyScenario,
// which knows the writer count, to Sample.BlockedNanos.
const (
	MinWindows      = health.MinWindows
	BlockedDegraded = health.BlockedDegraded
)

// DefaultThresholds returns health's default thresholds.
func DefaultThresholds() Thresholds { return health.DefaultThresholds() }

// SpanNote says how CPU shares are computed; printed in every report.
const SpanNote = "GC and assist CPU shares are computed over spans of consecutive windows merged until each span holds at least one completed GC cycle " +
	"(the /cpu/classes counters advance only when a cycle ends); each window takes its span's class. " +
	"'heap above goal' compares heap objects bytes with the heap goal at each window's end."

// The causes (see health.Cause): of a window, of a scenario
// (Health.Cause) and of a frontier point (FrontierPoint.Cause).
const (
	CauseNone           = health.CauseNone
	CauseGCCPU          = health.CauseGCCPU
	CauseAssist         = health.CauseAssist
	CauseHeapOverGoal   = health.CauseHeapOverGoal
	CauseMemory         = health.CauseMemory
	CauseBlocked        = health.CauseBlocked
	CauseNoCycle        = health.CauseNoCycle
	CauseMemlimitSpiral = health.CauseMemlimitSpiral
	CauseRSSCap         = health.CauseRSSCap
	CauseFewCycles      = health.CauseFewCycles
)

// WindowHealth is the class of one raw window and why.
type WindowHealth struct {
	T         float64 `json:"t"`
	Class     Class   `json:"class"`
	GCPct     float64 `json:"gc_pct"`     // of its span
	AssistPct float64 `json:"assist_pct"` // of its span
	Span      [2]int  `json:"span"`       // window indexes [from, to] of its span
	OverGoal  bool    `json:"over_goal,omitempty"`
	Limiter   bool    `json:"limiter,omitempty"` // the limiter engaged during the window
	Failing   bool    `json:"failing,omitempty"` // met every per-window failure condition
	Why       string  `json:"why,omitempty"`
	// Cause is what made the window unhealthy; CauseNone when healthy.
	Cause Cause `json:"cause,omitempty"`
}

// Exit describes how a scenario's child ended, for the classifier. JSON
// keys are snake_case; the CamelCase keys of older files still decode
// (replay.go).
type Exit struct {
	Died    bool   `json:"died"`    // no end line: killed by a signal, the kernel or the parent
	RSSCap  bool   `json:"rss_cap"` // stopped at the hard resident-memory cap (by itself or the parent)
	Message string `json:"message"` // e.g. "signal: killed"
	// Stalled: the parent's watchdog stopped a child that streamed no
	// progress for Scenario.StallTimeout (Died is set too: a failure).
	Stalled bool `json:"stalled,omitempty"`
	// Interrupted: the run was stopped before the scenario's load ended
	// (the parent's context, a signal, or gcstress killed): the child left
	// no end line, or its end line says it was interrupted (ExitOfEnd).
	// Not a failure.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Health is a scenario's health: the class of each window and of the
// whole scenario: failed when a failure condition held, else the worst class
// held by at least Thresholds.Share of its windows after warm-up. A
// Result holds it as its Verdict field (summary.json's
// results[].verdict, a name the file keeps).
type Health struct {
	Class   Class          `json:"class"`
	Why     string         `json:"why"`
	Windows []WindowHealth `json:"windows"`
	// FailedAt is the progress (0..1) when failure was declared; FailedT its time.
	FailedAt float64 `json:"failed_at,omitempty"`
	FailedT  float64 `json:"failed_t,omitempty"`
	// LimiterOn is the time, in seconds, of windows in which the GC CPU
	// limiter engaged.
	LimiterOn float64 `json:"limiter_on_s"`
	// Counts of windows by class (all windows, warm-up included).
	Counts map[Class]int `json:"counts"`
	// GCPct and AssistPct are over the whole run (all windows).
	GCPct     float64 `json:"gc_pct"`
	AssistPct float64 `json:"assist_pct"`
	// BlockedPct is the share (%) of the writers' time after the warm-up
	// they spent blocked by backpressure (ClassifyScenario; 0 when unknown).
	BlockedPct float64 `json:"blocked_pct,omitempty"`
	// Cause is what set the class when no window did: CauseBlocked, or a
	// mix's CauseNoCycle or CauseFewCycles (Inconclusive); empty otherwise
	// (the windows' causes say why).
	Cause Cause `json:"cause,omitempty"`
}

// Verdict is Health's name before v0.2.0, kept for that release only.
//
// Deprecated: use Health; "verdict" now names only a comparison's outcome.
type Verdict = Health

// Classify classifies a scenario's window samples (in order; start and
// end lines are ignored) and how its child ended. It is a pure function.
//
// Steps: CPU shares per span of windows (spansOf) give each window its
// class; per-window conditions (heap over goal, limiter, the failure run)
// may worsen it; a child that died, stalled or hit the memory cap fails the
// scenario; one interrupted before its load ended is Interrupted;
// otherwise a scenario with fewer than MinWindows windows after the
// warm-up is Inconclusive, and any other takes the worst class held by at
// least Thresholds.Share of its windows after the warm-up. It does not
// know the writer count, so it leaves out the blocked-time rule
// (ClassifyScenario applies it).
func Classify(samples []Sample, exit Exit, th Thresholds) Health {
	return classify(samples, exit, th, 0)
}

// ClassifyScenario is Classify for scenario s, whose writer count lets it
// apply the blocked-time rule too: a scenario otherwise healthy or
// elevated whose s.Writers writers were blocked by backpressure for at
// least BlockedDegraded of their time after the warm-up is degraded
// (Health.Cause CauseBlocked). The scenario's own warm-up, if it has one
// (Scenario.Warmup), replaces th.Warmup (Scenario.EffectiveThresholds), so
// a replay from summary.json or samples.jsonl, classified with the run's
// thresholds, gives the class the run gave. A mixed scenario whose windows
// completed fewer than MinMixCycles GC cycles is Inconclusive unless it
// failed or was interrupted. It is a pure function, as Classify.
func ClassifyScenario(s Scenario, samples []Sample, exit Exit, th Thresholds) Health {
	v := classify(samples, exit, s.EffectiveThresholds(th), s.Writers)
	v.markFewCycles(s, samples) // a mix whose collector hardly ran (readers.go)
	return v
}

func classify(samples []Sample, exit Exit, th Thresholds, writers int) Health {
	var w []Sample
	for _, s := range samples {
		if s.Type == SampleWindow {
			w = append(w, s)
		}
	}
	v := Health{Class: Healthy, Counts: map[Class]int{}, Windows: make([]WindowHealth, len(w))}
	v.classifySpans(w, th)
	v.markWindows(w, th)
	for _, wh := range v.Windows {
		v.Counts[wh.Class]++
	}
	switch {
	case v.Class == Failed:
	case exit.RSSCap || exit.Died:
		v.failOnExit(w, exit)
	case exit.Interrupted:
		v.interruptOnExit(w, exit)
	default:
		v.classByShare(th)
		v.BlockedPct = blockedShare(w, th.Warmup.Seconds(), writers)
		v.markBlocked()
	}
	return v
}

// blockedShare is the share (%, at most 100) of writers' time in the
// windows after the warm-up that they spent blocked (0 without writers or
// such windows): the blocked time those windows added over their length
// times writers.
func blockedShare(w []Sample, warm float64, writers int) float64 {
	if writers < 1 {
		return 0
	}
	var base, last int64
	dur := 0.0
	for _, s := range w {
		if s.T < warm {
			base = s.BlockedNanos
			continue
		}
		dur, last = dur+s.Dur, s.BlockedNanos
	}
	if dur <= 0 || last <= base {
		return 0
	}
	return min(100, 100*float64(last-base)/1e9/(dur*float64(writers)))
}

// markBlocked degrades a healthy or elevated scenario whose writers were
// blocked at least BlockedDegraded of their time.
func (v *Health) markBlocked() {
	if v.BlockedPct < BlockedDegraded || (v.Class != Healthy && v.Class != Elevated) {
		return
	}
	v.Why = fmt.Sprintf("writers blocked by backpressure %.0f%% of their time after the warm-up >= %g%% (flushes could not keep up); collector: %s",
		v.BlockedPct, BlockedDegraded, v.Why)
	v.Class, v.Cause = Degraded, CauseBlocked
}

// span is a run of consecutive windows, indexes from to to inclusive.
type span struct{ from, to int }

// spansOf merges consecutive windows until each span holds a completed GC
// cycle. A trailing span without one joins the previous span (its CPU
// deltas are zero anyway), or is the only span.
func spansOf(w []Sample) []span {
	var spans []span
	start, cycles := 0, uint64(0)
	for i := range w {
		cycles += w[i].WinCycles
		if cycles > 0 {
			spans = append(spans, span{start, i})
			start, cycles = i+1, 0
		}
	}
	if start < len(w) {
		if len(spans) > 0 {
			spans[len(spans)-1].to = len(w) - 1
		} else {
			spans = append(spans, span{start, len(w) - 1})
		}
	}
	return spans
}

// classifySpans gives each window its span's GC and assist shares and the
// class they make, and sets the run's shares.
func (v *Health) classifySpans(w []Sample, th Thresholds) {
	var tot gcmetrics.CPU
	for _, sp := range spansOf(w) {
		var c gcmetrics.CPU
		for j := sp.from; j <= sp.to; j++ {
			c = c.Add(gcmetrics.CPU{CPUUsed: w[j].CPUUsed, GCCPU: w[j].GCCPU, Assist: w[j].Assist})
		}
		tot = tot.Add(c)
		gp, ap := c.GCCPUPercent(), c.AssistPercent()
		cls, cause, why := shareClass(gp, ap, th)
		for j := sp.from; j <= sp.to; j++ {
			v.Windows[j] = WindowHealth{T: w[j].T, Class: cls, GCPct: gp, AssistPct: ap, Span: [2]int{sp.from, sp.to}, Why: why, Cause: cause}
		}
	}
	v.GCPct, v.AssistPct = tot.GCCPUPercent(), tot.AssistPercent()
}

// shareClass is health.ShareClass with its why.
func shareClass(gcPct, assistPct float64, th Thresholds) (Class, Cause, string) {
	cls, cause := health.ShareClass(gcPct, assistPct, th)
	why := ""
	switch {
	case cls == Degraded && cause == CauseGCCPU:
		why = fmt.Sprintf("GC CPU %.1f%% >= %g%%", gcPct, th.DegradedGC)
	case cls == Degraded:
		why = fmt.Sprintf("assist %.1f%% >= %g%%", assistPct, th.DegradedAssist)
	case cause == CauseGCCPU:
		why = fmt.Sprintf("GC CPU %.1f%%", gcPct)
	case cause == CauseAssist:
		why = fmt.Sprintf("assist %.1f%%", assistPct)
	}
	return cls, cause, why
}

// markWindows applies the per-window conditions in order: a heap over its
// goal degrades a window; the limiter's time is summed; FailWindows
// failing windows in a row fail the scenario (see failing), and every
// failing window after that is failed too.
func (v *Health) markWindows(w []Sample, th Thresholds) {
	best, run := 0.0, 0
	var prevLimiter uint64
	if len(w) > 0 {
		prevLimiter = w[0].LimiterLast
	}
	for i, s := range w {
		wh := &v.Windows[i]
		markOverGoal(wh, s)
		// The limiter engaged in this window: last-enabled advanced, or it
		// names the cycle in progress.
		wh.Limiter = health.LimiterEngaged(prevLimiter, s.LimiterLast, s.LimiterCycles)
		prevLimiter = max(prevLimiter, s.LimiterLast)
		if wh.Limiter {
			v.LimiterOn += s.Dur
		}
		best = max(best, s.MBps)
		if failing(s, wh.Limiter, best, th) {
			wh.Failing = true
			run++
		} else {
			run = 0
		}
		switch {
		case run >= th.FailWindows && v.Class != Failed:
			wh.Class, wh.Cause = Failed, CauseMemory
			wh.Why = fmt.Sprintf("live heap %s >= %g%% of GOMEMLIMIT %s, limiter engaged, %.1f MB/s < %g%% of best %.1f, %d windows in a row",
				MiB(s.HeapLive), th.FailLive, MiB(s.MemLimit), s.MBps, th.FailThroughput, best, run)
			v.Class, v.Why = Failed, "collector could not hold the heap: "+wh.Why
			v.FailedAt, v.FailedT = s.Progress, s.T
		case run > 0 && v.Class == Failed:
			wh.Class, wh.Cause = Failed, CauseMemory
		}
	}
}

// markOverGoal degrades a window whose heap passed its goal.
func markOverGoal(wh *WindowHealth, s Sample) {
	if !health.OverGoal(s.HeapObjects, s.HeapGoal) {
		return
	}
	wh.OverGoal = true
	if wh.Class.Rank() < Degraded.Rank() {
		wh.Class, wh.Cause = Degraded, CauseHeapOverGoal
		wh.Why = fmt.Sprintf("heap %.1f MiB above goal %.1f MiB", float64(s.HeapObjects)/(1<<20), float64(s.HeapGoal)/(1<<20))
	}
}

// failing says whether window s meets every per-window failure condition:
// GOMEMLIMIT set, live heap at or above FailLive of it, the limiter engaged
// and MB/s below FailThroughput of the best window so far.
func failing(s Sample, limiter bool, best float64, th Thresholds) bool {
	return s.MemLimit > 0 && float64(s.HeapLive) >= th.FailLive/100*float64(s.MemLimit) &&
		limiter && s.MBps < th.FailThroughput/100*best
}

// failOnExit fails a scenario whose child died or passed its memory cap, at
// the progress of its last window.
func (v *Health) failOnExit(w []Sample, exit Exit) {
	last := Sample{}
	if len(w) > 0 {
		last = w[len(w)-1]
	}
	v.Class, v.FailedAt, v.FailedT = Failed, last.Progress, last.T
	switch {
	case exit.RSSCap:
		v.Why = "resident memory passed the hard cap"
	case exit.Stalled:
		v.Why = "the child made no progress"
	default:
		v.Why = "the child died"
	}
	if exit.Message != "" {
		v.Why += " (" + exit.Message + ")"
	}
}

// interruptOnExit classes a scenario interrupted before its load ended:
// Interrupted, with the progress of its last window in Why.
func (v *Health) interruptOnExit(w []Sample, exit Exit) {
	last := Sample{}
	if len(w) > 0 {
		last = w[len(w)-1]
	}
	v.Class = Interrupted
	v.Why = fmt.Sprintf("interrupted at %.0f%% (%.1f s) before its load ended", 100*last.Progress, last.T)
	if exit.Message != "" {
		v.Why += " (" + exit.Message + ")"
	}
}

// classByShare gives the scenario the worst class c such that windows of
// class c or worse make up at least Share of the windows after the warm-up
// (one stray window does not make a run degraded); with fewer than
// MinWindows windows after the warm-up it is Inconclusive.
func (v *Health) classByShare(th Thresholds) {
	warm := th.Warmup.Seconds()
	var counted []WindowHealth
	for _, wh := range v.Windows {
		if wh.T >= warm {
			counted = append(counted, wh)
		}
	}
	if len(counted) < MinWindows {
		v.Class = Inconclusive
		v.Why = InconclusiveWhy(len(counted), th.Warmup)
		return
	}
	for _, c := range []Class{Degraded, Elevated} {
		n, first := 0, -1
		for i, wh := range counted {
			if wh.Class.Rank() >= c.Rank() {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		if n > 0 && float64(n) >= th.Share/100*float64(len(counted)) {
			v.Class = c
			v.Why = fmt.Sprintf("%d of %d windows after warm-up %s or worse (first at %.1f s: %s)", n, len(counted), c, counted[first].T, counted[first].Why)
			return
		}
	}
	v.Why = fmt.Sprintf("GC CPU %.1f%%, assist %.1f%% over the run", v.GCPct, v.AssistPct)
}

// InconclusiveWhy is an Inconclusive verdict's Why: "2 windows after the
// 2s warm-up; at least 3 are needed".
func InconclusiveWhy(n int, warmup time.Duration) string {
	w := "windows"
	if n == 1 {
		w = "window"
	}
	return fmt.Sprintf("%d %s after the %v warm-up; at least %d are needed", n, w, warmup, MinWindows)
}

// MiB prints a byte count in whole MiB, as every report does.
func MiB(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
