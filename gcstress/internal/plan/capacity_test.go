package plan

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// fakeStep is a write path that is healthy up to knee MB/s and flat out
// does probe MB/s: the Runner a search sees, without processes.
func fakeStep(probe, knee float64, limit results.CapacityLimit) Runner {
	return func(_ context.Context, s results.Scenario) (results.Result, error) {
		th := results.DefaultThresholds()
		r := results.Result{Scenario: s, Verdict: results.Health{Class: results.Healthy}}
		if s.Rate == 0 {
			r.End = &results.Sample{Type: results.SampleEnd, MBps: probe}
			return r, nil
		}
		target := s.TargetMBps()
		end := &results.Sample{Type: results.SampleEnd, SteadyMBps: target, SteadyILatP99: int64(time.Millisecond)}
		wh := results.WindowHealth{T: 5, Class: results.Healthy, GCPct: 1}
		w := results.Sample{T: 5, CPUUsed: 1, GCCPU: 0.01}
		if target > knee {
			switch limit {
			case results.LimitGCCPU:
				wh.GCPct, wh.Class, wh.Cause = th.HealthyGC+1, results.Elevated, results.CauseGCCPU
				w.GCCPU = (th.HealthyGC + 1) / 100
			case results.LimitLatency:
				end.SteadyILatP99 = int64(time.Second)
			case results.LimitRate:
				end.SteadyMBps = knee
			}
		}
		r.End, r.Verdict.Windows = end, []results.WindowHealth{{T: 1, Class: results.Healthy}, wh}
		r.Windows = []results.Sample{{T: 1, CPUUsed: 1}, w}
		return r, nil
	}
}

// plan is the search of kind x 100 B with gcstress's default settings
// (SLO 50 ms, 6 s steps, the default warm-up), its steps run by run.
func plan(kind string, run Runner) SearchPlan {
	const value = 100
	return SearchPlan{Kind: kind, Value: value, SLO: 50 * time.Millisecond, StepDuration: 6 * time.Second,
		Thresholds: results.DefaultThresholds(), Run: run,
		Scenario: func(mbps float64, d time.Duration) results.Scenario {
			s := results.Scenario{Name: fmt.Sprintf("capacity/%s@%g", kind, mbps), Group: results.SetCapacity, Kind: kind, Value: value, Duration: d}
			if mbps > 0 {
				s.Rate = mbps * results.BytesPerMB / float64(results.KeySize+value)
			}
			return s
		}}
}

// judge is Judge with plan's SLO and thresholds.
func judge(r results.Result, target float64) results.CapacityStep {
	p := plan("heap", nil)
	return Judge(r, target, p.SLO, p.Thresholds)
}

func TestSearchCapacity(t *testing.T) {
	for _, tc := range []struct {
		probe, knee float64
		limit       results.CapacityLimit
	}{
		{100, 37, results.LimitGCCPU},
		{100, 9, results.LimitLatency},
		{100, 80, results.LimitRate},
	} {
		capa, err := Search(context.Background(), plan("heap", fakeStep(tc.probe, tc.knee, tc.limit)))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := capa.StepMBps, capa.FirstUnhealthyMBps
		knee := tc.knee
		if tc.limit == results.LimitRate { // achieving 95% of a target passes
			knee /= results.CapacityMinAchieved
		}
		if !(lo <= knee && hi > knee) || hi/lo >= 1+results.CapacityResolution || capa.Limit != tc.limit {
			t.Errorf("knee %v: sustainable %v, first unhealthy %v, limit %q, steps %d", tc.knee, lo, hi, capa.Limit, len(capa.Steps))
		}
		if len(capa.Steps) > MaxSteps || capa.ProbeMBps != tc.probe {
			t.Errorf("knee %v: %d steps, probe %v", tc.knee, len(capa.Steps), capa.ProbeMBps)
		}
	}
}

func TestSearchCapacityEdges(t *testing.T) {
	// Never unhealthy: stops past twice the closed-loop rate.
	capa, _ := Search(context.Background(), plan("arena", fakeStep(10, math.Inf(1), results.LimitGCCPU)))
	if capa.FirstUnhealthyMBps != 0 || capa.SustainableMBps < 20 || capa.Limit != results.LimitNone {
		t.Errorf("never unhealthy: %+v", capa)
	}
	// Unhealthy from the lowest step: sustainable 0.
	capa, _ = Search(context.Background(), plan("heap", fakeStep(64, 0, results.LimitGCCPU)))
	if capa.SustainableMBps != 0 || capa.FirstUnhealthyMBps == 0 || capa.FirstUnhealthyMBps > 1 || capa.Limit != results.LimitGCCPU {
		t.Errorf("always unhealthy: %+v", capa)
	}
	// A probe that produced nothing (the child died): no steps.
	capa, _ = Search(context.Background(), plan("heap", fakeStep(0, 1, results.LimitGCCPU)))
	if len(capa.Steps) != 0 {
		t.Errorf("dead probe ran %d steps", len(capa.Steps))
	}
}

// shares sets r's windows after the warm-up to two of one second each
// whose GC and assist CPU make the step's mean shares gc and assist (%).
func shares(r *results.Result, gc, assist float64) {
	r.Windows = []results.Sample{{T: 0.5, CPUUsed: 1, GCCPU: 0.5}, {T: 2, CPUUsed: 1, GCCPU: gc / 100, Assist: assist / 100}, {T: 3, CPUUsed: 1, GCCPU: gc / 100, Assist: assist / 100}}
}

func TestJudgeStep(t *testing.T) {
	ok := results.Result{Scenario: results.Scenario{Name: "s"}, Verdict: results.Health{Class: results.Healthy, Windows: []results.WindowHealth{{T: 3, GCPct: 2}}},
		End: &results.Sample{SteadyMBps: 10, SteadyILatP99: int64(time.Millisecond)}}
	shares(&ok, 2, 0)
	if st := judge(ok, 10); !st.Healthy || st.Limit != results.LimitNone {
		t.Errorf("healthy step judged %+v", st)
	}
	warm := ok
	warm.Verdict.Windows = []results.WindowHealth{{T: 0.5, GCPct: 80, Class: results.Degraded, Cause: results.CauseGCCPU}, {T: 3, GCPct: 2}}
	if st := judge(warm, 10); !st.Healthy {
		t.Errorf("a warm-up window counted: %+v", st)
	}
	for _, tc := range []struct {
		name string
		mod  func(r *results.Result)
		want results.CapacityLimit
	}{
		{"died", func(r *results.Result) { r.End = nil; r.Verdict.Class = results.Failed }, results.LimitMemory},
		{"gc", func(r *results.Result) { shares(r, 12, 0) }, results.LimitGCCPU},
		{"assist", func(r *results.Result) { shares(r, 5, 3) }, results.LimitAssist},
		{"heap", func(r *results.Result) {
			r.Windows = slices.Clone(r.Windows)
			for i := range r.Windows {
				r.Windows[i].HeapObjects, r.Windows[i].HeapGoal = 40<<20, 32<<20
			}
		}, results.LimitHeap},
		{"blocked", func(r *results.Result) {
			r.Verdict.Class, r.Verdict.Cause, r.Verdict.Why = results.Degraded, results.CauseBlocked, "writers blocked by backpressure 80%"
		}, results.LimitBlocked},
		{"interrupted", func(r *results.Result) { r.Verdict.Class, r.Verdict.Why = results.Interrupted, "interrupted at 40%" }, results.LimitInconclusive},
		{"latency", func(r *results.Result) { e := *r.End; e.SteadyILatP99 = int64(time.Second); r.End = &e }, results.LimitLatency},
		{"rate", func(r *results.Result) { e := *r.End; e.SteadyMBps = 9; r.End = &e }, results.LimitRate},
		{"gc before rate", func(r *results.Result) {
			e := *r.End
			e.SteadyMBps = 1
			r.End = &e
			shares(r, 40, 0)
		}, results.LimitGCCPU},
	} {
		r := ok
		tc.mod(&r)
		if st := judge(r, 10); st.Healthy || st.Limit != tc.want || st.Why == "" {
			t.Errorf("%s: %+v, want limit %q", tc.name, st, tc.want)
		}
	}
}

// TestJudgeSpikeIsNotALimit: one span's GC and assist shares over their
// lines (a heavy cycle in a short span) do not fail a step whose mean
// shares are under them, nor does one window's heap over its goal; the
// step still records the spans' shares and their worst.
func TestJudgeSpikeIsNotALimit(t *testing.T) {
	r := results.Result{Scenario: results.Scenario{Name: "s"}, End: &results.Sample{SteadyMBps: 10, SteadyILatP99: int64(time.Millisecond)},
		Verdict: results.Health{Class: results.Degraded, Cause: results.CauseHeapOverGoal, Windows: []results.WindowHealth{
			{T: 2, GCPct: 3, Span: [2]int{1, 1}, OverGoal: true, Class: results.Degraded, Cause: results.CauseHeapOverGoal},
			{T: 3, GCPct: 14, AssistPct: 4, Class: results.Elevated, Cause: results.CauseAssist, Span: [2]int{2, 2}},
		}}}
	shares(&r, 4, 1)
	// One window's end of three after the warm-up reads the heap over its
	// goal (just after a flush).
	r.Windows[1].HeapObjects, r.Windows[1].HeapGoal = 40<<20, 32<<20
	r.Windows[2].HeapObjects, r.Windows[2].HeapGoal = 20<<20, 32<<20
	st := judge(r, 10)
	if !st.Healthy || st.Limit != results.LimitNone {
		t.Fatalf("a one-span spike failed the step: %+v", st)
	}
	if st.GCPct != 14 || st.AssistPct != 4 || len(st.SpanGCPct) != 2 || st.SteadyGCPct != 4 {
		t.Errorf("step figures %+v", st)
	}
}

// busyStep wraps a Runner: every step's machine had others taking
// cores, as beside a busy loop.
func busyStep(inner Runner, cores float64) Runner {
	return func(ctx context.Context, s results.Scenario) (results.Result, error) {
		r, err := inner(ctx, s)
		r.Machine.OthersCores = cores
		return r, err
	}
}

func TestSearchCapacityContended(t *testing.T) {
	defer func(w time.Duration) { contendedWait = w }(contendedWait)
	contendedWait = time.Millisecond
	// Latency failures on a busy machine: re-run, then stop as contended.
	capa, err := Search(context.Background(), plan("arena", busyStep(fakeStep(100, 20, results.LimitLatency), 1.3)))
	if err != nil {
		t.Fatal(err)
	}
	if !capa.Contended || capa.ContendedWhy == "" || capa.StepMBps > 20 || capa.SustainableMBps > 20 {
		t.Fatalf("contended %v (%q), sustainable %v", capa.Contended, capa.ContendedWhy, capa.SustainableMBps)
	}
	last := capa.Steps[len(capa.Steps)-1]
	runs := 0
	for _, st := range capa.Steps {
		if st.TargetMBps == last.TargetMBps {
			runs++
		}
	}
	if runs != 1+ContendedRetries || !last.Contended || last.OthersCores != 1.3 {
		t.Fatalf("the contended step ran %d times (contended %v, others %v), want %d", runs, last.Contended, last.OthersCores, 1+ContendedRetries)
	}
	// The collector's own failure on a busy machine is still a knee: the
	// search does not stop there, but its figure is marked contended (a
	// bound), as every kind's is whose steps ran on a busy machine.
	capa, _ = Search(context.Background(), plan("heap", busyStep(fakeStep(100, 37, results.LimitGCCPU), 1.3)))
	if !capa.Contended || capa.BusySteps != len(capa.Steps) || capa.Limit != results.LimitGCCPU || capa.StepMBps > 37 || capa.FirstUnhealthyMBps <= 37 {
		t.Fatalf("GC-limited search on a busy machine: contended %v (%d busy steps), limit %q, %v..%v", capa.Contended, capa.BusySteps, capa.Limit, capa.StepMBps, capa.FirstUnhealthyMBps)
	}
	if capa.SustainableRuns != ConfirmRuns {
		t.Fatalf("a busy GC knee was not confirmed: %d runs", capa.SustainableRuns)
	}
	// Latency failures on a quiet machine are a knee too.
	capa, _ = Search(context.Background(), plan("heap", fakeStep(100, 9, results.LimitLatency)))
	if capa.Contended || capa.Limit != results.LimitLatency {
		t.Fatalf("quiet latency knee: contended %v, limit %q", capa.Contended, capa.Limit)
	}
}

// TestSearchCapacityConfirms: a path whose health near the knee is noisy
// (a rate passes once and fails on a repeat) is not credited with that
// rate; the published figure is one every run held.
// noisyStep is fakeStep(100, knee, LimitGCCPU) whose targets in (lo, knee]
// pass their first run and fail every repeat; runs counts each target's
// open-loop runs.
func noisyStep(lo, knee float64) (runs map[float64]int, step Runner) {
	runs = map[float64]int{}
	inner := fakeStep(100, knee, results.LimitGCCPU)
	return runs, func(ctx context.Context, s results.Scenario) (results.Result, error) {
		target := s.TargetMBps()
		if s.Rate > 0 {
			runs[target]++
		}
		if target > lo && target <= knee && runs[target] > 1 {
			return fakeStep(100, 0, results.LimitGCCPU)(ctx, s)
		}
		return inner(ctx, s)
	}
}

func TestSearchCapacityConfirms(t *testing.T) {
	// Between 25 and 37 MB/s the first run passes and repeats fail.
	runs, noisy := noisyStep(25, 37)
	capa, err := Search(context.Background(), plan("heap", noisy))
	if err != nil {
		t.Fatal(err)
	}
	if capa.StepMBps > 25 || capa.StepMBps == 0 || capa.SustainableRuns != ConfirmRuns {
		t.Fatalf("sustainable %v MB/s over %d runs, want <= 25 over %d (steps %+v)", capa.StepMBps, capa.SustainableRuns, ConfirmRuns, capa.Steps)
	}
	if capa.FirstUnhealthyMBps <= capa.StepMBps || capa.SpreadPct != 0 {
		t.Fatalf("first unhealthy %v, spread %v", capa.FirstUnhealthyMBps, capa.SpreadPct)
	}
	if got := runs[capa.StepMBps]; got != ConfirmRuns {
		t.Fatalf("the sustainable rate ran %d times, want %d", got, ConfirmRuns)
	}
}

func TestSpreadPct(t *testing.T) {
	if got := spreadPct([]float64{90, 100, 110}); math.Abs(got-20) > 1e-9 {
		t.Fatalf("spread = %v, want 20", got)
	}
	if spreadPct(nil) != 0 || spreadPct([]float64{5}) != 0 {
		t.Fatal("spread of fewer than two runs is not 0")
	}
}

// TestSearchCapacityNarrowsAfterAFailedRepeat: one noisy repeat at the knee
// does not drop the figure to the doubling's last healthy step (a factor of
// up to 2 below): the gap is bisected again and the new highest healthy
// step confirmed.
func TestSearchCapacityNarrowsAfterAFailedRepeat(t *testing.T) {
	// Between 33 and 37 MB/s the first run passes and repeats fail.
	_, noisy := noisyStep(33, 37)
	capa, err := Search(context.Background(), plan("heap", noisy))
	if err != nil {
		t.Fatal(err)
	}
	if capa.StepMBps <= 30 || capa.StepMBps > 33 || capa.SustainableRuns != ConfirmRuns {
		t.Fatalf("sustainable %v MB/s over %d runs, want in (30, 33] over %d (steps %+v)", capa.StepMBps, capa.SustainableRuns, ConfirmRuns, capa.Steps)
	}
	if capa.FirstUnhealthyMBps <= capa.StepMBps || capa.FirstUnhealthyMBps > 37 {
		t.Fatalf("first unhealthy %v", capa.FirstUnhealthyMBps)
	}
}

// A knee whose repeats fail over a band (24-30 MB/s: first runs pass, repeats
// fail, as when heap's GC CPU hovers at its 10% limit) is bisected again on every descent: the figure stays just below the band.
// Without that the third descent fell to the doubling's 12.5 MB/s.
func TestSearchCapacityNarrowsOnEveryDescent(t *testing.T) {
	_, noisy := noisyStep(24, 30)
	capa, err := Search(context.Background(), plan("heap", noisy))
	if err != nil {
		t.Fatal(err)
	}
	if capa.StepMBps <= 20 || capa.StepMBps > 24 || capa.SustainableRuns != ConfirmRuns {
		t.Fatalf("sustainable %v MB/s over %d runs, want in (20, 24] over %d (steps %+v)", capa.StepMBps, capa.SustainableRuns, ConfirmRuns, capa.Steps)
	}
}

// When no rate in a wide band repeats (10-37 MB/s), the descents run out and
// the search takes the highest rate below every failure, confirmed, instead
// of giving up with 0; the number of steps stays bounded.
func TestSearchCapacityFallsBelowEveryFailure(t *testing.T) {
	runs, noisy := noisyStep(10, 37)
	capa, err := Search(context.Background(), plan("heap", noisy))
	if err != nil {
		t.Fatal(err)
	}
	if capa.StepMBps <= 0 || capa.StepMBps > 10 || capa.SustainableRuns != ConfirmRuns {
		t.Fatalf("sustainable %v MB/s over %d runs, want in (0, 10] over %d (steps %+v)", capa.StepMBps, capa.SustainableRuns, ConfirmRuns, capa.Steps)
	}
	total := 0
	for _, n := range runs {
		total += n
	}
	if total > 60 {
		t.Fatalf("%d steps: the search is not bounded", total)
	}
}
