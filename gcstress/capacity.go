package gcstress

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/writegc/writegc/internal/workload"
)

// The capacity search (SetCapacity) finds, for each kind and value size, the
// highest open-loop write rate at which the collector stays healthy. A
// rate is comparable between machines and layouts where a collapse is
// not: it is the Go counterpart of a storage engine's sustained write
// rate, gated on GC health instead of stalls.
//
// Search: a short closed-loop probe measures what the path does flat out
// (C); steps then run at C/16, C/8, ... doubling until a step is unhealthy
// (or C*2 is passed), then bisect (geometric midpoints) between the last
// healthy and the first unhealthy rate until they are within
// CapacityResolution of each other or CapacityMaxSteps ran. Every step is
// one child process, a Result of its own (Group SetCapacity).
const (
	// CapacityProbe is the closed-loop probe's length.
	CapacityProbe = 3 * time.Second
	// CapacityResolution: bisection stops when first unhealthy / highest
	// healthy is below 1 + CapacityResolution.
	CapacityResolution = 0.10
	// CapacityMaxSteps bounds the steps of one search (probe excluded).
	CapacityMaxSteps = 10
	// CapacityMinAchieved: a step whose achieved rate after warm-up is
	// below this share of its target is unhealthy (limit LimitRate).
	CapacityMinAchieved = 0.95
)

// DefaultSLO is the default latency limit of a capacity step: the p99 of
// latency from intended start, after warm-up. It is 50 ms, not the 10 ms
// an interactive store might promise, because at 10 ms the limit measured
// the Go scheduler rather than the collector: with as many busy goroutines
// as Ps (writers plus a flusher draining a memtable), a Put that falls due
// while its writer waits for a P waits out a 10 ms preemption slice, and a
// search at 10 ms stopped every kind at 1/10 to 1/4 of its closed-loop rate
// on "latency" with GC CPU under 5% (results/gcstress/robust). 50 ms is
// above a few such slices and below what the collector's own failures
// cost: an assist storm or a heap past its goal delays Puts by hundreds of
// milliseconds.
const DefaultSLO = 50 * time.Millisecond

// DefaultStepDuration is how long one capacity step runs: the classifier's
// warm-up plus four windows.
const DefaultStepDuration = 6 * time.Second

// CapacityLimit names what made a capacity step unhealthy. The values are
// JSON strings (summary.json's capacity[].limit) and do not change.
type CapacityLimit string

// Capacity limits, in the order a failing step is blamed on them: a memory
// failure first, then the collector's CPU, assists, latency, and last the
// rate itself (the path could not keep up for another reason: CPU).
const (
	LimitNone    CapacityLimit = ""        // the step was healthy
	LimitMemory  CapacityLimit = "memory"  // hard cap passed, child died, or the failure condition
	LimitGCCPU   CapacityLimit = "gc_cpu"  // a window's GC CPU share at or above Thresholds.HealthyGC
	LimitAssist  CapacityLimit = "assist"  // a window's assist share at or above Thresholds.HealthyAssist
	LimitHeap    CapacityLimit = "heap"    // a window's heap passed its goal
	LimitLatency CapacityLimit = "latency" // p99 from intended start above the SLO
	LimitRate    CapacityLimit = "rate"    // achieved below CapacityMinAchieved of the target
)

// Capacity is one kind x value size's search result (summary.json's
// capacity list). SustainableMBps is 0 when even the lowest step was
// unhealthy; FirstUnhealthyMBps is 0 when no step was (the search stopped
// at twice the probe's rate). A plain value.
type Capacity struct {
	Kind               string         `json:"kind"`
	Value              int64          `json:"value"`
	SustainableMBps    float64        `json:"sustainable_mbps"`
	FirstUnhealthyMBps float64        `json:"first_unhealthy_mbps"`
	Limit              CapacityLimit  `json:"limit"`
	ProbeMBps          float64        `json:"probe_mbps"` // closed-loop MB/s of the probe
	SLO                time.Duration  `json:"slo_ns"`
	Steps              []CapacityStep `json:"steps"`
}

// CapacityStep is one step of a search: its target, what it achieved, and
// whether it was healthy. A plain value.
type CapacityStep struct {
	Scenario     string        `json:"scenario"`
	TargetMBps   float64       `json:"target_mbps"`
	AchievedMBps float64       `json:"achieved_mbps"` // after warm-up
	GCPct        float64       `json:"gc_pct"`        // worst window after warm-up
	AssistPct    float64       `json:"assist_pct"`    // worst window after warm-up
	P99          int64         `json:"ilat_p99_ns"`   // from intended start, after warm-up
	Class        Class         `json:"class"`
	Healthy      bool          `json:"healthy"`
	Limit        CapacityLimit `json:"limit,omitempty"`
	Why          string        `json:"why,omitempty"`
}

// capacityScenario is the scenario of one step (rate > 0) or of the probe
// (rate 0): the matrix's settings for kind and value, run for d.
func capacityScenario(c Config, kind string, value int64, mbpsTarget float64, d time.Duration) Scenario {
	s := Expand(Config{Kinds: []string{kind}, Values: []int64{value}, Keys: []int64{1},
		Memstore: c.Memstore, Regions: c.Regions, MemLimit: c.MemLimit, GOGC: c.GOGC, Path: c.Path,
		Transport: c.Transport, Writers: c.Writers, Window: c.Window, Backpressure: c.Backpressure,
		FlushBW: c.FlushBW, RSSCap: c.RSSCap, LatencyEvery: c.LatencyEvery, Sets: []string{SetMatrix},
		Seed: c.Seed, Thresholds: c.Thresholds, Out: c.Out})[0]
	s.Group, s.Duration = SetCapacity, d
	kv := float64(int64(workload.KeySize) + value)
	if mbpsTarget > 0 {
		s.Rate = mbpsTarget * bytesPerMB / kv
		// Enough keys for the whole step at the target; the cap ends it.
		s.Keys = int64(math.Ceil(s.Rate*d.Seconds())) + 1
		s.Name = fmt.Sprintf("%s/%s/%s@%.4gMB/s", SetCapacity, kind, workload.FormatSize(value), mbpsTarget)
	} else {
		s.Keys = math.MaxInt64 / 2
		s.Name = fmt.Sprintf("%s/%s/%s/probe", SetCapacity, kind, workload.FormatSize(value))
	}
	if s.LatencyEvery == 0 {
		s.LatencyEvery = DefaultLatencyEvery // the SLO needs latencies
	}
	s.Dir = filepath.Join(c.Out, s.dirName())
	return s
}

// stepRunner runs one scenario and returns its Result (runWith's loop
// body: progress, observer, profiles).
type stepRunner func(ctx context.Context, s Scenario) (Result, error)

// searchCapacity runs one kind x value size's search.
func searchCapacity(ctx context.Context, c Config, kind string, value int64, run stepRunner) (Capacity, error) {
	capa := Capacity{Kind: kind, Value: value, SLO: c.SLO}
	probe, err := run(ctx, capacityScenario(c, kind, value, 0, CapacityProbe))
	if err != nil || probe.End == nil || probe.End.MBps <= 0 {
		return capa, err // no probe figure: nothing to search (interrupted or the child died)
	}
	capa.ProbeMBps = probe.End.MBps
	lo, hi := 0.0, 0.0 // highest healthy, lowest unhealthy target
	var hiLimit CapacityLimit
	next := capa.ProbeMBps / 16
	for len(capa.Steps) < CapacityMaxSteps && ctx.Err() == nil {
		res, err := run(ctx, capacityScenario(c, kind, value, next, c.StepDuration))
		if err != nil {
			return capa, err
		}
		st := judgeStep(res, next, c)
		capa.Steps = append(capa.Steps, st)
		if st.Healthy {
			lo = next
		} else {
			hi, hiLimit = next, st.Limit
		}
		switch {
		case hi == 0 && lo >= 2*capa.ProbeMBps:
			next = 0 // healthy far past the closed-loop rate: stop
		case hi == 0:
			next = lo * 2
		case lo == 0 && hi <= capa.ProbeMBps/64:
			next = 0 // unhealthy at a 64th of the probe: call it 0
		case lo == 0:
			next = hi / 2
		case hi/lo < 1+CapacityResolution:
			next = 0
		default:
			next = math.Sqrt(lo * hi)
		}
		if next == 0 {
			break
		}
	}
	capa.SustainableMBps, capa.FirstUnhealthyMBps, capa.Limit = lo, hi, hiLimit
	return capa, nil
}

// judgeStep decides whether a step was healthy and, if not, which limit
// failed it (the first in CapacityLimit's order).
func judgeStep(r Result, target float64, c Config) CapacityStep {
	st := CapacityStep{Scenario: r.Scenario.Name, TargetMBps: target, Class: r.Verdict.Class}
	if r.End != nil {
		st.AchievedMBps, st.P99 = r.End.SteadyMBps, r.End.SteadyILatP99
	}
	warm := c.Thresholds.Warmup.Seconds()
	limit, why := LimitNone, ""
	blame := func(l CapacityLimit, format string, args ...any) {
		if limit == LimitNone {
			limit, why = l, fmt.Sprintf(format, args...)
		}
	}
	if r.Verdict.Class == Failed || r.End == nil {
		why := r.Verdict.Why
		if why == "" {
			why = "the child left no end record"
		}
		blame(LimitMemory, "%s", why)
	}
	for i, wh := range r.Verdict.Windows {
		if wh.T < warm && i < len(r.Verdict.Windows)-1 {
			continue
		}
		st.GCPct, st.AssistPct = max(st.GCPct, wh.GCPct), max(st.AssistPct, wh.AssistPct)
		switch {
		case wh.GCPct >= c.Thresholds.HealthyGC:
			blame(LimitGCCPU, "GC CPU %.1f%% >= %g%% at %.1f s", wh.GCPct, c.Thresholds.HealthyGC, wh.T)
		case wh.AssistPct >= c.Thresholds.HealthyAssist:
			blame(LimitAssist, "assist %.1f%% >= %g%% at %.1f s", wh.AssistPct, c.Thresholds.HealthyAssist, wh.T)
		case wh.OverGoal:
			blame(LimitHeap, "heap above its goal at %.1f s", wh.T)
		}
	}
	if c.SLO > 0 && st.P99 > int64(c.SLO) {
		blame(LimitLatency, "p99 from intended start %s > %v", ns(st.P99), c.SLO)
	}
	if st.AchievedMBps < CapacityMinAchieved*target {
		blame(LimitRate, "achieved %.3g MB/s < %.0f%% of %.3g", st.AchievedMBps, 100*CapacityMinAchieved, target)
	}
	st.Limit, st.Why, st.Healthy = limit, why, limit == LimitNone
	return st
}

// runCapacity runs the search for every kind x capacity value size.
func runCapacity(ctx context.Context, c Config, run stepRunner) ([]Capacity, error) {
	var out []Capacity
	for _, v := range c.CapacityValues {
		for _, k := range c.Kinds {
			if ctx.Err() != nil {
				return out, nil
			}
			capa, err := searchCapacity(ctx, c, k, v, run)
			if err != nil {
				return out, err
			}
			out = append(out, capa)
		}
	}
	return out, nil
}
