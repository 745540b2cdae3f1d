package plan

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// searchRates are the targets a search from a 100 MB/s probe runs at, in
// its order: the doubling, the bisection around a knee near 20 MB/s and
// its confirmations.
var searchRates = []float64{6.25, 12.5, 25, 17.7, 21, 19.3, 20.2, 19.3, 19.3, 12.5, 50}

// gcSteps are steps at rates whose steady GC share is gc(rate), healthy
// below the default 10% limit, with the search's step figure set.
func gcSteps(rates []float64, gc func(mbps float64) float64) results.Capacity {
	th := results.DefaultThresholds()
	c := results.Capacity{Kind: "heap", Value: 100}
	for _, r := range rates {
		y := gc(r)
		st := results.CapacityStep{TargetMBps: r, AchievedMBps: r, Class: results.Healthy, SteadyGCPct: y, Healthy: y < th.HealthyGC}
		if !st.Healthy {
			st.Class, st.Limit = results.Elevated, results.LimitGCCPU
		}
		c.Steps = append(c.Steps, st)
	}
	return c
}

// flatKnee is heap's GC share as measured: near its 10% limit over a wide
// band (3 points of share per e-fold of rate), crossing it at 20 MB/s,
// plus noise of up to ±noise points.
func flatKnee(rng *rand.Rand, noise float64) func(float64) float64 {
	return func(mbps float64) float64 {
		return 10 + 3*math.Log(mbps/20) + noise*(2*rng.Float64()-1)
	}
}

// TestFitFlatKneeInterval: over many noisy searches of one flat knee, the
// fitted crossing lies in its own interval, the interval holds the true
// 20 MB/s in most searches (it is a 10-90% bootstrap interval), and the
// figures of different searches lie within each other's intervals far
// more often than the pass/fail steps' figures agree.
func TestFitFlatKneeInterval(t *testing.T) {
	const trials = 60
	rng := rand.New(rand.NewPCG(1, 2))
	held := 0
	var est []results.Capacity
	for range trials {
		c := gcSteps(searchRates, flatKnee(rng, 1.5))
		EstimateCapacity(&c, results.DefaultThresholds())
		// The share of failing steps reads the same steps' verdicts on
		// their GC share: either may give the lower crossing.
		if c.FitFigure != results.FigureGCPct && c.FitFigure != results.FigureUnhealthy {
			t.Fatalf("fit figure %q, want gc_pct or unhealthy_pct (fits %+v)", c.FitFigure, c.Fits)
		}
		if !(c.SustainableLoMBps <= c.SustainableMBps && c.SustainableMBps <= c.SustainableHiMBps) {
			t.Fatalf("%v outside its interval %v-%v", c.SustainableMBps, c.SustainableLoMBps, c.SustainableHiMBps)
		}
		if c.SustainableLoMBps <= 20 && 20 <= c.SustainableHiMBps {
			held++
		}
		if c.SustainableMBps < 10 || c.SustainableMBps > 40 {
			t.Errorf("estimate %v MB/s for a knee at 20", c.SustainableMBps)
		}
		est = append(est, c)
	}
	if held < trials*7/10 {
		t.Errorf("the interval held the true knee in %d of %d searches, want at least 70%%", held, trials)
	}
	inside := 0
	for i := 1; i < len(est); i++ {
		a, b := est[i-1], est[i]
		if b.SustainableLoMBps <= a.SustainableMBps && a.SustainableMBps <= b.SustainableHiMBps {
			inside++
		}
	}
	if inside < (trials-1)*7/10 {
		t.Errorf("a search's figure lay in the next one's interval %d of %d times", inside, trials-1)
	}
}

// TestFitOneNoisyStep: one step whose GC share is far off (a window
// beside a burst of other work) moves the fitted rate by little, where it
// can move a pass/fail step by 2x.
func TestFitOneNoisyStep(t *testing.T) {
	clean := gcSteps(searchRates, flatKnee(rand.New(rand.NewPCG(3, 4)), 0))
	EstimateCapacity(&clean, results.DefaultThresholds())
	if math.Abs(clean.SustainableMBps-20) > 1 {
		t.Fatalf("noiseless knee at 20 MB/s fitted at %v", clean.SustainableMBps)
	}
	for _, tc := range []struct {
		name string
		at   float64
		gc   float64
	}{{"high at a low rate", 12.5, 30}, {"low at a high rate", 50, 0.5}, {"high near the knee", 17.7, 25}} {
		c := gcSteps(append(searchRates, tc.at), flatKnee(rand.New(rand.NewPCG(3, 4)), 0))
		last := &c.Steps[len(c.Steps)-1]
		last.SteadyGCPct, last.Healthy = tc.gc, tc.gc < 10
		EstimateCapacity(&c, results.DefaultThresholds())
		if r := c.SustainableMBps / clean.SustainableMBps; r < 0.8 || r > 1.25 {
			t.Errorf("%s: one step moved the fit from %.3g to %.3g MB/s", tc.name, clean.SustainableMBps, c.SustainableMBps)
		}
	}
}

// TestFitSteepKnee: a figure that jumps at the knee (latency: 1 ms below,
// 1 s above) is fitted to a crossing between the last healthy and the first
// unhealthy step, and the interval stays within a factor of two of it.
func TestFitSteepKnee(t *testing.T) {
	var steps []results.CapacityStep
	for _, r := range searchRates {
		p99 := time.Millisecond
		if r > 20 {
			p99 = time.Second
		}
		st := results.CapacityStep{TargetMBps: r, AchievedMBps: r, Class: results.Healthy, P99: int64(p99), Healthy: r <= 20}
		if !st.Healthy {
			st.Limit = results.LimitLatency
		}
		steps = append(steps, st)
	}
	c := results.Capacity{SLO: 50 * time.Millisecond, Steps: steps, SustainableMBps: 20.2, FirstUnhealthyMBps: 21, Limit: results.LimitLatency}
	EstimateCapacity(&c, results.DefaultThresholds())
	if c.FitFigure != results.FigureP99 || c.SustainableMBps < 15 || c.SustainableMBps > 25 {
		t.Fatalf("steep latency knee at 20-21 MB/s: %v by %q", c.SustainableMBps, c.FitFigure)
	}
	if c.SustainableLoMBps < c.SustainableMBps/2 || c.SustainableHiMBps > 2*c.SustainableMBps {
		t.Errorf("interval %v-%v around %v", c.SustainableLoMBps, c.SustainableHiMBps, c.SustainableMBps)
	}
	if c.StepMBps != 20.2 || c.FirstUnhealthyMBps != 21 {
		t.Errorf("the step figures changed: %v, %v", c.StepMBps, c.FirstUnhealthyMBps)
	}
}

// TestEstimateWithoutBracket: when no figure reaches its limit in the
// steps (every step healthy), the figure is the search's step and its
// interval runs to the first unhealthy rate; a failure no figure measures
// (memory) caps a fit.
func TestEstimateWithoutBracket(t *testing.T) {
	c := gcSteps(searchRates, func(float64) float64 { return 2 })
	c.SustainableMBps = 50
	EstimateCapacity(&c, results.DefaultThresholds())
	if c.FitFigure != "" || c.SustainableMBps != 50 || c.SustainableLoMBps != 50 || c.SustainableHiMBps != 50 {
		t.Errorf("never unhealthy: %v (%v-%v) by %q", c.SustainableMBps, c.SustainableLoMBps, c.SustainableHiMBps, c.FitFigure)
	}
	c = gcSteps(searchRates, flatKnee(rand.New(rand.NewPCG(3, 4)), 0))
	c.Steps = append(c.Steps, results.CapacityStep{TargetMBps: 15, AchievedMBps: 15, Class: results.Failed, Limit: results.LimitMemory})
	c.SustainableMBps = 12.5
	EstimateCapacity(&c, results.DefaultThresholds())
	if c.SustainableMBps > 15 || c.SustainableHiMBps > 15 {
		t.Errorf("a memory failure at 15 MB/s did not cap the fit: %v (%v-%v)", c.SustainableMBps, c.SustainableLoMBps, c.SustainableHiMBps)
	}
}

// TestEstimateNamesFirstFailure: a search whose steps failed but that left
// no first unhealthy rate (it stopped contended) gets the lowest failed
// rate above its figure and that step's limit.
func TestEstimateNamesFirstFailure(t *testing.T) {
	c := results.Capacity{SustainableMBps: 10, Contended: true, Steps: []results.CapacityStep{
		{TargetMBps: 5, AchievedMBps: 5, Healthy: true, Class: results.Healthy},
		{TargetMBps: 10, AchievedMBps: 10, Healthy: true, Class: results.Healthy},
		{TargetMBps: 20, AchievedMBps: 12, Class: results.Healthy, Limit: results.LimitLatency, Contended: true},
		{TargetMBps: 40, AchievedMBps: 12, Class: results.Healthy, Limit: results.LimitRate},
	}}
	EstimateCapacity(&c, results.DefaultThresholds())
	if c.FirstUnhealthyMBps != 20 || c.Limit != results.LimitLatency {
		t.Errorf("first unhealthy %v, limit %q; want 20, latency", c.FirstUnhealthyMBps, c.Limit)
	}
}

// TestMarkBusySteps: any step on a busy machine marks the kind contended,
// whatever limit stopped it; a quiet search stays unmarked.
func TestMarkBusySteps(t *testing.T) {
	c := gcSteps(searchRates, flatKnee(rand.New(rand.NewPCG(3, 4)), 0))
	Mark(&c)
	if c.Contended || c.BusySteps != 0 {
		t.Fatalf("quiet search marked: %+v", c)
	}
	c.Steps[3].OthersCores = 0.9
	Mark(&c)
	if !c.Contended || c.BusySteps != 1 || c.ContendedWhy == "" {
		t.Fatalf("busy step not marked: contended %v, %d busy, %q", c.Contended, c.BusySteps, c.ContendedWhy)
	}
}

// TestFitNeedsABlamedStep: a figure that crosses its limit in the steps
// but never failed one (the classifier blamed none on it) does not set the
// rate.
func TestFitNeedsABlamedStep(t *testing.T) {
	c := gcSteps(searchRates, flatKnee(rand.New(rand.NewPCG(3, 4)), 0))
	for i := range c.Steps {
		c.Steps[i].Limit = ""
		c.Steps[i].HeapGoalPct = 95 + 10*float64(i%2) // around its 100% by noise
	}
	c.SustainableMBps = 19.3
	EstimateCapacity(&c, results.DefaultThresholds())
	if c.FitFigure != "" || c.SustainableMBps != 19.3 {
		t.Errorf("an unblamed figure set the rate: %v by %q", c.SustainableMBps, c.FitFigure)
	}
}

// TestFitSaturatedFigure: a figure whose level saturates just under its
// limit past the knee (heap's mean GC share at 9.8-10.2% from 46 to 77
// MB/s, results/capacity-repeats/quiet-start cap-3-quiet) crosses far
// above the rates whose steps mostly failed; the share of failing steps
// places the knee where they begin to fail.
func TestFitSaturatedFigure(t *testing.T) {
	type s struct {
		mbps, gc float64
		ok       bool
	}
	steps := []s{{4.8, 1.4, true}, {9.6, 2.2, true}, {19.2, 4.2, true}, {38.5, 6.7, true},
		{42, 7.3, true}, {42, 6.1, true}, {42, 7.1, true}, {45.8, 7.2, true}, {45.8, 10.1, false},
		{49.9, 8, true}, {49.9, 10.2, false}, {54.4, 9.8, false}, {77, 10.1, false}}
	c := results.Capacity{Kind: "heap", Value: 100, StepMBps: 42, SustainableMBps: 42}
	for _, x := range steps {
		st := results.CapacityStep{TargetMBps: x.mbps, AchievedMBps: x.mbps, Class: results.Healthy, SteadyGCPct: x.gc, Healthy: x.ok}
		if !x.ok {
			st.Class, st.Limit = results.Elevated, results.LimitGCCPU
			if x.gc < 10 {
				st.Limit = results.LimitAssist
			}
		}
		c.Steps = append(c.Steps, st)
	}
	EstimateCapacity(&c, results.DefaultThresholds())
	var gcFit results.CapacityFit
	for _, f := range c.Fits {
		if f.Figure == results.FigureGCPct {
			gcFit = f
		}
	}
	if gcFit.CrossMBps < 60 {
		t.Fatalf("the GC share's fit crossed at %.3g: the case needs a saturated figure", gcFit.CrossMBps)
	}
	if c.FitFigure != results.FigureUnhealthy || math.Abs(c.SustainableMBps-45.8) > 0.5 {
		t.Errorf("sustainable %.3g by %q, want 45.8 by unhealthy_pct", c.SustainableMBps, c.FitFigure)
	}
	if c.SustainableLoMBps > 42 || c.SustainableHiMBps < 49.9 || c.SustainableHiMBps > 54.4 {
		t.Errorf("interval %.3g-%.3g, want it to span the rates that passed and failed (42-49.9) and stop below 54.4",
			c.SustainableLoMBps, c.SustainableHiMBps)
	}
}
