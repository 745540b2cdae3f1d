package results

import "time"

// The frontier (SetFrontier): per kind, a grid of GOGC x GOMEMLIMIT
// settings, each one child run at one open-loop rate, measured for GC CPU
// per GB against peak memory; the Pareto set of those points; and, given
// the container's size, the setting recommended and its confirmation run.
// Package gcstress/internal/frontier computes every figure below from the
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
	Reason   string `json:"reason"`
	Fits     bool   `json:"fits"`
	// The nearest setting when none fits (Fits false).
	NearestGOGC     int   `json:"nearest_gogc,omitempty"`
	NearestMemLimit int64 `json:"nearest_memlimit_bytes,omitempty"`
	// The prediction for the recommended setting: its grid point's steady
	// GC CPU per GB (FrontierPoint.SteadyGCCPUSPerGB) with its standard
	// error, and its point's peak RSS; or, where that error was too wide
	// for a confirmation to decide (over half FrontierConfirmTolerance),
	// the refined prediction: the refine run (RefineScenario, as long as
	// the confirmation) pooled with the grid point over their bytes, and
	// the refine run's peak RSS. GridGCCPUSPerGB is the grid's prediction
	// (the steady figure), kept when refined; GridPointGCCPUSPerGB the grid
	// point's own figure, the one pooled. CycleCost is the kind's median GC CPU-seconds per cycle
	// over its points, for the report.
	PredictedGCCPUSPerGB float64 `json:"predicted_gc_cpu_s_per_gb,omitempty"`
	PredictedGCCPUSE     float64 `json:"predicted_gc_cpu_se_s_per_gb,omitempty"`
	PredictedPeakRSS     uint64  `json:"predicted_peak_rss_bytes,omitempty"`
	CycleCost            float64 `json:"gc_cpu_s_per_cycle,omitempty"`
	GridGCCPUSPerGB      float64 `json:"grid_gc_cpu_s_per_gb,omitempty"`
	GridPointGCCPUSPerGB float64 `json:"grid_point_gc_cpu_s_per_gb,omitempty"`
	RefineScenario       string  `json:"refine_scenario,omitempty"`
	RefineGCCPUSPerGB    float64 `json:"refine_gc_cpu_s_per_gb,omitempty"`
	RefinePeakRSS        uint64  `json:"refine_peak_rss_bytes,omitempty"`
	// RefineFor is the refine run's length and its confirmation's
	// (frontier.RefineDuration), which replaces -confirm-duration for them.
	RefineFor time.Duration `json:"refine_duration_ns,omitempty"`
	// The confirmation run at the recommended setting, longer than a grid
	// point. Refined (RefineScenario set): Confirmed when it is not
	// failed and its GC CPU per GB and peak RSS over the whole run are
	// within FrontierConfirmTolerance of the refined prediction (two runs
	// of one length, like for like). Otherwise: Confirmed when it is not
	// failed, its GC CPU per GB and peak
	// RSS over a grid point's span (its first point-duration:
	// ConfirmSpanGCCPUSPerGB, ConfirmSpanPeakRSS) are both within
	// FrontierConfirmTolerance of the prediction, and its GC CPU per GB
	// over the whole run (ConfirmGCCPUSPerGB) is not above the prediction
	// by more than it (a store that costs less once its start-up cycles
	// are behind it still holds the recommendation). ConfirmPeakRSS is its
	// peak over the whole run, reported beside it. ConfirmNote gives the
	// figures (or why there was no confirmation).
	Confirmed              bool    `json:"confirmed"`
	ConfirmGCCPUSPerGB     float64 `json:"confirm_gc_cpu_s_per_gb"`
	ConfirmGCCPUSE         float64 `json:"confirm_gc_cpu_se_s_per_gb,omitempty"` // the whole run's (FrontierPoint.GCCPUSE)
	ConfirmPeakRSS         uint64  `json:"confirm_peak_rss_bytes"`
	ConfirmSpanPeakRSS     uint64  `json:"confirm_span_peak_rss_bytes,omitempty"`
	ConfirmSpanGCCPUSPerGB float64 `json:"confirm_span_gc_cpu_s_per_gb,omitempty"`
	ConfirmCyclesPerGB     float64 `json:"confirm_gc_cycles_per_gb,omitempty"`
	ConfirmScenario        string  `json:"confirm_scenario,omitempty"`
	ConfirmClass           Class   `json:"confirm_class,omitempty"`
	ConfirmNote            string  `json:"confirm_note,omitempty"`
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
	// Settle is the writing every point started with (-settle: the
	// records the rate writes in it, preloaded closed loop); 0: none.
	Settle time.Duration `json:"settle_ns,omitempty"`
}

// The death-spiral rule's defaults (gchealth's Spiral defaults too).
const (
	SpiralHeapPct = 95.0
	SpiralGCPct   = 50.0
	SpiralWindows = 3
)

// InSpiral says whether one window meets the death-spiral condition: a
// GOMEMLIMIT (memLimit > 0) that the live heap reaches to heapPct percent
// while the collector runs flat out (gcPct, its span's GC CPU share, at
// or above spiralGCPct, or the limiter engaged). A pure function: the one
// rule of gchealth and the frontier.
func InSpiral(heapLive, memLimit uint64, gcPct float64, limiter bool, heapPct, spiralGCPct float64) bool {
	return memLimit > 0 && float64(heapLive) >= heapPct/100*float64(memLimit) && (gcPct >= spiralGCPct || limiter)
}

// FrontierMinCycles is the fewest GC cycles a point must complete after
// its warm-up for its GC CPU per GB to count (the runtime's CPU counters
// advance only when a cycle ends).
const FrontierMinCycles = 2

// FrontierConfirmTolerance is how far (relative) the confirmation run's
// GC CPU per GB and peak RSS may each lie from the grid's prediction for
// the recommendation to be confirmed.
const FrontierConfirmTolerance = 0.15

// FrontierConfirmFloor is the GC CPU-seconds per GB within which a
// confirmation's figure matches the prediction whatever their ratio: a
// store whose collector (nearly) never runs predicts about 0, and one
// cycle's 0.4 ms over 0.3 GB (0.0013) is no miss.
const FrontierConfirmFloor = 0.01
