package results

// CapacityFigure names a figure the capacity fit reads from each step
// (CapacityStep) and holds against its limit. The values are JSON strings
// (summary.json's capacity[].fits[].figure) and do not change.
type CapacityFigure string

// The fitted figures, in the order their limits are listed.
const (
	FigureGCPct     CapacityFigure = "gc_pct"        // SteadyGCPct against Thresholds.HealthyGC (FitUnhealthySpans in older summaries)
	FigureAssistPct CapacityFigure = "assist_pct"    // SteadyAssistPct against Thresholds.HealthyAssist
	FigureHeapGoal  CapacityFigure = "heap_goal_pct" // HeapGoalPct against 100
	FigureP99       CapacityFigure = "ilat_p99_ms"   // P99 (ms) against the SLO
	// FigureUnhealthy is the share of a rate's steps that were unhealthy
	// on any limit (0 or 100 a step), an isotonic mean (FitShare),
	// against CapacityFailShare: the rate at which a step fails as often
	// as it passes. It places the knee where a figure's level does not:
	// heap's mean GC share saturates just under 10% past its knee
	// (results/capacity-repeats/quiet-start: 9.8-10.2% from 46 to 77
	// MB/s), so its fit crossed at 68.7 MB/s above steps that failed at
	// 45.8, 49.9 and 54.4.
	FigureUnhealthy CapacityFigure = "unhealthy_pct"
)

// CapacityFailShare is FigureUnhealthy's limit: the percentage of a rate's
// steps that fail at which that rate is past the knee.
const CapacityFailShare = 50.0

// CapacityFit is one figure's fit against the offered rate over a search's
// steps. Every figure is a FitIsotonic fit (summaries written before
// 2026-12-02 hold FitUnhealthySpans fits of the GC and assist shares, read
// as they were): the isotonic median regression of the figure on the rate (the
// non-decreasing curve closest to the steps, each level the median of the
// steps it pools, so one noisy step cannot lift or sink it; no shape is
// assumed, where a line through a search's steps missed its knee), and the
// rate where it reaches Limit, interpolated in ln rate between the two
// levels around it. The interval: where the curve raised and lowered by the
// steps' robust residual spread (Spread) reaches Limit, widened to the band
// where the steps disagree (from the lowest rate a step failed the limit
// at to the highest it passed at, or the two tested rates around the knee)
// and to at least CapacityResolution each way. Bracketed says the steps
// hold the figure both below and at or above its limit and the classifier
// failed at least one step on it: only then is the crossing read from the
// data, and only a bracketed fit gives a search's sustainable rate. A plain
// value.
type CapacityFit struct {
	Figure    CapacityFigure `json:"figure"`
	Limit     float64        `json:"limit"`
	Points    int            `json:"points"`
	Bracketed bool           `json:"bracketed"`
	Model     FitModel       `json:"model"`
	// CrossMBps is where the curve reaches Limit, held within the tested
	// rates' range widened by CapacityFitReach each way; LoMBps and HiMBps
	// are its interval.
	CrossMBps float64 `json:"cross_mbps"`
	LoMBps    float64 `json:"lo_mbps"`
	HiMBps    float64 `json:"hi_mbps"`
	// Spread is the steps' robust residual spread about the curve (1.4826
	// median absolute deviations, in the figure's unit).
	Spread float64 `json:"spread"`
	// Curve is the fitted level at each tested rate, by rate.
	Curve []CapacityFitPoint `json:"curve,omitempty"`
	// Threshold (FitUnhealthySpans, older summaries) is the share a span is unhealthy
	// at (Thresholds.HealthyGC or HealthyAssist, %); Limit is then the
	// percentage of unhealthy spans the crossing is read at. A FitShare
	// fit holds Thresholds.HealthyGC there, the line its interval is
	// drawn along in the knee chart.
	Threshold float64 `json:"threshold,omitempty"`
}

// FitModel names a CapacityFit's model. The values are JSON strings and
// do not change.
type FitModel string

// The fit models.
const (
	FitIsotonic FitModel = "isotonic" // isotonic median regression
	// FitShare: the isotonic mean (pool-adjacent-violators of the steps'
	// 0/100 verdicts), a share of failing steps; FigureUnhealthy's model.
	FitShare FitModel = "isotonic_share"
	// FitUnhealthySpans: the share of the steps' spans that were unhealthy
	// on the figure, an isotonic (pooled) proportion, read where a step
	// passes half the time; its interval inverted one-sided binomial
	// tests. Written by searches before 2026-12-02 (CHANGELOG); read and
	// drawn, no longer fitted.
	FitUnhealthySpans FitModel = "unhealthy_spans"
)

// CapacityFitPoint is one level of a CapacityFit's curve.
type CapacityFitPoint struct {
	MBps  float64 `json:"mbps"`
	Value float64 `json:"value"`
}

// CapacityFitReach is how far past the tested rates a crossing may lie (a
// factor each way): a curve that does not reach its limit within the steps
// says only that the limit lies beyond them.
const CapacityFitReach = 2.0
