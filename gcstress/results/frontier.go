package results

import (
	"slices"
	"time"

	"github.com/writegc/writegc/gcmetrics/health"
)

// The frontier (SetFrontier): per kind, a grid of GOGC x GOMEMLIMIT
// settings, each one child run at one open-loop rate, measured for GC CPU
// per GB against peak memory; the Pareto set of those points; and, given
// the container's size, the setting recommended and its confirmation run.
// Package gcstress/internal/plan computes every figure below from the
// Results of those runs; these are its schema in summary.json.

// FrontierPoint is one grid point (summary.json's frontier[]): a kind
// under one GOGC and GOMEMLIMIT, measured over the windows after the
// warm-up. A plain value.
type FrontierPoint struct {
	Kind     string `json:"kind"`
	Scenario string `json:"scenario"`
	Value    int64  `json:"value"`
	GOGC     int    `json:"gogc"`           // -1: off
	MemLimit int64  `json:"memlimit_bytes"` // 0: none
	// GCCPUSPerGB, AssistSPerGB: GC and assist CPU-seconds per 10^9 B of
	// key+value written, Cost's figures (scaled by its OnCPU) taken over
	// whole GC cycles: the windows from the first cycle end after the
	// warm-up to the last (the end record's Cost when fewer than two
	// windows saw one); CyclesPerGB: GC cycles completed per 10^9 B, over
	// the same windows.
	GCCPUSPerGB  float64 `json:"gc_cpu_s_per_gb"`
	AssistSPerGB float64 `json:"assist_s_per_gb"`
	CyclesPerGB  float64 `json:"gc_cycles_per_gb"`
	// GCCPUSE is GCCPUSPerGB's standard error from the scatter of its
	// cycles' costs (each window's GC CPU over its cycles ended, over the
	// whole cycles' span): GCCPUSPerGB times their coefficient of
	// variation over the root of their count. 0 with fewer than two
	// windows of cycles.
	GCCPUSE float64 `json:"gc_cpu_se_s_per_gb,omitempty"`
	Cycles  uint64  `json:"gc_cycles"` // completed after the warm-up
	// SpanCycles are the GC cycles CyclesPerGB counts: those of the whole
	// cycles' span (Cycles when the end record's figures stand).
	SpanCycles uint64 `json:"gc_span_cycles"`
	// SteadyGCCPUSPerGB is the figure the frontier ranks on and predicts
	// with: the GC CPU per GB of the point's class (the points of its kind,
	// environment and GOGC whose GOMEMLIMIT bound alike, one that never
	// bound counting as none), pooled over the class's SteadyPoints points,
	// steady where GCCPUSPerGB, resting on a point's few cycles of uneven
	// cost, scatters; SteadySE is its standard error (the kind's scatter of
	// one point over the root of the class's points, at least the Poisson
	// error of the class's cycles). All 0 for a point with no cycles or
	// not measured.
	SteadyGCCPUSPerGB float64 `json:"steady_gc_cpu_s_per_gb,omitempty"`
	SteadySE          float64 `json:"steady_gc_cpu_se_s_per_gb,omitempty"`
	SteadyPoints      int     `json:"steady_points,omitempty"`
	PeakRSS           uint64  `json:"peak_rss_bytes"`
	// OffHeapBytes is the most the engine reported holding outside the Go
	// heap (EngineStats.OffHeapBytes) in any window: 0 for an engine that
	// reports none.
	OffHeapBytes int64   `json:"offheap_bytes"`
	HeapGoal     uint64  `json:"heap_goal_bytes"` // the highest heap goal of a window after the warm-up
	ILatP99      int64   `json:"ilat_p99_ns"`     // p99 from intended start after the warm-up
	MBps         float64 `json:"achieved_mbps"`   // after the warm-up
	Class        Class   `json:"class"`
	// Cause is what failed or discounted the point: CauseMemlimitSpiral,
	// CauseRSSCap, CauseFewCycles, or the verdict's own cause; empty for a
	// healthy point.
	Cause Cause  `json:"cause,omitempty"`
	Why   string `json:"why,omitempty"`
	// Pareto: no other measured point of the kind has both less GC CPU per
	// GB and a lower peak RSS (failed and inconclusive points take no part).
	Pareto bool `json:"pareto"`
	// Env is the build environment (-build-envs) whose binary ran the
	// point (its Scenario.BuildEnv); "" without one. The Pareto set, the
	// model and the recommendation are per kind and environment.
	Env string `json:"env,omitempty"`
	// LiveHeap is the median live heap (/gc/heap/live:bytes) over the
	// windows after the warm-up: what the model's heap growth per cycle
	// is measured from.
	LiveHeap uint64 `json:"live_heap_bytes,omitempty"`
	// RunSeconds is how long the point's load ran (its end record's T):
	// at least -point-duration, longer while it waited for GC cycles.
	RunSeconds float64 `json:"run_s,omitempty"`
	// SettleSeconds is its settle phase's length (Settle); Unsettled
	// says why its memory did not reach a steady state ("" when it did or
	// there was no settle phase).
	SettleSeconds float64 `json:"settle_s,omitempty"`
	Unsettled     string  `json:"unsettled,omitempty"`
	// GCPct is the GC CPU share of busy CPU (%) over the windows after the
	// warm-up, and GCPctSE its standard error from the scatter of its
	// spans' shares (the verdict's spans: windows merged until a cycle
	// ends; 0 with fewer than two). Borderline: the point is healthy, or
	// elevated on its GC CPU, with GCPct within twice GCPctSE of the line
	// between the two (Thresholds.HealthyGC), so that another run of the
	// same setting could come out on the other side of it.
	GCPct      float64 `json:"gc_pct,omitempty"`
	GCPctSE    float64 `json:"gc_pct_se,omitempty"`
	Borderline bool    `json:"borderline,omitempty"`
	// Stage is why the point ran: "grid" (a grid the user gave), "fit"
	// (the model's first settings), "predicted" (the model's cheapest
	// setting that fits) or "neighbour" (the next one with less memory).
	Stage string `json:"stage,omitempty"`
}

// Recommendation is one kind's recommended setting (summary.json's
// recommendation[]) and its confirmation run. GOGC and MemLimit are 0
// when no setting fits (Fits false): Reason then names the nearest
// (NearestGOGC, NearestMemLimit), which is never recommended. A plain
// value.
type Recommendation struct {
	Kind     string `json:"kind"`
	Value    int64  `json:"value"`
	GOGC     int    `json:"gogc"`           // -1: off; 0: no setting fits
	MemLimit int64  `json:"memlimit_bytes"` // 0: none
	// MemLimitFraction is MemLimit as a fraction of the container (0:
	// none).
	MemLimitFraction float64 `json:"memlimit_fraction"`
	// Reason says why, in one sentence. A recommendation that is not
	// Confirmed is never the setting to use: its GOGC and MemLimit are 0
	// and its Reason begins "no recommendation".
	Reason string `json:"reason"`
	// Fits says whether some setting fit the limits (a candidate was
	// confirmed, or refuted: see Reason).
	Fits bool `json:"fits"`
	// Idle: the kind's collector (nearly) never ran at this rate, so GOGC
	// does not matter; the setting keeps GOGC 100 with a GOMEMLIMIT for
	// headroom.
	Idle bool `json:"idle,omitempty"`
	// The nearest setting when none fits (Fits false).
	NearestGOGC     int   `json:"nearest_gogc,omitempty"`
	NearestMemLimit int64 `json:"nearest_memlimit_bytes,omitempty"`
	// The prediction for the recommended setting: its point's steady GC
	// CPU per GB (FrontierPoint.SteadyGCCPUSPerGB) with its standard
	// error, and its point's peak RSS. CycleCost is the kind's median GC
	// CPU-seconds per cycle over its points, for the report.
	PredictedGCCPUSPerGB float64 `json:"predicted_gc_cpu_s_per_gb,omitempty"`
	PredictedGCCPUSE     float64 `json:"predicted_gc_cpu_se_s_per_gb,omitempty"`
	PredictedPeakRSS     uint64  `json:"predicted_peak_rss_bytes,omitempty"`
	CycleCost            float64 `json:"gc_cpu_s_per_cycle,omitempty"`
	// The confirmation run at the candidate setting: at least
	// -confirm-duration and FrontierConfirmCycles GC cycles after its
	// warm-up (at most FrontierCapFactor times the duration). Confirmed
	// when it is neither failed, degraded nor interrupted, fits the
	// container less its headroom and the SLO, its GC CPU per GB is not
	// above the prediction by more than FrontierConfirmTolerance and twice
	// their combined standard error (or FrontierConfirmFloor), and its
	// peak RSS not above the predicted by more than the tolerance. When
	// it is not, the next candidate is confirmed (at most one more), and
	// Refuted names each setting whose confirmation refuted it;
	// Undecided each whose confirmation was borderline (ConfirmInconclusive:
	// healthy or elevated within the noise of the line between them, and
	// nothing else against it), which is not recommended either.
	// ConfirmNote gives the last confirmation's figures (or why there was
	// none).
	Confirmed           bool     `json:"confirmed"`
	ConfirmGCCPUSPerGB  float64  `json:"confirm_gc_cpu_s_per_gb"`
	ConfirmGCCPUSE      float64  `json:"confirm_gc_cpu_se_s_per_gb,omitempty"` // the whole run's (FrontierPoint.GCCPUSE)
	ConfirmPeakRSS      uint64   `json:"confirm_peak_rss_bytes"`
	ConfirmCyclesPerGB  float64  `json:"confirm_gc_cycles_per_gb,omitempty"`
	ConfirmScenario     string   `json:"confirm_scenario,omitempty"`
	ConfirmClass        Class    `json:"confirm_class,omitempty"`
	ConfirmNote         string   `json:"confirm_note,omitempty"`
	Refuted             []string `json:"refuted,omitempty"`
	Undecided           []string `json:"undecided,omitempty"`
	ConfirmInconclusive bool     `json:"confirm_inconclusive,omitempty"`
	// Env is the build environment the recommendation is for ("": none).
	Env string `json:"env,omitempty"`
}

// FrontierModel is the check of the GC guide's model for one kind
// (summary.json's frontier_model[]): the slope of log(GC CPU per GB)
// against log(GOGC) over the points without a GOMEMLIMIT, beside the
// guide's inverse law (slope -1: doubling GOGC halves the GC CPU). A
// plain value.
type FrontierModel struct {
	Kind string `json:"kind"`
	// Slope is that of the steady figure (FrontierPoint.SteadyGCCPUSPerGB,
	// the raw one where a point has none); RawSlope that of each point's
	// own GC CPU per GB.
	Slope      float64 `json:"slope"`
	RawSlope   float64 `json:"raw_slope"`
	GuideSlope float64 `json:"guide_slope"`
	Points     int     `json:"points"` // points the fit used
	// GCFalls and RSSRises: over those points in GOGC order, every step
	// up in GOGC lowered the steady GC CPU per GB, and raised the peak RSS.
	GCFalls  bool   `json:"gc_falls_with_gogc"`
	RSSRises bool   `json:"rss_rises_with_gogc"`
	Note     string `json:"note"`
	// Env is the build environment of the points fitted ("": none).
	Env string `json:"env,omitempty"`
	// Prediction is the model-guided run's choice in one sentence: the
	// live heap, growth per cycle and cost per cycle it fitted, and the
	// settings it predicted cheapest within the container ("" for a grid
	// the user gave).
	Prediction string `json:"prediction,omitempty"`
}

// FrontierRun is the frontier's settings, for the reports. A plain value.
type FrontierRun struct {
	Container     int64         `json:"container_bytes"` // 0: none given (no recommendation)
	Headroom      float64       `json:"headroom"`        // the share of Container kept free for what the runtime cannot see
	RateMBps      float64       `json:"rate_mbps"`       // the open-loop rate every point ran at
	RateFrom      string        `json:"rate_from"`       // "-rate" or how the probe chose it
	PointDuration time.Duration `json:"point_duration_ns"`
	ConfirmFor    time.Duration `json:"confirm_duration_ns"`
	SLO           time.Duration `json:"slo_ns"`
	// Settle is the cap of every run's settle phase (-settle: closed loop
	// until its memory is steady, Scenario.Settle); 0: none.
	Settle time.Duration `json:"settle_ns,omitempty"`
	// Adaptive: the settings were chosen by the model (the fit settings,
	// then the predicted cheapest that fits and a neighbour); false: the
	// grid the user gave (-gogc, -memlimit-frac), every setting.
	Adaptive bool `json:"adaptive"`
	// Plan is the planned runs and Estimate their expected time, printed
	// before the first; Elapsed is what the frontier took.
	Plan     string        `json:"plan,omitempty"`
	Estimate time.Duration `json:"estimate_ns,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns,omitempty"`
	// EstimateLow and EstimateHigh bound Estimate (its middle): which
	// picks and confirmations run depends on the store.
	EstimateLow  time.Duration `json:"estimate_low_ns,omitempty"`
	EstimateHigh time.Duration `json:"estimate_high_ns,omitempty"`
}

// The death-spiral rule's defaults (health.InSpiral; gchealth's Spiral
// defaults too).
const (
	SpiralHeapPct = health.SpiralHeapPct
	SpiralGCPct   = health.SpiralGCPct
	SpiralWindows = health.SpiralWindows
)

// FrontierMinCycles is the fewest GC cycles a point must complete after
// its warm-up for its GC CPU per GB to count (the runtime's CPU counters
// advance only when a cycle ends).
const FrontierMinCycles = 2

// A frontier point runs at least -point-duration and until it completed
// FrontierTargetCycles GC cycles after its warm-up, at most
// FrontierCapFactor times -point-duration; a confirmation likewise with
// -confirm-duration and FrontierConfirmCycles. A point's GC CPU per GB
// rests on its cycles (the runtime's CPU counters advance only when one
// ends): at 15 s a point of a store with a large live heap at a low rate
// saw one cycle, and its figure was one cycle's cost over its bytes.
const (
	FrontierTargetCycles  = 6
	FrontierConfirmCycles = 10
	FrontierCapFactor     = 3
)

// RunDone says whether a run with a cycle target (Scenario.MinCycles >
// 0) may end after its windows ws (oldest first): its last window ended
// at MinRun or later, and either its windows after the warm-up completed
// MinCycles GC cycles, or they completed fewer than FrontierMinCycles and
// even at twice their pace the cap (Duration) would not bring that many
// (projectedCycles): a run that will be inconclusive ends at MinRun, not
// at its cap. A pure function.
func RunDone(s Scenario, ws []Sample) bool {
	if s.MinCycles <= 0 || len(ws) == 0 || ws[len(ws)-1].T < s.MinRun.Seconds() {
		return false
	}
	warm := s.EffectiveThresholds(s.Thresholds).Warmup.Seconds()
	var n uint64
	for _, w := range ws {
		if w.T >= warm {
			n += w.WinCycles
		}
	}
	switch {
	case n >= uint64(s.MinCycles):
		return true
	case s.Duration <= 0 || n >= FrontierMinCycles:
		return false
	}
	return projectedCycles(ws, warm, s.Duration.Seconds()) < FrontierMinCycles
}

// projectedCycles is how many GC cycles after the warm-up (warm, in
// seconds) a run whose windows are ws would complete by capAt seconds, at
// twice the pace they show (an optimistic figure: a run is cut short
// only when even it falls short). With cycles: twice their rate since
// the warm-up. Without: the heap objects' growth in the windows after the
// warm-up, at twice its rate, from the last window's heap objects to its
// goal, then one cycle per growth from its live heap to the goal.
func projectedCycles(ws []Sample, warm, capAt float64) float64 {
	last := ws[len(ws)-1]
	var n uint64
	var grew, span float64
	for i, w := range ws {
		if w.T < warm {
			continue
		}
		n += w.WinCycles
		if i > 0 && w.WinCycles == 0 {
			grew += max(float64(w.HeapObjects)-float64(ws[i-1].HeapObjects), 0)
			span += w.T - ws[i-1].T
		}
	}
	left := capAt - last.T
	if elapsed := last.T - warm; n > 0 && elapsed > 0 {
		return float64(n) + 2*float64(n)/elapsed*max(left, 0)
	}
	if grew <= 0 || span <= 0 || left <= 0 {
		return float64(n)
	}
	rate := 2 * grew / span
	first := max(float64(last.HeapGoal)-float64(last.HeapObjects), 0) / rate
	per := float64(last.HeapGoal) - float64(last.HeapLive)
	switch {
	case first > left:
		return 0
	case per <= 0:
		return FrontierMinCycles // no growth to a goal to go by: do not cut it short
	}
	return 1 + (left-first)*rate/per
}

// The settle phase (Scenario.Settle): one reading every SettleTick of
// the live heap after a GC cycle (a cycle forced when none ended since
// the last reading: the live heap is known only at a cycle's end) plus
// the engine's off-heap bytes; steady (SettleSteady) when the peak of the
// last SettleReadings readings is within SettleGrowth of the peak of the
// SettleReadings before them. It writes at most SettleMaxFills times the
// run's RSS cap: a store that fits in its container fills well within it.
const (
	SettleTick     = 500 * time.Millisecond
	SettleReadings = 4
	SettleGrowth   = 0.03
	SettleMaxFills = 16
)

// SettleSteady says whether memory readings (oldest first, one per
// SettleTick) have stopped growing: at least 2 x SettleReadings of them,
// and the peak of the last SettleReadings at most SettleGrowth above the
// peak of the SettleReadings before them. A store filling its buffer
// grows reading by reading; a full one swings around one level. A pure
// function.
func SettleSteady(mem []uint64) bool {
	n := SettleReadings
	if len(mem) < 2*n {
		return false
	}
	last, before := slices.Max(mem[len(mem)-n:]), slices.Max(mem[len(mem)-2*n:len(mem)-n])
	return float64(last) <= (1+SettleGrowth)*float64(before)
}

// Settle is a run's settle phase (the end record's settle): how long it
// wrote closed loop, what, the GC cycles it saw (Forced of them forced to
// read the live heap), its last memory reading (live heap plus off-heap
// bytes), and whether that was steady; Why says what ended it otherwise
// (its time cap, its bytes cap, the RSS cap). A plain value.
type Settle struct {
	Seconds float64 `json:"seconds"`
	Records int64   `json:"records"`
	MBps    float64 `json:"mbps"`
	Cycles  uint64  `json:"gc_cycles"`
	Forced  int     `json:"forced_gc"`
	Memory  uint64  `json:"memory_bytes"`
	Steady  bool    `json:"steady"`
	Why     string  `json:"why,omitempty"`
}

// FrontierConfirmTolerance is how far (relative) the confirmation run's
// GC CPU per GB and peak RSS may each lie from the grid's prediction for
// the recommendation to be confirmed.
const FrontierConfirmTolerance = 0.15

// FrontierConfirmFloor is the GC CPU-seconds per GB within which a
// confirmation's figure matches the prediction whatever their ratio: a
// store whose collector (nearly) never runs predicts about 0, and one
// cycle's 0.4 ms over 0.3 GB (0.0013) is no miss.
const FrontierConfirmFloor = 0.01
