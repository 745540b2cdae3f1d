package results

import (
	"fmt"
	"math"
	"time"

	"github.com/writegc/writegc/gcmetrics"
)

// Class is the health of a window or of a whole scenario, from the
// collector's and the writers' point of view:
//   - healthy: the GC takes a small share of busy CPU (below
//     Thresholds.HealthyGC) and mutator assists a smaller one (below
//     Thresholds.HealthyAssist);
//   - degraded: the GC share or the assist share reached its degraded
//     threshold, or the heap outgrew its goal; or (a scenario, not a
//     window) its writers were blocked by backpressure for at least
//     BlockedDegraded of their time after the warm-up (ClassifyScenario);
//   - failed: the collector could not hold the heap (live heap near
//     GOMEMLIMIT with the CPU limiter engaged and throughput collapsed, for
//     several windows in a row), or the child passed its hard memory cap or
//     died.
//
// Elevated is the band in between healthy and degraded (GC CPU 10-25% or
// assists 2-5% by default): no longer healthy, not yet degraded.
//
// Interrupted is no health: it is the class of a scenario whose run was
// stopped before its load ended (Ctrl-C or SIGTERM to gcstress, or
// gcstress killed with its child), whether its child then left an end
// record of the part that ran or none, unless its windows had already
// failed it: a partial run is never called healthy. Windows never take it.
//
// Inconclusive is no health either: the scenario ended normally but fewer
// than MinWindows of its windows ended after the warm-up, too little data
// for a verdict (a failure condition still fails it). Windows never take
// it.
type Class string

// Health classes, from best to worst.
const (
	Healthy  Class = "healthy"
	Elevated Class = "elevated"
	Degraded Class = "degraded"
	Failed   Class = "failed"
	// Interrupted is outside the health scale (rank -1): see Class.
	Interrupted Class = "interrupted"
	// Inconclusive is outside the health scale (rank -1): see Class.
	Inconclusive Class = "inconclusive"
)

// MinWindows is the fewest windows that must end after the warm-up for a
// scenario to be classed healthy, elevated or degraded; with fewer it is
// Inconclusive. Three windows let one stray window not decide the class
// (Thresholds.Share) and hold at least one completed GC cycle at any
// realistic write rate. The warm-up is the scenario's own when it has one
// (Scenario.Warmup): the collapse group samples finer (a shorter window and
// warm-up) because its work is fixed and a fast kind finishes it in under
// 3 s, too soon for MinWindows windows of the run's default after its
// default warm-up.
const MinWindows = 3

// BlockedDegraded is the share (%) of the writers' time after the warm-up
// that, spent blocked by backpressure (Sample.BlockedNanos), degrades a
// scenario however cheap its collector was: writers stalled on flushes
// that cannot keep up are no healthy store. It is a whole-scenario rule
// (a blocked Put is counted when it returns, so one window's share says
// little), applied by ClassifyScenario, which knows the writer count.
const BlockedDegraded = 50.0

// Rank orders the health classes: 0 healthy to 3 failed; -1 for
// Interrupted, Inconclusive or an unknown class.
func (c Class) Rank() int {
	switch c {
	case Healthy:
		return 0
	case Elevated:
		return 1
	case Degraded:
		return 2
	case Failed:
		return 3
	}
	return -1
}

// Thresholds are the classifier's settings (flags), printed in every
// report. Percentages are of busy CPU (total minus idle). JSON keys are
// snake_case; the CamelCase keys of older files still decode (replay.go).
type Thresholds struct {
	HealthyGC      float64       `json:"healthy_gc"`      // healthy: GC CPU below this (%)
	HealthyAssist  float64       `json:"healthy_assist"`  // ... and assists below this (%)
	DegradedGC     float64       `json:"degraded_gc"`     // degraded: GC CPU at or above this (%)
	DegradedAssist float64       `json:"degraded_assist"` // ... or assists at or above this (%)
	FailLive       float64       `json:"fail_live"`       // failed: live heap at or above this % of GOMEMLIMIT ...
	FailThroughput float64       `json:"fail_throughput"` // ... limiter engaged, MB/s below this % of the best window ...
	FailWindows    int           `json:"fail_windows"`    // ... for this many windows in a row
	Warmup         time.Duration `json:"warmup"`          // windows ending before this do not count toward the scenario's class (ns)
	Share          float64       `json:"share"`           // a scenario takes the worst class held by at least this % of its windows
}

// DefaultThresholds returns the default thresholds: healthy below 10% GC
// CPU and 2% assists, degraded from 25% GC CPU or 5% assists, failed at 90%
// of GOMEMLIMIT with throughput under 25% of the best window for 3 windows.
func DefaultThresholds() Thresholds {
	return Thresholds{HealthyGC: 10, HealthyAssist: 2, DegradedGC: 25, DegradedAssist: 5,
		FailLive: 90, FailThroughput: 25, FailWindows: 3, Warmup: 2 * time.Second, Share: 25}
}

// Validate checks the thresholds; an error is a *FlagError naming the
// flag that sets the bad field.
func (t Thresholds) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"healthy-gc", t.HealthyGC}, {"healthy-assist", t.HealthyAssist}, {"degraded-gc", t.DegradedGC},
		{"degraded-assist", t.DegradedAssist}, {"fail-live", t.FailLive}, {"fail-throughput", t.FailThroughput}, {"share", t.Share}} {
		if f.v < 0 || f.v > 100 || math.IsNaN(f.v) {
			return flagErr(f.name, "%v: a percentage from 0 to 100", f.v)
		}
	}
	if t.HealthyGC > t.DegradedGC {
		return flagErr("healthy-gc", "%v is above -degraded-gc %v", t.HealthyGC, t.DegradedGC)
	}
	if t.HealthyAssist > t.DegradedAssist {
		return flagErr("healthy-assist", "%v is above -degraded-assist %v", t.HealthyAssist, t.DegradedAssist)
	}
	if t.FailWindows < 1 {
		return flagErr("fail-windows", "%d: at least 1", t.FailWindows)
	}
	if t.Warmup < 0 {
		return flagErr("warmup", "negative")
	}
	return nil
}

// String prints the thresholds as every report shows them.
func (t Thresholds) String() string {
	return fmt.Sprintf("healthy: GC CPU < %g%% and assist < %g%%; degraded: GC CPU >= %g%% or assist >= %g%% or heap above goal; "+
		"failed: live heap >= %g%% of GOMEMLIMIT with the limiter engaged and MB/s < %g%% of the best window for %d windows in a row, "+
		"or RSS above the hard cap, or the child died; a scenario takes the worst class held by at least %g%% of its windows after a %v warm-up, "+
		"and is at least degraded when its writers spent %g%% or more of their time after the warm-up blocked by backpressure",
		t.HealthyGC, t.HealthyAssist, t.DegradedGC, t.DegradedAssist, t.FailLive, t.FailThroughput, t.FailWindows, t.Share, t.Warmup, BlockedDegraded)
}

// SpanNote says how CPU shares are computed; printed in every report.
const SpanNote = "GC and assist CPU shares are computed over spans of consecutive windows merged until each span holds at least one completed GC cycle " +
	"(the /cpu/classes counters advance only when a cycle ends); each window takes its span's class. " +
	"'heap above goal' compares heap objects bytes with the heap goal at each window's end."

// Cause names what made a window unhealthy (WindowHealth.Cause): the
// classifier sets it on every window that is not healthy, and the capacity
// search maps it to its limit. The values are JSON strings (summary.json's
// results[].verdict.windows[].cause) and do not change.
type Cause string

// Window causes. A window takes the cause of the condition that set its
// class: its span's GC or assist share (the degraded share first, then the
// elevated one), a heap past its goal that degraded it, or the failure
// condition (memory).
const (
	CauseNone         Cause = ""               // a healthy window
	CauseGCCPU        Cause = "gc_cpu"         // the span's GC CPU share
	CauseAssist       Cause = "assist"         // the span's assist share
	CauseHeapOverGoal Cause = "heap_over_goal" // heap objects past the heap goal
	CauseMemory       Cause = "memory"         // the failure condition: live heap near GOMEMLIMIT, limiter on, throughput collapsed
	// CauseBlocked (Verdict.Cause only, never a window's): the writers
	// were blocked by backpressure for BlockedDegraded of their time.
	CauseBlocked Cause = "blocked"
)

// Frontier causes (FrontierPoint.Cause; a window never takes them).
const (
	// CauseMemlimitSpiral: the GOMEMLIMIT death spiral. Live heap at or
	// above SpiralHeapPct of GOMEMLIMIT while the collector ran flat out
	// (a span's GC CPU at or above the degraded share,
	// Thresholds.DegradedGC, or the CPU limiter engaged) for
	// SpiralWindows windows in a row: the point is failed (InSpiral; a
	// point runs open loop at a rate the machine sustains, so its limiter
	// rarely engages and gchealth's 50% is rarely reached: its collector
	// marks without a break on its dedicated quarter of GOMAXPROCS). The
	// same string as gchealth's cause.
	CauseMemlimitSpiral Cause = "memlimit-spiral"
	// CauseRSSCap: the point's RSS passed the container (its hard cap),
	// or its child died: failed.
	CauseRSSCap Cause = "rss-cap"
	// CauseFewCycles: fewer than FrontierMinCycles GC cycles completed
	// after the warm-up, too few for a GC CPU per GB: inconclusive. Also
	// a mix's Verdict.Cause when its measured phase completed one cycle,
	// fewer than MinMixCycles (readers.go).
	CauseFewCycles Cause = "few-cycles"
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

// Verdict is a scenario's health: the class of each window and of the
// whole scenario: failed when a failure condition held, else the worst class
// held by at least Thresholds.Share of its windows after warm-up.
type Verdict struct {
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
func Classify(samples []Sample, exit Exit, th Thresholds) Verdict {
	return classify(samples, exit, th, 0)
}

// ClassifyScenario is Classify for scenario s, whose writer count lets it
// apply the blocked-time rule too: a scenario otherwise healthy or
// elevated whose s.Writers writers were blocked by backpressure for at
// least BlockedDegraded of their time after the warm-up is degraded
// (Verdict.Cause CauseBlocked). The scenario's own warm-up, if it has one
// (Scenario.Warmup), replaces th.Warmup (Scenario.EffectiveThresholds), so
// a replay from summary.json or samples.jsonl, classified with the run's
// thresholds, gives the class the run gave. A mixed scenario whose windows
// completed fewer than MinMixCycles GC cycles is Inconclusive unless it
// failed or was interrupted. It is a pure function, as Classify.
func ClassifyScenario(s Scenario, samples []Sample, exit Exit, th Thresholds) Verdict {
	v := classify(samples, exit, s.EffectiveThresholds(th), s.Writers)
	v.markFewCycles(s, samples) // a mix whose collector hardly ran (readers.go)
	return v
}

func classify(samples []Sample, exit Exit, th Thresholds, writers int) Verdict {
	var w []Sample
	for _, s := range samples {
		if s.Type == SampleWindow {
			w = append(w, s)
		}
	}
	v := Verdict{Class: Healthy, Counts: map[Class]int{}, Windows: make([]WindowHealth, len(w))}
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
func (v *Verdict) markBlocked() {
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
func (v *Verdict) classifySpans(w []Sample, th Thresholds) {
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

// ShareClass is the class and cause that a span's GC and assist shares (%)
// give its windows under th: degraded from DegradedGC or DegradedAssist,
// elevated from HealthyGC or HealthyAssist, else healthy (CauseNone); the
// GC share is looked at before the assist share. It is the rule Classify
// applies to every span, exported so that package gchealth classifies a
// running service's windows with the same code. A pure function; it
// allocates nothing.
func ShareClass(gcPct, assistPct float64, th Thresholds) (Class, Cause) {
	switch {
	case gcPct >= th.DegradedGC:
		return Degraded, CauseGCCPU
	case assistPct >= th.DegradedAssist:
		return Degraded, CauseAssist
	case gcPct >= th.HealthyGC:
		return Elevated, CauseGCCPU
	case assistPct >= th.HealthyAssist:
		return Elevated, CauseAssist
	}
	return Healthy, CauseNone
}

// shareClass is ShareClass with its why.
func shareClass(gcPct, assistPct float64, th Thresholds) (Class, Cause, string) {
	cls, cause := ShareClass(gcPct, assistPct, th)
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

// OverGoal reports whether a window whose reading shows heapObjects bytes
// of heap objects and a heap goal of heapGoal passed its goal (a zero goal
// is unknown: never over). It is the rule that degrades a window in
// Classify (heap_over_goal), exported for package gchealth.
func OverGoal(heapObjects, heapGoal uint64) bool { return heapGoal != 0 && heapObjects > heapGoal }

// LimiterEngaged reports whether the GC CPU limiter engaged in a window:
// /gc/limiter/last-enabled:gc-cycle advanced past prevLast (its highest
// value before the window), or it names the cycle in progress (last at or
// above cycles, /gc/cycles/total at the same reading). It is Classify's
// rule, exported for package gchealth.
func LimiterEngaged(prevLast, last, cycles uint64) bool {
	return last > prevLast || (last > 0 && last >= cycles)
}

// markWindows applies the per-window conditions in order: a heap over its
// goal degrades a window; the limiter's time is summed; FailWindows
// failing windows in a row fail the scenario (see failing), and every
// failing window after that is failed too.
func (v *Verdict) markWindows(w []Sample, th Thresholds) {
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
		wh.Limiter = LimiterEngaged(prevLimiter, s.LimiterLast, s.LimiterCycles)
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
	if !OverGoal(s.HeapObjects, s.HeapGoal) {
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
func (v *Verdict) failOnExit(w []Sample, exit Exit) {
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
func (v *Verdict) interruptOnExit(w []Sample, exit Exit) {
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
func (v *Verdict) classByShare(th Thresholds) {
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

// FlagError is a bad setting, named by the flag that sets it (without its
// dash); package gcstress reports it as a usage error.
type FlagError struct {
	Flag string
	Msg  string
}

func (e *FlagError) Error() string { return "-" + e.Flag + ": " + e.Msg }

func flagErr(flagName, format string, args ...any) error {
	return &FlagError{Flag: flagName, Msg: fmt.Sprintf(format, args...)}
}
