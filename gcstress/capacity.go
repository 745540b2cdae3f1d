package gcstress

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
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
//
// A stolen core is not a collapse. A step that fails only on latency or on
// the achieved rate while other processes and steal took more than
// BusyCores is re-run, after CapacityContendedWait, up to
// CapacityContendedRetries times; if the machine stays busy the search stops
// there and the result is Contended: its figure is what the search reached,
// not a knee. A step failed by the collector (GC CPU, assists, heap, memory)
// is a knee whatever the load.
//
// The boundary is confirmed. Health near the knee is noisy (a step can fail
// at one rate and pass at a lower one by a few percent of GC CPU), so the
// highest healthy step is run CapacityConfirmRuns times in all; if a repeat
// is unhealthy the search steps down to the next lower healthy rate,
// bisects the gap to the failed one again, and confirms the result (at most
// CapacityMaxDescents times, then the highest rate below every failure). The sustainable
// figure is the rate every run held, and its spread (max-min over median of
// the runs' achieved MB/s) is reported.
const (
	// CapacityProbe is the closed-loop probe's length.
	CapacityProbe = 3 * time.Second
	// CapacityResolution: bisection stops when first unhealthy / highest
	// healthy is below 1 + CapacityResolution.
	CapacityResolution = results.CapacityResolution
	// CapacityMaxSteps bounds the bisection steps of one search (probe,
	// contended re-runs and confirmations excluded; those are bounded by
	// CapacityContendedRetries, CapacityConfirmRuns and CapacityMaxDescents).
	CapacityMaxSteps = 10
	// CapacityMinAchieved: a step whose achieved rate after warm-up is
	// below this share of its target is unhealthy (limit LimitRate).
	CapacityMinAchieved = results.CapacityMinAchieved
	// CapacityContendedRetries bounds the re-runs of a step that failed on
	// latency or rate while the machine was busy.
	CapacityContendedRetries = 2
	// CapacityContendedWait is the pause before such a re-run.
	CapacityContendedWait = 2 * time.Second
	// CapacityConfirmRuns is how many runs of the sustainable step must all
	// be healthy (the search's own run included).
	CapacityConfirmRuns = 3
	// CapacityMaxDescents bounds the steps down (each with its bisection)
	// that failed confirmations take before the last candidate.
	CapacityMaxDescents = 3
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
		s.Rate = mbpsTarget * bytesPerMB / kv
		// Enough keys for the whole step at the target; the cap ends it.
		s.Keys = int64(math.Ceil(s.Rate*d.Seconds())) + 1
		s.Name = fmt.Sprintf("%s/%s/%s@%.4gMB/s", SetCapacity, kind, workload.FormatSize(value), mbpsTarget)
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

// stepRunner runs one scenario and returns its Result (runWith's loop
// body: progress, observer, profiles).
type stepRunner func(ctx context.Context, s Scenario) (Result, error)

// search is one kind x value size's capacity search in progress.
type search struct {
	c     Config
	kind  string
	value int64
	run   stepRunner
	capa  *Capacity
}

// searchCapacity runs one kind x value size's search.
func searchCapacity(ctx context.Context, c Config, kind string, value int64, run stepRunner) (Capacity, error) {
	capa := Capacity{Kind: kind, Value: value, SLO: c.SLO}
	probe, err := run(ctx, capacityScenario(c, kind, value, 0, CapacityProbe))
	if err != nil || probe.End == nil || probe.End.MBps <= 0 {
		return capa, err // no probe figure: nothing to search (interrupted or the child died)
	}
	capa.ProbeMBps = probe.End.MBps
	s := &search{c: c, kind: kind, value: value, run: run, capa: &capa}
	lo, hi, hiLimit, err := s.bisect(ctx)
	if err == nil && !capa.Contended && lo > 0 {
		lo, hi, hiLimit, err = s.confirm(ctx, lo, hi, hiLimit)
	}
	capa.SustainableMBps, capa.FirstUnhealthyMBps, capa.Limit = lo, hi, hiLimit
	return capa, err
}

// bisect doubles, then bisects, until the knee is found, the budget of
// steps is spent or a step is contended. It returns the highest healthy and
// the lowest unhealthy target.
func (s *search) bisect(ctx context.Context) (lo, hi float64, hiLimit CapacityLimit, err error) {
	return s.narrow(ctx, 0, 0, LimitNone, s.capa.ProbeMBps/16)
}

// narrow is bisect's loop from a known lo (0: none) and hi (0: none),
// starting at next.
func (s *search) narrow(ctx context.Context, lo, hi float64, hiLimit CapacityLimit, next float64) (float64, float64, CapacityLimit, error) {
	probe := s.capa.ProbeMBps
	for steps := 0; steps < CapacityMaxSteps && next > 0 && ctx.Err() == nil; steps++ {
		st, err := s.step(ctx, next, false)
		if err != nil || st.Contended {
			return lo, hi, hiLimit, err
		}
		if st.Healthy {
			lo = next
		} else {
			hi, hiLimit = next, st.Limit
		}
		switch {
		case hi == 0 && lo >= 2*probe:
			next = 0 // healthy far past the closed-loop rate: stop
		case hi == 0:
			next = lo * 2
		case lo == 0 && hi <= probe/64:
			next = 0 // unhealthy at a 64th of the probe: call it 0
		case lo == 0:
			next = hi / 2
		case hi/lo < 1+CapacityResolution:
			next = 0
		default:
			next = math.Sqrt(lo * hi)
		}
	}
	return lo, hi, hiLimit, nil
}

// confirm re-runs the highest healthy target until CapacityConfirmRuns runs
// of it were healthy; a failed repeat makes it the first unhealthy rate and
// moves down to the next lower healthy one (or half of it). On each of the
// first CapacityMaxDescents descents the gap between that one and the failed
// rate is bisected again when it is wider than the resolution (the lower
// healthy step may lie far below: the doubling's last), so that noisy
// repeats at a fuzzy knee do not halve the figure: at 85a5c10 a quiet heap
// search whose repeats failed at 29.1 and then 26.6 MB/s fell to the
// doubling's 13.3, where another run of the same commit found 23.9. When the
// descents are spent, each next candidate is the highest rate below every
// failed one (belowEveryFailure), with no more bisection, until one is
// confirmed or none is left (0).
func (s *search) confirm(ctx context.Context, lo, hi float64, hiLimit CapacityLimit) (float64, float64, CapacityLimit, error) {
	for descents := 0; lo > 0 && ctx.Err() == nil; {
		ok, err := s.repeat(ctx, lo)
		if err != nil || s.capa.Contended || ok {
			return lo, hi, hiLimit, err
		}
		if ctx.Err() != nil {
			break
		}
		last := s.capa.Steps[len(s.capa.Steps)-1]
		hi, hiLimit = lo, last.Limit
		if descents++; descents > CapacityMaxDescents {
			// Each failed candidate lowers the floor, so this ends.
			lo = s.belowEveryFailure()
			continue
		}
		lo = s.healthyBelow(lo)
		if hi/lo >= 1+CapacityResolution {
			var err error
			if lo, hi, hiLimit, err = s.narrow(ctx, lo, hi, hiLimit, math.Sqrt(lo*hi)); err != nil || s.capa.Contended {
				return lo, hi, hiLimit, err
			}
		}
	}
	s.capa.SustainableRuns = len(s.healthyRuns(lo))
	return lo, hi, hiLimit, nil
}

// repeat runs target until CapacityConfirmRuns of its runs were healthy (true,
// and the capacity's runs and spread are set) or one is not (false).
func (s *search) repeat(ctx context.Context, target float64) (bool, error) {
	runs := s.healthyRuns(target)
	for len(runs) < CapacityConfirmRuns && ctx.Err() == nil {
		st, err := s.step(ctx, target, true)
		if err != nil || st.Contended {
			return false, err
		}
		if !st.Healthy {
			return false, nil
		}
		runs = append(runs, st.AchievedMBps)
	}
	if len(runs) < CapacityConfirmRuns {
		return false, nil
	}
	s.capa.SustainableRuns, s.capa.SpreadPct = len(runs), spreadPct(runs)
	return true, nil
}

// belowEveryFailure is the highest target that had a healthy run and lies
// below every target that had an unhealthy one; 0 when there is none.
func (s *search) belowEveryFailure() float64 {
	floor := math.Inf(1)
	for _, st := range s.capa.Steps {
		if !st.Healthy && st.TargetMBps > 0 {
			floor = min(floor, st.TargetMBps)
		}
	}
	best := 0.0
	for _, st := range s.capa.Steps {
		if st.Healthy && st.TargetMBps < floor {
			best = max(best, st.TargetMBps)
		}
	}
	return best
}

// healthyRuns is the achieved MB/s of every healthy run at target.
func (s *search) healthyRuns(target float64) []float64 {
	var out []float64
	for _, st := range s.capa.Steps {
		if st.TargetMBps == target && st.Healthy {
			out = append(out, st.AchievedMBps)
		}
	}
	return out
}

// healthyBelow is the highest target below t that had a healthy run, or t/2.
func (s *search) healthyBelow(t float64) float64 {
	best := t / 2
	found := false
	for _, st := range s.capa.Steps {
		if st.Healthy && st.TargetMBps < t && (!found || st.TargetMBps > best) {
			best, found = st.TargetMBps, true
		}
	}
	return best
}

// step runs one step at target, re-running it while it fails on latency or
// rate on a busy machine; a step still failed that way after
// CapacityContendedRetries re-runs is Contended, and so is the search.
func (s *search) step(ctx context.Context, target float64, repeat bool) (CapacityStep, error) {
	for try := 0; ; try++ {
		res, err := s.run(ctx, capacityScenario(s.c, s.kind, s.value, target, s.c.StepDuration))
		if err != nil {
			return CapacityStep{}, err
		}
		st := judgeStep(res, target, s.c)
		st.OthersCores, st.Repeat = res.Machine.OthersCores+res.Machine.StealCores, repeat || try > 0
		st.Contended = !st.Healthy && (st.Limit == LimitLatency || st.Limit == LimitRate) && res.Machine.Busy()
		s.capa.Steps = append(s.capa.Steps, st)
		if !st.Contended {
			return st, nil
		}
		if try >= CapacityContendedRetries || !sleepCtx(ctx, contendedWait) {
			s.capa.Contended = true
			s.capa.ContendedWhy = fmt.Sprintf("at %.3g MB/s %s while other processes and steal took %.2f cores (%d runs)",
				target, st.Why, st.OthersCores, try+1)
			return st, nil
		}
	}
}

// contendedWait is CapacityContendedWait; tests shorten it.
var contendedWait = CapacityContendedWait

// sleepCtx waits d or until ctx is done; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// spreadPct is (max-min)/median of xs, in percent.
func spreadPct(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	med := ys[len(ys)/2]
	if len(ys)%2 == 0 {
		med = (ys[len(ys)/2-1] + ys[len(ys)/2]) / 2
	}
	if med <= 0 {
		return 0
	}
	return 100 * (ys[len(ys)-1] - ys[0]) / med
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
	if r.Verdict.Class == Interrupted {
		// A partial step is no evidence of health.
		blame(LimitInconclusive, "%s", r.Verdict.Why)
	}
	if r.Verdict.Class == Inconclusive {
		// Not healthy: a step is healthy only on enough data (see
		// results.MinWindows); a longer -step-duration gives it that.
		blame(LimitInconclusive, "%s", r.Verdict.Why)
	}
	for i, wh := range r.Verdict.Windows {
		if wh.T < warm && i < len(r.Verdict.Windows)-1 {
			continue
		}
		st.GCPct, st.AssistPct = max(st.GCPct, wh.GCPct), max(st.AssistPct, wh.AssistPct)
		if l := causeLimit[wh.Cause]; l != LimitNone {
			why := wh.Why
			if why == "" {
				why = string(wh.Cause)
			}
			blame(l, "%s: %s at %.1f s", wh.Class, why, wh.T)
		}
	}
	if l := causeLimit[r.Verdict.Cause]; l != LimitNone {
		blame(l, "%s", r.Verdict.Why)
	}
	if c.SLO > 0 && st.P99 > int64(c.SLO) {
		blame(LimitLatency, "p99 from intended start %s > %v", view.NS(st.P99), c.SLO)
	}
	if st.AchievedMBps < CapacityMinAchieved*target {
		blame(LimitRate, "achieved %.3g MB/s < %.0f%% of %.3g", st.AchievedMBps, 100*CapacityMinAchieved, target)
	}
	st.Limit, st.Why, st.Healthy = limit, why, limit == LimitNone
	return st
}

// causeLimit is the capacity limit of each cause the classifier gives
// (results.Cause): a step is blamed on its first unhealthy window after
// warm-up, then on the verdict's own cause (blocked writers), read from
// the verdict, never by re-testing thresholds.
var causeLimit = map[results.Cause]CapacityLimit{
	results.CauseGCCPU:        LimitGCCPU,
	results.CauseAssist:       LimitAssist,
	results.CauseHeapOverGoal: LimitHeap,
	results.CauseMemory:       LimitMemory,
	results.CauseBlocked:      results.LimitBlocked,
}

// runCapacity runs the search for every kind x capacity value size. A
// repeat above 0 (a round of -count) is every step's Scenario.Repeat, so
// each round's steps have folders of their own, and each Capacity's Repeat.
func runCapacity(ctx context.Context, c Config, repeat int, run stepRunner) ([]Capacity, error) {
	if repeat > 0 {
		inner := run
		run = func(ctx context.Context, s Scenario) (Result, error) {
			s.Repeat = repeat
			s.Dir = filepath.Join(c.Out, s.DirName())
			return inner(ctx, s)
		}
	}
	var out []Capacity
	for _, v := range c.CapacityValues {
		for _, k := range c.Kinds {
			if ctx.Err() != nil {
				return out, nil
			}
			capa, err := searchCapacity(ctx, c, k, v, run)
			capa.Repeat = repeat
			if err != nil {
				return out, err
			}
			out = append(out, capa)
		}
	}
	return out, nil
}
