package capacity

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

func TestBinomCDF(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		p    float64
		want float64
	}{{2, 5, 0.5, 0.5}, {0, 10, 0.1, math.Pow(0.9, 10)}, {-1, 3, 0.2, 0}, {3, 3, 0.2, 1}, {1, 4, 0.25, 0.75*0.75*0.75*0.75 + 4*0.25*0.75*0.75*0.75}} {
		if got := binomCDF(tc.k, tc.n, tc.p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("binomCDF(%d, %d, %v) = %v, want %v", tc.k, tc.n, tc.p, got, tc.want)
		}
	}
}

// TestIsotonicFraction: a rate whose fraction falls below a lower rate's
// is pooled with it, weighted by spans; repeats of a rate pool first.
func TestIsotonicFraction(t *testing.T) {
	got := isotonicFraction([]spanCount{{0, 0, 4}, {1, 2, 4}, {1, 0, 4}, {2, 0, 8}, {3, 4, 4}})
	want := []point{{0, 0}, {1, 0.125}, {2, 0.125}, {3, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i].x-want[i].x) > 1e-12 || math.Abs(got[i].y-want[i].y) > 1e-12 {
			t.Errorf("got %v, want %v", got, want)
		}
	}
}

// spanSteps are steps at rates whose spans (spans each) are unhealthy on
// GC with probability p(rate), drawn from rng.
func spanSteps(rng *rand.Rand, rates []float64, spans int, p func(float64) float64) results.Capacity {
	th := results.DefaultThresholds()
	c := results.Capacity{Kind: "heap", Value: 100}
	for _, r := range rates {
		st := results.CapacityStep{TargetMBps: r, AchievedMBps: r, Class: results.Healthy, Healthy: true}
		for range spans {
			y := 2.0
			if rng.Float64() < p(r) {
				y = 15
			}
			st.SpanGCPct, st.SpanAssistPct = append(st.SpanGCPct, y), append(st.SpanAssistPct, 0)
			st.GCPct = max(st.GCPct, y)
		}
		if st.GCPct >= th.HealthyGC {
			st.Healthy, st.Class, st.Limit = false, results.Elevated, results.LimitGCCPU
		}
		c.Steps = append(c.Steps, st)
	}
	return c
}

// TestSpanFitCoverage: steps of 5 spans whose unhealthy fraction rises
// through the level where a step passes half the time (q ≈ 12.9%) at 20
// MB/s: the fit reads the figure from the counts, the figure lies in its
// interval, the 90% interval holds the true knee in at least 80% of
// searches, and it is narrower than the searched range.
func TestSpanFitCoverage(t *testing.T) {
	q := 1 - math.Pow(2, -1.0/5)
	p := func(r float64) float64 { return min(1, q*math.Pow(r/20, 3)) }
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 100
	held, fitted := 0, 0
	var widths []float64
	for range trials {
		c := spanSteps(rng, searchRates, 5, p)
		Estimate(&c, results.DefaultThresholds())
		if c.FitFigure != results.FigureGCPct {
			continue // no step failed: nothing to fit
		}
		fitted++
		if !(c.SustainableLoMBps <= c.SustainableMBps && c.SustainableMBps <= c.SustainableHiMBps) {
			t.Fatalf("%v outside its interval %v-%v", c.SustainableMBps, c.SustainableLoMBps, c.SustainableHiMBps)
		}
		if c.SustainableLoMBps <= 20 && 20 <= c.SustainableHiMBps {
			held++
		}
		widths = append(widths, c.SustainableHiMBps/c.SustainableLoMBps)
	}
	if fitted < trials*9/10 || held < fitted*8/10 {
		t.Errorf("fitted %d of %d searches; the interval held the knee in %d", fitted, trials, held)
	}
	// Not every rate: the steps span 6.25-50 MB/s (3.1-100 with the
	// fit's reach, a factor of 32); with 5 spans a step, a fraction near
	// 13% cannot be placed much closer than a factor of 4 (15 spans with
	// none unhealthy do not reject it at 5%).
	if w := stat.Median(widths); w > 6 {
		t.Errorf("median interval hi/lo %.3g", w)
	}
}

// TestSpanFitRareLowFailure: one unhealthy span at a low rate (a step
// failed by one cycle's assists) does not pull the figure down to it, as
// the worst window's fit did, and the interval stays honest: it reaches
// below that rate when the spans above it cannot rule the knee out there.
func TestSpanFitRareLowFailure(t *testing.T) {
	rates := []float64{5, 10, 20, 14, 17, 15.5, 16, 15.5, 15.5}
	c := spanSteps(rand.New(rand.NewPCG(7, 8)), rates, 5, func(r float64) float64 {
		if r >= 17 {
			return 1
		}
		return 0
	})
	c.Steps[3].SpanGCPct[2], c.Steps[3].GCPct, c.Steps[3].Healthy = 15, 15, false // at 14 MB/s
	c.Steps[3].Limit, c.Steps[3].Class = results.LimitGCCPU, results.Elevated
	Estimate(&c, results.DefaultThresholds())
	if c.FitFigure != results.FigureGCPct || c.SustainableMBps < 15.5 || c.SustainableMBps > 17 {
		t.Fatalf("knee between 16 and 17 MB/s with one bad span at 14: %v by %q", c.SustainableMBps, c.FitFigure)
	}
	if c.SustainableLoMBps > 14 || c.SustainableHiMBps < 17 {
		t.Errorf("interval %v-%v does not reach the steps that disagree", c.SustainableLoMBps, c.SustainableHiMBps)
	}
}
