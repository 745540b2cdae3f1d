package results

import (
	"time"

	"github.com/writegc/writegc/internal/stat"
)

// CapacityLimit names what made a capacity step unhealthy. The values are
// JSON strings (summary.json's capacity[].limit) and do not change.
type CapacityLimit string

// Capacity limits, in the order a failing step is blamed on them: a memory
// failure first, then the collector's CPU, assists, the heap, blocked
// writers, latency, and last the rate itself (the path could not keep up for another reason: CPU).
const (
	LimitNone   CapacityLimit = ""       // the step was healthy
	LimitMemory CapacityLimit = "memory" // hard cap passed, child died, or the failure condition
	LimitGCCPU  CapacityLimit = "gc_cpu" // the step's mean GC CPU share (SteadyGCPct) at or above Thresholds.HealthyGC
	LimitAssist CapacityLimit = "assist" // the step's mean assist share (SteadyAssistPct) at or above Thresholds.HealthyAssist
	LimitHeap   CapacityLimit = "heap"   // the heap past its goal at most window ends (HeapGoalPct over 100)
	// LimitBlocked: the writers were blocked by backpressure at least
	// BlockedDegraded of their time (Health.Cause CauseBlocked).
	LimitBlocked CapacityLimit = "blocked"
	LimitLatency CapacityLimit = "latency" // p99 from intended start above the SLO
	LimitRate    CapacityLimit = "rate"    // achieved below CapacityMinAchieved of the target
	// LimitInconclusive: the step left fewer than MinWindows windows after
	// the warm-up (a -step-duration too short for -window): too little data
	// to call it healthy, so the search takes it as unhealthy.
	LimitInconclusive CapacityLimit = "inconclusive"
)

// Capacity is one kind x value size's search result (summary.json's
// capacity list). SustainableMBps is 0 when even the lowest step was
// unhealthy; FirstUnhealthyMBps is 0 when no step was (the search stopped
// at twice the probe's rate), and set with Limit whenever one was.
// Contended says the machine's other load took CPU from its steps (the
// search stopped on a step it failed, or BusySteps > 0): SustainableMBps
// is then a lower bound, not a knee. A plain value.
type Capacity struct {
	Kind  string `json:"kind"`
	Value int64  `json:"value"`
	// Repeat is the round of a run with -count N > 1 (1 to N: each round
	// searches again); 0 when the run has one round (json: omitted).
	Repeat             int            `json:"repeat,omitempty"`
	SustainableMBps    float64        `json:"sustainable_mbps"`
	FirstUnhealthyMBps float64        `json:"first_unhealthy_mbps"`
	Limit              CapacityLimit  `json:"limit"`
	ProbeMBps          float64        `json:"probe_mbps"` // closed-loop MB/s of the probe
	SLO                time.Duration  `json:"slo_ns"`
	Steps              []CapacityStep `json:"steps"`
	Contended          bool           `json:"contended"`
	ContendedWhy       string         `json:"contended_why,omitempty"`
	// SustainableRuns is how many runs of the sustainable step were healthy
	// (CapacityConfirmRuns when confirmed); SpreadPct is their achieved
	// MB/s's (max-min)/median in percent.
	SustainableRuns int     `json:"sustainable_runs"`
	SpreadPct       float64 `json:"spread_pct"`
	// SustainableMBps is where the lowest bracketed fit of the steps'
	// figures reaches its limit (FitFigure, Fits; StepMBps when none is
	// bracketed). SustainableLoMBps and SustainableHiMBps are its interval
	// (see CapacityFit: where the fit shifted by the steps' own noise
	// crosses, widened to where the steps disagree and to the search's
	// resolution), or, when no figure brackets its limit, the step figure and
	// the first unhealthy rate. A contended search's interval is a lower
	// bound too.
	SustainableLoMBps float64 `json:"sustainable_lo_mbps"`
	SustainableHiMBps float64 `json:"sustainable_hi_mbps"`
	// StepMBps is the search's own pass/fail figure: the highest rate whose
	// every run was healthy (the confirmed step). SustainableMBps is the
	// fit's, from every step; this is beside it.
	StepMBps float64 `json:"step_sustainable_mbps"`
	// FitFigure names the figure whose fit gave SustainableMBps ("" when
	// none bracketed its limit: SustainableMBps is then StepMBps).
	FitFigure CapacityFigure `json:"fit_figure,omitempty"`
	// Fits is every figure's fit against the offered rate over the steps.
	Fits []CapacityFit `json:"fits,omitempty"`
	// BusySteps is how many steps ran while other processes and steal took
	// more than BusyCores; any makes the search Contended.
	BusySteps int `json:"busy_steps,omitempty"`
	// Env is the build environment (-build-envs) whose binary ran every
	// step of the search (its steps' Scenario.BuildEnv); "" when the run
	// has none (json: omitted).
	Env string `json:"env,omitempty"`
	// KneeCPUSPerGB is what the machine spent a GB near the knee
	// (KneeCPU), and KneeCores the CPU the process burned at its
	// sustainable rate: SustainableMBps x KneeCPUSPerGB / 1000, in cores.
	// A rate in MB/s moves with the machine's speed, and this says how much
	// CPU a GB took there; it is context, not a steadier verdict (three
	// searches on a 2-vCPU VM whose rates moved 1.3x held KneeCores within
	// 4%, three other series within 14-24%).
	// 0 when no step near the knee has a CPU figure (json: omitted).
	KneeCPUSPerGB float64 `json:"knee_cpu_s_per_gb,omitempty"`
	KneeCores     float64 `json:"knee_cores,omitempty"`
}

// KneeBandLo and KneeBandHi bound the offered rates, as fractions of the
// sustainable rate, whose steps KneeCPU reads.
const (
	KneeBandLo = 0.8
	KneeBandHi = 1.2
)

// KneeCPU is the median CPU-seconds per GB (CapacityStep.CPUSPerGB) of the
// search's steps offered between KneeBandLo and KneeBandHi times its
// sustainable rate, failed steps included; 0 when none has a CPU figure.
func (c Capacity) KneeCPU() float64 {
	var xs []float64
	for _, st := range c.Steps {
		if st.CPUSPerGB > 0 && st.TargetMBps >= KneeBandLo*c.SustainableMBps && st.TargetMBps <= KneeBandHi*c.SustainableMBps {
			xs = append(xs, st.CPUSPerGB)
		}
	}
	return stat.MedianOr(xs, 0)
}

// SetKnee sets KneeCPUSPerGB and KneeCores from the steps and the
// sustainable rate.
func (c *Capacity) SetKnee() {
	c.KneeCPUSPerGB = c.KneeCPU()
	c.KneeCores = c.SustainableMBps * c.KneeCPUSPerGB / 1000
}

// CapacityStep is one step of a search: its target, what it achieved, and
// whether it was healthy. A plain value.
type CapacityStep struct {
	Scenario     string        `json:"scenario"`
	TargetMBps   float64       `json:"target_mbps"`
	AchievedMBps float64       `json:"achieved_mbps"` // after warm-up
	GCPct        float64       `json:"gc_pct"`        // worst window after warm-up (recorded, not judged)
	AssistPct    float64       `json:"assist_pct"`    // worst window after warm-up (recorded, not judged)
	P99          int64         `json:"ilat_p99_ns"`   // from intended start, after warm-up
	Class        Class         `json:"class"`
	Healthy      bool          `json:"healthy"`
	Limit        CapacityLimit `json:"limit,omitempty"`
	Why          string        `json:"why,omitempty"`
	OthersCores  float64       `json:"others_cores"`        // other processes and steal while it ran
	Contended    bool          `json:"contended,omitempty"` // failed on latency or rate while the machine was busy
	Repeat       bool          `json:"repeat,omitempty"`    // a re-run (contention or confirmation)
	// The step's steady figures, over its windows after the warm-up (what
	// the step is judged on and the capacity fit reads): GC and assist CPU
	// over busy CPU summed over those windows (both runtime P-time, so the
	// share does not move when the OS takes the threads' CPUs away), the
	// heap's median share of its goal at their ends (the worst, in
	// summaries before 2026-12-02), and the end record's CPU and GC CPU
	// seconds per GB (Cost).
	SteadyGCPct     float64 `json:"steady_gc_pct,omitempty"`
	SteadyAssistPct float64 `json:"steady_assist_pct,omitempty"`
	HeapGoalPct     float64 `json:"heap_goal_pct,omitempty"`
	CPUSPerGB       float64 `json:"cpu_s_per_gb,omitempty"`
	GCCPUSPerGB     float64 `json:"gc_cpu_s_per_gb,omitempty"`
	// SpanGCPct and SpanAssistPct are the GC and assist shares of each
	// classifier span (windows merged until one holds a completed GC
	// cycle) after the warm-up, in order (GCPct and AssistPct are their
	// maxima): what one cycle did, recorded but not judged (a step is
	// judged on its mean shares). Absent in summaries written before they
	// were recorded.
	SpanGCPct     []float64 `json:"span_gc_pct,omitempty"`
	SpanAssistPct []float64 `json:"span_assist_pct,omitempty"`
}

// The capacity search's resolution and rate bar, which every capacity
// report prints (package gcstress runs the search).
const (
	// CapacityResolution: bisection stops when first unhealthy / highest
	// healthy is below 1 + CapacityResolution.
	CapacityResolution = 0.10
	// CapacityMinAchieved: a step whose achieved rate after warm-up is
	// below this share of its target is unhealthy (limit LimitRate).
	CapacityMinAchieved = 0.95
)
