package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
)

// series builds a series from medians, each point with an interval of
// ±halfWidth (relative) when halfWidth > 0.
func stabSeries(halfWidth float64, meds ...float64) Series {
	s := Series{SeriesKey: SeriesKey{Benchmark: "BenchmarkX", Unit: "sec/op"}, Direction: benchgate.LowerIsBetter}
	for i, m := range meds {
		p := Point{Commit: fmt.Sprintf("c%02d", i), Summary: Summary{Median: m}}
		if halfWidth > 0 {
			p.Lo, p.Hi, p.HasInterval = m*(1-halfWidth), m*(1+halfWidth), true
		}
		s.Points = append(s.Points, p)
	}
	return s
}

// TestStableSeries: steady series, with or without one step change (a real
// regression), are not unstable.
func TestStableSeries(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	steady := make([]float64, 12)
	stepped := make([]float64, 12)
	for i := range steady {
		steady[i] = 100 * (1 + 0.01*r.NormFloat64())
		stepped[i] = steady[i]
		if i >= 7 {
			stepped[i] *= 1.3
		}
	}
	for name, s := range map[string]Series{
		"steady":    stabSeries(0.005, steady...),
		"one step":  stabSeries(0.005, stepped...),
		"exact":     stabSeries(0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3),
		"too short": stabSeries(0.001, 100, 150, 100, 150),
	} {
		st := Assess(s)
		if st.Unstable || Unstable(s) {
			t.Errorf("%s: %+v: unstable", name, st)
		}
	}
	if st := Assess(stabSeries(0.001, 100, 150, 100, 150)); st.Points != 4 || st.Noise != 0 {
		t.Errorf("too short: %+v: want 4 points, not judged", st)
	}
}

// TestUnstableNoise: a series scattering by 20% from commit to commit is
// unstable on its noise alone (no interval, so no verdicts): the estimate
// from 10 points flags 93% of series at 10% scatter, over 99% at 20%.
func TestUnstableNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	meds := make([]float64, 10)
	for i := range meds {
		meds[i] = 100 * (1 + 0.20*r.NormFloat64())
	}
	st := Assess(stabSeries(0, meds...))
	if !st.Unstable || st.Noise <= UnstableMaxNoise || st.Flips != 0 {
		t.Errorf("%+v: want unstable on noise above %g", st, UnstableMaxNoise)
	}
}

// TestUnstableFlips: a bimodal series (two levels, alternating, tight
// intervals) flips every commit; its noise is judged on medians too.
func TestUnstableFlips(t *testing.T) {
	// Flips at a small scatter: 3 flips among otherwise steady points.
	st := Assess(stabSeries(0.002, 100, 100, 103, 100, 100, 103, 100, 100, 100, 100))
	if st.Flips != 3 || !st.Unstable || st.Noise > UnstableMaxNoise {
		t.Errorf("%+v: want 3 flips, unstable, noise under the bound", st)
	}
	// A regression and its revert: one flip, not unstable.
	st = Assess(stabSeries(0.002, 100, 100, 100, 103, 103, 103, 100, 100, 100, 100))
	if st.Flips != 1 || st.Unstable {
		t.Errorf("%+v: want 1 flip, stable", st)
	}
	// Moves under UnstableMinMove are no verdicts.
	st = Assess(stabSeries(0.0001, 100, 100.5, 100, 100.5, 100, 100.5, 100, 100.5, 100, 100.5))
	if st.Flips != 0 || st.Unstable {
		t.Errorf("%+v: half-percent moves: want no flips", st)
	}
}

// TestUnstableRatios: gate-run points flip on their head/base ratio, and only
// the latest UnstableWindow points count.
func TestUnstableRatios(t *testing.T) {
	s := stabSeries(0.002, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100)
	setRatio := func(i int, r float64) {
		s.Points[i].Ratio, s.Points[i].RatioLo, s.Points[i].RatioHi, s.Points[i].HasRatio = r, r*0.99, r*1.01, true
	}
	for i := range s.Points {
		setRatio(i, 1)
	}
	// Worse, better, worse, better at the start: outside the window.
	setRatio(0, 1.1)
	setRatio(1, 0.9)
	setRatio(2, 1.1)
	setRatio(3, 0.9)
	if st := Assess(s); st.Flips != 0 || st.Unstable || st.Points != UnstableWindow {
		t.Errorf("old flips: %+v: want none judged", st)
	}
	setRatio(8, 1.1)
	setRatio(10, 0.9)
	setRatio(12, 1.1)
	setRatio(13, 0.9)
	if st := Assess(s); st.Flips != 3 || !st.Unstable {
		t.Errorf("recent flips: %+v: want 3, unstable", st)
	}
	// A ratio whose interval holds 1 is no verdict.
	s.Points[12].RatioLo = 0.95
	if st := Assess(s); st.Flips != 1 || st.Unstable {
		t.Errorf("%+v: want 1 flip once one verdict is unsure", st)
	}
}

// TestAssessZeroAndNaN: medians of 0 (an allocation count) or NaN never make
// a series unstable through a division.
func TestAssessZeroAndNaN(t *testing.T) {
	if st := Assess(stabSeries(0, 0, 0, 0, 0, 0, 0)); st.Unstable || st.Noise != 0 {
		t.Errorf("zeros: %+v", st)
	}
	if st := Assess(stabSeries(0, math.NaN(), 1, 2, math.NaN(), 1, 1)); st.Noise != 0 && !finite(st.Noise) {
		t.Errorf("NaN: %+v", st)
	}
}

// TestAnalyzeStability: Analyze carries each series' Assess.
func TestAnalyzeStability(t *testing.T) {
	s := stabSeries(0.002, 100, 100, 103, 100, 100, 103, 100, 100, 100, 100)
	as, err := Analyze([]Series{s}, changepoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !as[0].Stability.Unstable || as[0].Stability.Flips != 3 {
		t.Errorf("Analyze: %+v", as[0].Stability)
	}
}

// TestUnstableSeries: only unstable series are returned, by key.
func TestUnstableSeries(t *testing.T) {
	shaky := stabSeries(0.002, 100, 100, 103, 100, 100, 103, 100, 100, 100, 100)
	steady := stabSeries(0.002, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100)
	steady.Benchmark = "BenchmarkSteady"
	got := UnstableSeries([]Series{shaky, steady})
	if st, ok := got[shaky.SeriesKey]; len(got) != 1 || !ok || st.Flips != 3 {
		t.Errorf("UnstableSeries = %+v, want the shaky series only", got)
	}
}
