package gcstress

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/writegc/writegc/gcstress/internal/plan"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// The capacity search (SetCapacity) is package gcstress/internal/plan;
// this file builds its steps' scenarios and runs a search per kind x
// capacity value size. Its settings:
const (
	// CapacityProbe is the closed-loop probe's length.
	CapacityProbe = plan.Probe
	// CapacityResolution: bisection stops when first unhealthy / highest
	// healthy is below 1 + CapacityResolution.
	CapacityResolution = results.CapacityResolution
	// CapacityMaxSteps bounds the bisection steps of one search (probe,
	// contended re-runs and confirmations excluded; those are bounded by
	// CapacityContendedRetries, CapacityConfirmRuns and CapacityMaxDescents).
	CapacityMaxSteps = plan.MaxSteps
	// CapacityMinAchieved: a step whose achieved rate after warm-up is
	// below this share of its target is unhealthy (limit results.LimitRate).
	CapacityMinAchieved = results.CapacityMinAchieved
	// CapacityContendedRetries bounds the re-runs of a step that failed on
	// latency or rate while the machine was busy.
	CapacityContendedRetries = plan.ContendedRetries
	// CapacityContendedWait is the pause before such a re-run.
	CapacityContendedWait = plan.ContendedWait
	// CapacityConfirmRuns is how many runs of the sustainable step must all
	// be healthy (the search's own run included).
	CapacityConfirmRuns = plan.ConfirmRuns
	// CapacityMaxDescents bounds the steps down (each with its bisection)
	// that failed confirmations take before the last candidate.
	CapacityMaxDescents = plan.MaxDescents
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

// capacityScenario is the scenario of one step (rate > 0) or of the probe
// (rate 0): the matrix's settings for kind and value, run for d.
func capacityScenario(c Config, kind string, value int64, mbpsTarget float64, d time.Duration) Scenario {
	s := Expand(Config{Kinds: []string{kind}, Values: []int64{value}, Keys: []int64{1},
		Memstore: c.Memstore, Regions: c.Regions, MemLimit: c.MemLimit, GOGC: c.GOGC, Path: c.Path,
		Transport: c.Transport, Writers: c.Writers, Window: c.Window, Backpressure: c.Backpressure,
		FlushBW: c.FlushBW, RSSCap: c.RSSCap, LatencyEvery: c.LatencyEvery, Sets: []string{SetMatrix},
		Seed: c.Seed, Thresholds: c.Thresholds, Out: c.Out})[0]
	s.Group, s.Duration, s.MinRun = SetCapacity, d, 0
	kv := float64(int64(workload.KeySize) + value)
	if mbpsTarget > 0 {
		s.Rate = mbpsTarget * results.BytesPerMB / kv
		// Enough keys for the whole step at the target; the cap ends it.
		s.Keys = int64(math.Ceil(s.Rate*d.Seconds())) + 1
		s.Name = fmt.Sprintf("%s/%s/%s@%.4gMB/s", SetCapacity, kind, workload.FormatSize(value), mbpsTarget)
		s.Preload = capacitySettle(c, value)
	} else {
		s.Keys = results.UnboundedKeys
		s.Name = fmt.Sprintf("%s/%s/%s/probe", SetCapacity, kind, workload.FormatSize(value))
	}
	if s.LatencyEvery == 0 {
		s.LatencyEvery = DefaultLatencyEvery // the SLO needs latencies
	}
	s.Dir = filepath.Join(c.Out, s.DirName())
	return s
}

// CapacitySettleFills is how many times over each step of a capacity
// search first fills every region's memtable, closed loop, before its
// open-loop clock starts (capacitySettle): the step judges a store whose
// first flushes are behind it, as the frontier's points do: from an empty
// store, steps failed while the memtables first filled and flushed
// (results/capacity-repeats/amd-settled).
const CapacitySettleFills = 3

// capacitySettle is the records a capacity step preloads:
// CapacitySettleFills times every region's memtable (-memstore x
// -regions) of key+value at value bytes, at most MaxPreload.
func capacitySettle(c Config, value int64) int64 {
	n := CapacitySettleFills * c.Memstore * int64(max(c.Regions, 1)) / (int64(workload.KeySize) + value)
	return min(n, MaxPreload)
}

// runCapacity runs the search for every kind x capacity value size, and
// with build environments (-build-envs) once per environment, interleaved:
// kind 1 in env A, in env B, then kind 2 (capacityEnvs). A
// repeat above 0 (a round of -count) is every step's Scenario.Repeat, so
// each round's steps have folders of their own, and each Capacity's Repeat.
func runCapacity(ctx context.Context, c Config, repeat int, run plan.Runner) ([]results.Capacity, error) {
	if repeat > 0 {
		inner := run
		run = func(ctx context.Context, s Scenario) (Result, error) {
			s.Repeat = repeat
			s.Dir = filepath.Join(c.Out, s.DirName())
			return inner(ctx, s)
		}
	}
	var out []results.Capacity
	for _, v := range c.CapacityValues {
		for _, k := range c.Kinds {
			for _, env := range capacityEnvs(c) {
				if ctx.Err() != nil {
					return out, nil
				}
				capa, err := plan.Search(ctx, capacityPlan(c, k, v, env, run))
				capa.Repeat, capa.Env = repeat, env
				if err != nil {
					return out, err
				}
				out = append(out, capa)
			}
		}
	}
	return out, nil
}

// capacityPlan is the search of kind x value under c's settings, every
// step in build environment env ("": the running binary).
func capacityPlan(c Config, kind string, value int64, env string, run plan.Runner) plan.SearchPlan {
	return plan.SearchPlan{Kind: kind, Value: value, SLO: c.SLO, StepDuration: c.StepDuration,
		Run: run, Thresholds: c.Thresholds,
		Scenario: func(mbps float64, d time.Duration) Scenario {
			return inBuildEnv(capacityScenario(c, kind, value, mbps, d), env, c.Out)
		}}
}
