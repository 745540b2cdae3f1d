package gchealth

import (
	"math"
	"slices"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcmetrics/health"
)

// State is the collector's health in one window (see the package doc).
// The values are the JSON and Prometheus label strings and do not change.
type State string

// The states, from best to worst.
const (
	Healthy  State = "healthy"
	Elevated State = "elevated"
	Degraded State = "degraded"
	Failing  State = "failing"
)

// States lists the states from best to worst.
func States() []State { return []State{Healthy, Elevated, Degraded, Failing} }

// Rank orders the states: 0 healthy to 3 failing (the index in States);
// -1 for an unknown one.
func (s State) Rank() int { return slices.Index(States(), s) }

// stateOf maps a window's health class to a State. A window never takes
// health.Failed here (gcstress's failure rule needs throughput; see the
// package doc).
func stateOf(c health.Class) State {
	switch c {
	case health.Elevated:
		return Elevated
	case health.Degraded:
		return Degraded
	case health.Failed:
		return Failing
	}
	return Healthy
}

// Cause names a condition that made a window unhealthy: the strings of
// package health's causes (gcstress's too); the values are the JSON and
// Prometheus label strings and do not change.
type Cause string

// Causes of an unhealthy window.
const (
	CauseGCCPU          = Cause(health.CauseGCCPU)          // "gc_cpu": the span's GC CPU share
	CauseAssist         = Cause(health.CauseAssist)         // "assist": the span's assist share
	CauseHeapOverGoal   = Cause(health.CauseHeapOverGoal)   // "heap_over_goal": heap objects past the goal
	CauseMemlimitSpiral = Cause(health.CauseMemlimitSpiral) // "memlimit-spiral": the death spiral (Spiral)
)

// Causes lists every cause, in the order State lists them when several hold.
func Causes() []Cause {
	return []Cause{CauseMemlimitSpiral, CauseGCCPU, CauseAssist, CauseHeapOverGoal}
}

// Spiral is the death-spiral rule (see the package doc). Zero fields take
// the defaults named. A plain value.
type Spiral struct {
	HeapPct float64 // live heap at or above this % of GOMEMLIMIT (default 95)
	GCPct   float64 // ... and GC CPU at or above this % (default 50), or the limiter engaged
	Windows int     // ... for this many windows in a row (default 3)
}

func (s *Spiral) defaults() {
	if s.HeapPct == 0 {
		s.HeapPct = health.SpiralHeapPct
	}
	if s.GCPct == 0 {
		s.GCPct = health.SpiralGCPct
	}
	if s.Windows == 0 {
		s.Windows = health.SpiralWindows
	}
}

// window is one sampling window's readings, the figures the classifier
// judges: deltas over the window (CPU in cpu-seconds, cycles) and levels at
// its end (bytes). Its JSON keys are those of gcstress's window lines in
// samples.jsonl, so that recorded windows decode into it. A plain value.
type window struct {
	Dur           float64 `json:"dur"`        // seconds
	WinCycles     uint64  `json:"win_cycles"` // GC cycles completed in the window
	CPUUsed       float64 `json:"cpu_used"`   // total minus idle
	GCCPU         float64 `json:"gc_cpu"`     // GC minus idle-priority mark
	Assist        float64 `json:"gc_assist"`
	PauseP99us    float64 `json:"pause_p99_us"`
	HeapLive      uint64  `json:"heap_live"`
	HeapGoal      uint64  `json:"heap_goal"`
	HeapObjects   uint64  `json:"heap_objects"`
	MemLimit      uint64  `json:"memlimit"`       // 0 when GOMEMLIMIT is off
	LimiterLast   uint64  `json:"limiter_last"`   // /gc/limiter/last-enabled:gc-cycle
	LimiterCycles uint64  `json:"limiter_cycles"` // /gc/cycles/total at the same reading
}

// set fills w from the interval d that ends at the reading at, as
// gcstress's sampler fills its windows (every figure is gcmetrics').
func (w *window) set(dur float64, d gcmetrics.Delta, at gcmetrics.Snapshot) {
	*w = window{Dur: dur, WinCycles: d.Cycles, CPUUsed: d.CPUUsed, GCCPU: d.GCCPU, Assist: d.Assist, PauseP99us: d.PauseP99() * 1e6,
		HeapLive: at.HeapLive, HeapGoal: at.HeapGoal, HeapObjects: at.HeapObjects, LimiterLast: at.LimiterLastEnabled, LimiterCycles: at.Cycles}
	if at.MemLimit < math.MaxInt64 { // MaxInt64 is the runtime's "no limit"
		w.MemLimit = at.MemLimit
	}
}

// Figures are the numbers behind a window's state. Ratios are 0..1 (CPU
// ratios of the CPU the process used, over the window's span). A plain
// value; its JSON form is State's figures{}.
type Figures struct {
	GCCPURatio       float64 `json:"gc_cpu_ratio"`
	AssistRatio      float64 `json:"assist_ratio"`
	HeapLiveBytes    uint64  `json:"heap_live_bytes"`
	HeapObjectsBytes uint64  `json:"heap_objects_bytes"`
	HeapGoalBytes    uint64  `json:"heap_goal_bytes"`
	MemLimitBytes    uint64  `json:"gomemlimit_bytes"`    // 0 when GOMEMLIMIT is off
	HeapToGoalRatio  float64 `json:"heap_to_goal_ratio"`  // heap objects / heap goal
	HeapToLimitRatio float64 `json:"heap_to_limit_ratio"` // live heap / GOMEMLIMIT; 0 when off
	LimiterEngaged   bool    `json:"limiter_engaged"`     // the GC CPU limiter engaged in the window
	PauseP99Seconds  float64 `json:"pause_p99_s"`         // the window's stop-the-world pauses
	CyclesPerSecond  float64 `json:"cycles_per_s"`        // GC cycles completed in the window, per second
	SpanWindows      int     `json:"span_windows"`        // windows the CPU ratios were taken over
	SpiralWindows    int     `json:"spiral_windows"`      // spiral windows in a row so far
}

// maxCauses bounds the causes of one window (every Cause at once).
const maxCauses = 4

// verdict is one window's state, causes and figures; a plain value that
// holds its causes in an array, so classifying allocates nothing.
type verdict struct {
	state  State
	causes [maxCauses]Cause
	n      int
	fig    Figures
}

func (v *verdict) add(c Cause) {
	for _, have := range v.causes[:v.n] {
		if have == c {
			return
		}
	}
	if v.n == maxCauses {
		panic("gchealth: more causes than Causes()") // a broken invariant
	}
	v.causes[v.n] = c
	v.n++
}

// Causes returns a copy of the verdict's causes (never nil).
func (v *verdict) causeList() []Cause { return append([]Cause{}, v.causes[:v.n]...) }

// classifier classifies windows one at a time, as they come, with
// package health's rules (gcstress's). Not safe for concurrent use: the sampler owns it.
type classifier struct {
	th     health.Thresholds
	spiral Spiral

	span        gcmetrics.CPU // CPU of the open span (windows since the last completed cycle)
	spanWindows int
	shareClass  health.Class // of the last closed span
	shareCause  health.Cause
	gcPct       float64 // of the last closed span
	assistPct   float64
	lastSpan    int // windows in the last closed span

	started     bool
	prevLimiter uint64
	spiralRun   int
}

func newClassifier(th health.Thresholds, sp Spiral) classifier {
	return classifier{th: th, spiral: sp, shareClass: health.Healthy}
}

// step classifies window s, in order after the windows before it.
func (c *classifier) step(s *window) verdict {
	if !c.started {
		c.started, c.prevLimiter = true, s.LimiterLast // as gcstress's classifier starts
	}
	c.span = c.span.Add(gcmetrics.CPU{CPUUsed: s.CPUUsed, GCCPU: s.GCCPU, Assist: s.Assist})
	c.spanWindows++
	if s.WinCycles > 0 {
		c.gcPct, c.assistPct = c.span.GCCPUPercent(), c.span.AssistPercent()
		c.shareClass, c.shareCause = health.ShareClass(c.gcPct, c.assistPct, c.th)
		c.lastSpan, c.span, c.spanWindows = c.spanWindows, gcmetrics.CPU{}, 0
	}
	limiter := health.LimiterEngaged(c.prevLimiter, s.LimiterLast, s.LimiterCycles)
	c.prevLimiter = max(c.prevLimiter, s.LimiterLast)
	over := health.OverGoal(s.HeapObjects, s.HeapGoal)

	v := verdict{state: stateOf(c.shareClass), fig: c.figures(s, limiter)}
	if c.isSpiral(s, limiter) {
		c.spiralRun++
	} else {
		c.spiralRun = 0
	}
	v.fig.SpiralWindows = c.spiralRun
	switch {
	case c.spiralRun >= c.spiral.Windows:
		v.state = Failing
		v.add(CauseMemlimitSpiral)
	case over && v.state.Rank() < Degraded.Rank():
		v.state = Degraded
		v.add(CauseHeapOverGoal)
	}
	if c.shareCause != health.CauseNone {
		v.add(Cause(c.shareCause))
	}
	if c.gcPct >= c.th.HealthyGC {
		v.add(CauseGCCPU)
	}
	if c.assistPct >= c.th.HealthyAssist {
		v.add(CauseAssist)
	}
	if over {
		v.add(CauseHeapOverGoal)
	}
	return v
}

// isSpiral says whether window s meets the spiral condition.
func (c *classifier) isSpiral(s *window, limiter bool) bool {
	return health.InSpiral(s.HeapLive, s.MemLimit, c.gcPct, limiter, c.spiral.HeapPct, c.spiral.GCPct)
}

func (c *classifier) figures(s *window, limiter bool) Figures {
	f := Figures{
		GCCPURatio: c.gcPct / 100, AssistRatio: c.assistPct / 100,
		HeapLiveBytes: s.HeapLive, HeapObjectsBytes: s.HeapObjects, HeapGoalBytes: s.HeapGoal, MemLimitBytes: s.MemLimit,
		LimiterEngaged: limiter, PauseP99Seconds: s.PauseP99us / 1e6, SpanWindows: c.lastSpan,
	}
	if s.HeapGoal > 0 {
		f.HeapToGoalRatio = float64(s.HeapObjects) / float64(s.HeapGoal)
	}
	if s.MemLimit > 0 {
		f.HeapToLimitRatio = float64(s.HeapLive) / float64(s.MemLimit)
	}
	if s.Dur > 0 {
		f.CyclesPerSecond = float64(s.WinCycles) / s.Dur
	}
	return f
}

// hysteresis holds a state against improvement: a worse (or equal) window
// takes effect at once, a better one only after need windows in a row
// better than the state, and then the state becomes the worst of those
// calm windows. So an alert on the state does not flap with a process
// whose windows hover at a threshold. A plain value the sampler owns.
type hysteresis struct {
	need  int     // calm windows in a row to leave toward healthy (1: none held)
	calm  int     // windows in a row better than the state so far
	worst verdict // the worst (latest among equals) of those calm windows
}

// apply returns the published verdict for window raw, given the published
// one before it (cur).
func (h *hysteresis) apply(cur, raw verdict) verdict {
	if raw.state.Rank() >= cur.state.Rank() {
		h.calm = 0
		return raw
	}
	if h.calm == 0 || raw.state.Rank() >= h.worst.state.Rank() {
		h.worst = raw
	}
	h.calm++
	if h.calm >= h.need {
		out := h.worst
		out.fig = raw.fig // the figures are always the latest window's
		h.calm = 0
		return out
	}
	held := cur // the state and its causes stay; the figures move on
	held.fig = raw.fig
	return held
}
