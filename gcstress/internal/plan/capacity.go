// The capacity search (the capacity set): for one kind and value size,
// the highest open-loop write rate at which the collector stays healthy.
// A SearchPlan's Runner runs each step and its Scenario builds it.
//
// The search finds, for each kind and value size, the
// highest open-loop write rate at which the collector stays healthy. A
// rate is comparable between machines and layouts where a collapse is
// not: it is the Go counterpart of a storage engine's sustained write
// rate, gated on GC health instead of stalls.
//
// Search: a short closed-loop probe measures what the path does flat out
// (C); steps then run at C/16, C/8, ... doubling until a step is unhealthy
// (or C*2 is passed), then bisect (geometric midpoints) between the last
// healthy and the first unhealthy rate until they are within
// results.CapacityResolution of each other or MaxSteps ran. Every step is
// one child process, a Result of its own (Group results.SetCapacity).
//
// A stolen core is not a collapse. A step that fails only on latency or on
// the achieved rate while other processes and steal took more than
// BusyCores is re-run, after ContendedWait, up to
// ContendedRetries times; if the machine stays busy the search stops
// there and the result is Contended: its figure is what the search reached,
// not a knee. A step failed by the collector (GC CPU, assists, heap, memory)
// is a knee whatever the load.
//
// The boundary is confirmed. Health near the knee is noisy (a step can fail
// at one rate and pass at a lower one by a few percent of GC CPU), so the
// highest healthy step is run ConfirmRuns times in all; if a repeat
// is unhealthy the search steps down to the next lower healthy rate,
// bisects the gap to the failed one again, and confirms the result (at most
// MaxDescents times, then the highest rate below every failure). The step
// figure (Capacity.StepMBps) is the rate every run held, and its spread
// (max-min over median of the runs' achieved MB/s) is reported.
//
// A step is judged on the collector's mean GC and assist shares over its
// windows after the warm-up, not on its worst span: one heavy GC cycle
// lands in a short span at any rate, and a search judged span by span
// found a different knee each time (Judge's spans documents it).
//
// The sustainable figure is fitted from every step (fit.go, EstimateCapacity):
// each limiting figure (the mean GC share, the mean assist share, heap
// over goal, p99 from intended start) against the offered
// rate, the rate where the lowest bracketed fit reaches its limit, with an
// interval from the steps' own evidence. A flat knee moves one pass/fail step by 2x between runs; the fit
// moves only as far as all the steps do. A search any of whose steps ran
// while other processes and steal took more than results.BusyCores is
// contended whatever stopped it (Mark): its figures are lower bounds.
//
// Invariants:
//   - A search runs at most MaxSteps bisection steps, plus the probe,
//     ContendedRetries re-runs of a contended step and the confirmations
//     (at most MaxDescents descents): it ends.
//   - A step is healthy only when its Result says so: limits come from
//     the step's mean GC and assist shares against the thresholds, the
//     heap's median share of its goal, the classifier's memory and
//     blocked-writer causes (results.Cause), then latency and the achieved
//     rate; an interrupted or inconclusive step is unhealthy.
//   - The step figure is a rate every confirmation run held; the
//     sustainable figure lies within its interval, and is the step figure
//     when no fitted figure brackets its limit.
//   - EstimateCapacity is a pure function of the steps and the thresholds.

package plan

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

const (
	// Probe is the closed-loop probe's length.
	Probe = 3 * time.Second
	// MaxSteps bounds the bisection steps of one search (probe,
	// contended re-runs and confirmations excluded; those are bounded by
	// ContendedRetries, ConfirmRuns and MaxDescents).
	MaxSteps = 10
	// ContendedRetries bounds the re-runs of a step that failed on
	// latency or rate while the machine was busy.
	ContendedRetries = 2
	// ContendedWait is the pause before such a re-run.
	ContendedWait = 2 * time.Second
	// ConfirmRuns is how many runs of the sustainable step must all
	// be healthy (the search's own run included).
	ConfirmRuns = 3
	// MaxDescents bounds the steps down (each with its bisection)
	// that failed confirmations take before the last candidate.
	MaxDescents = 3
)

// Runner runs one scenario and returns its Result (gcstress's loop body:
// a child process, progress, observer, profiles).
type Runner func(ctx context.Context, s results.Scenario) (results.Result, error)

// SearchPlan is what one kind x value size's search needs.
type SearchPlan struct {
	Kind  string
	Value int64
	// SLO is the p99 limit of latency from intended start (0: none).
	SLO time.Duration
	// StepDuration is how long one step runs.
	StepDuration time.Duration
	// Scenario is the scenario of a step at mbps (0: the closed-loop
	// probe), run for d.
	Scenario func(mbps float64, d time.Duration) results.Scenario
	// Run runs a step.
	Run Runner
	// Thresholds are the classifier's: a step's mean shares are judged
	// against its healthy limits after its warm-up (Judge), and the fit
	// holds each figure against them (Estimate).
	Thresholds results.Thresholds
}

// search is one kind x value size's capacity search in progress.
type search struct {
	p    SearchPlan
	capa *results.Capacity
}

// Search runs p's search: the probe, the steps and their confirmation.
// An error is the Runner's; the Capacity holds the steps run before it.
func Search(ctx context.Context, p SearchPlan) (results.Capacity, error) {
	capa := results.Capacity{Kind: p.Kind, Value: p.Value, SLO: p.SLO}
	probe, err := p.Run(ctx, p.Scenario(0, Probe))
	if err != nil || probe.End == nil || probe.End.MBps <= 0 {
		return capa, err // no probe figure: nothing to search (interrupted or the child died)
	}
	capa.ProbeMBps = probe.End.MBps
	s := &search{p: p, capa: &capa}
	lo, hi, hiLimit, err := s.bisect(ctx)
	if err == nil && !capa.Contended && lo > 0 {
		lo, hi, hiLimit, err = s.confirm(ctx, lo, hi, hiLimit)
	}
	capa.SustainableMBps, capa.FirstUnhealthyMBps, capa.Limit = lo, hi, hiLimit
	EstimateCapacity(&capa, p.Thresholds)
	return capa, err
}

// bisect doubles, then bisects, until the knee is found, the budget of
// steps is spent or a step is contended. It returns the highest healthy and
// the lowest unhealthy target.
func (s *search) bisect(ctx context.Context) (lo, hi float64, hiLimit results.CapacityLimit, err error) {
	return s.narrow(ctx, 0, 0, results.LimitNone, s.capa.ProbeMBps/16)
}

// narrow is bisect's loop from a known lo (0: none) and hi (0: none),
// starting at next.
func (s *search) narrow(ctx context.Context, lo, hi float64, hiLimit results.CapacityLimit, next float64) (float64, float64, results.CapacityLimit, error) {
	probe := s.capa.ProbeMBps
	for steps := 0; steps < MaxSteps && next > 0 && ctx.Err() == nil; steps++ {
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
		case hi/lo < 1+results.CapacityResolution:
			next = 0
		default:
			next = math.Sqrt(lo * hi)
		}
	}
	return lo, hi, hiLimit, nil
}

// confirm re-runs the highest healthy target until ConfirmRuns runs
// of it were healthy; a failed repeat makes it the first unhealthy rate and
// moves down to the next lower healthy one (or half of it). On each of the
// first MaxDescents descents the gap between that one and the failed
// rate is bisected again when it is wider than the resolution (the lower
// healthy step may lie far below: the doubling's last), so that noisy
// repeats at a fuzzy knee do not halve the figure (results/capacity-repeats
// shows searches that fell to the doubling's last healthy step). When the
// descents are spent, each next candidate is the highest rate below every
// failed one (belowEveryFailure), with no more bisection, until one is
// confirmed or none is left (0).
func (s *search) confirm(ctx context.Context, lo, hi float64, hiLimit results.CapacityLimit) (float64, float64, results.CapacityLimit, error) {
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
		if descents++; descents > MaxDescents {
			// Each failed candidate lowers the floor, so this ends.
			lo = s.belowEveryFailure()
			continue
		}
		lo = s.healthyBelow(lo)
		if hi/lo >= 1+results.CapacityResolution {
			var err error
			if lo, hi, hiLimit, err = s.narrow(ctx, lo, hi, hiLimit, math.Sqrt(lo*hi)); err != nil || s.capa.Contended {
				return lo, hi, hiLimit, err
			}
		}
	}
	s.capa.SustainableRuns = len(s.healthyRuns(lo))
	return lo, hi, hiLimit, nil
}

// repeat runs target until ConfirmRuns of its runs were healthy (true,
// and the capacity's runs and spread are set) or one is not (false).
func (s *search) repeat(ctx context.Context, target float64) (bool, error) {
	runs := s.healthyRuns(target)
	for len(runs) < ConfirmRuns && ctx.Err() == nil {
		st, err := s.step(ctx, target, true)
		if err != nil || st.Contended {
			return false, err
		}
		if !st.Healthy {
			return false, nil
		}
		runs = append(runs, st.AchievedMBps)
	}
	if len(runs) < ConfirmRuns {
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
// ContendedRetries re-runs is Contended, and so is the search.
func (s *search) step(ctx context.Context, target float64, repeat bool) (results.CapacityStep, error) {
	for try := 0; ; try++ {
		res, err := s.p.Run(ctx, s.p.Scenario(target, s.p.StepDuration))
		if err != nil {
			return results.CapacityStep{}, err
		}
		st := Judge(res, target, s.p.SLO, s.p.Thresholds)
		st.OthersCores, st.Repeat = res.Machine.OthersCores+res.Machine.StealCores, repeat || try > 0
		st.Contended = !st.Healthy && (st.Limit == results.LimitLatency || st.Limit == results.LimitRate) && res.Machine.Busy()
		s.capa.Steps = append(s.capa.Steps, st)
		if !st.Contended {
			return st, nil
		}
		if try >= ContendedRetries || !sleepCtx(ctx, contendedWait) {
			s.capa.Contended = true
			s.capa.ContendedWhy = fmt.Sprintf("at %.3g MB/s %s while other processes and steal took %.2f cores (%d runs)",
				target, st.Why, st.OthersCores, try+1)
			return st, nil
		}
	}
}

// contendedWait is ContendedWait; tests shorten it.
var contendedWait = ContendedWait

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

// Judge decides whether a step at target MB/s was healthy and, if not,
// which limit failed it: memory, an interrupted or inconclusive step, the
// collector's mean GC and assist shares over the step's windows after th's
// warm-up (SteadyGCPct, SteadyAssistPct against th.HealthyGC and
// th.HealthyAssist), the heap over its goal at most of those windows' ends
// (HeapGoalPct, their median share of the goal, over 100), blocked
// writers, then latency (slo, 0: none) and the achieved rate, the first
// that failed in that order. No single span or window fails a step (see
// spans); the step records every span's shares (SpanGCPct, SpanAssistPct)
// and their worst (GCPct, AssistPct) all the same.
func Judge(r results.Result, target float64, slo time.Duration, th results.Thresholds) results.CapacityStep {
	st := results.CapacityStep{Scenario: r.Scenario.Name, TargetMBps: target, Class: r.Verdict.Class}
	if r.End != nil {
		st.AchievedMBps, st.P99 = r.End.SteadyMBps, r.End.SteadyILatP99
	}
	warm := th.Warmup.Seconds()
	steady(&st, r, warm)
	limit, why := results.LimitNone, ""
	blame := func(l results.CapacityLimit, format string, args ...any) {
		if limit == results.LimitNone {
			limit, why = l, fmt.Sprintf(format, args...)
		}
	}
	if r.Verdict.Class == results.Failed || r.End == nil {
		why := r.Verdict.Why
		if why == "" {
			why = "the child left no end record"
		}
		blame(results.LimitMemory, "%s", why)
	}
	if r.Verdict.Class == results.Interrupted {
		// A partial step is no evidence of health.
		blame(results.LimitInconclusive, "%s", r.Verdict.Why)
	}
	if r.Verdict.Class == results.Inconclusive {
		// Not healthy: a step is healthy only on enough data (see
		// results.MinWindows); a longer -step-duration gives it that.
		blame(results.LimitInconclusive, "%s", r.Verdict.Why)
	}
	if st.SteadyGCPct >= th.HealthyGC {
		blame(results.LimitGCCPU, "mean GC CPU %.1f%% of busy CPU over the step ≥ %g%%", st.SteadyGCPct, th.HealthyGC)
	}
	if st.SteadyAssistPct >= th.HealthyAssist {
		blame(results.LimitAssist, "mean mark assists %.1f%% of busy CPU over the step ≥ %g%%", st.SteadyAssistPct, th.HealthyAssist)
	}
	if st.HeapGoalPct > 100 {
		blame(results.LimitHeap, "the heap over its goal at most window ends (median %.0f%% of the goal)", st.HeapGoalPct)
	}
	spans(&st, r, warm, blame)
	if l := causeLimit[r.Verdict.Cause]; l != results.LimitNone {
		blame(l, "%s", r.Verdict.Why)
	}
	if slo > 0 && st.P99 > int64(slo) {
		blame(results.LimitLatency, "p99 from intended start %s > %v", view.NS(st.P99), slo)
	}
	if st.AchievedMBps < results.CapacityMinAchieved*target {
		blame(results.LimitRate, "achieved %.3g MB/s < %.0f%% of %.3g", st.AchievedMBps, 100*results.CapacityMinAchieved, target)
	}
	st.Limit, st.Why, st.Healthy = limit, why, limit == results.LimitNone
	return st
}

// spans records the GC and assist shares of every classifier span of r
// after the warm-up in st (and their worst), and blames the first window
// after it whose cause is a limit (causeLimit: memory).
//
// The shares are judged over the step, not span by span (Judge). A
// span is the windows merged until one holds a completed GC cycle, so its
// share is one cycle's, and one heavy cycle (a flush's, marking a third
// more live heap and paying it in assists) lands in a short span at any
// rate, while the mean share rises smoothly with the rate
// (results/capacity-repeats/amd-settled replays both). A rate a path cannot sustain raises the mean; what a heavy
// cycle does to writers is in the p99 from intended start, judged against
// the SLO. The heap over its goal is a reading at one window's end (one
// such reading just after a flush can fail a step the search then holds); a
// collector that cannot keep up leaves the heap over its goal at most
// window ends, so the step is judged on their median.
func spans(st *results.CapacityStep, r results.Result, warm float64, blame func(results.CapacityLimit, string, ...any)) {
	lastSpan := -1
	for i, wh := range r.Verdict.Windows {
		if wh.T < warm && i < len(r.Verdict.Windows)-1 {
			continue
		}
		st.GCPct, st.AssistPct = max(st.GCPct, wh.GCPct), max(st.AssistPct, wh.AssistPct)
		if wh.Span[0] != lastSpan {
			// One entry per span: its windows share its shares.
			lastSpan = wh.Span[0]
			st.SpanGCPct, st.SpanAssistPct = append(st.SpanGCPct, wh.GCPct), append(st.SpanAssistPct, wh.AssistPct)
		}
		if l := causeLimit[wh.Cause]; l != results.LimitNone {
			why := wh.Why
			if why == "" {
				why = string(wh.Cause)
			}
			blame(l, "%s: %s at %.1f s", wh.Class, why, wh.T)
		}
	}
}

// causeLimit is the capacity limit of each cause the classifier gives
// (results.Cause) that fails a step from one window after warm-up, or from
// the verdict's own cause (blocked writers), read from the verdict, never
// by re-testing thresholds. The collector's GC and assist shares and the
// heap over its goal are not here: Judge holds their levels over the step
// against their limits.
var causeLimit = map[results.Cause]results.CapacityLimit{
	results.CauseMemory:  results.LimitMemory,
	results.CauseBlocked: results.LimitBlocked,
}

// steady sets st's steady figures from r's windows that ended after the
// warm-up (all of them when none did) and its end record: the GC and
// assist shares of busy CPU over those windows together, the heap's median
// share of its goal at their ends, and the cost per GB.
func steady(st *results.CapacityStep, r results.Result, warm float64) {
	ws := r.Windows
	for i, w := range r.Windows {
		if w.T >= warm {
			ws = r.Windows[i:]
			break
		}
	}
	var used, gc, assist float64
	var goal []float64
	for _, w := range ws {
		used, gc, assist = used+w.CPUUsed, gc+w.GCCPU, assist+w.Assist
		if w.HeapGoal > 0 {
			goal = append(goal, 100*float64(w.HeapObjects)/float64(w.HeapGoal))
		}
	}
	if len(goal) > 0 {
		st.HeapGoalPct = stat.Median(goal)
	}
	if used > 0 {
		st.SteadyGCPct, st.SteadyAssistPct = 100*gc/used, 100*assist/used
	}
	if r.End != nil {
		st.CPUSPerGB, st.GCCPUSPerGB = r.End.CPUSPerGB, r.End.GCCPUSPerGB
	}
}
