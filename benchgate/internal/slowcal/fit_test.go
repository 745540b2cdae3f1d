package main

import (
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTheilSenIgnoresAnOutlier(t *testing.T) {
	var pts []point
	for _, x := range []float64{10, 20, 40} {
		for range 3 {
			pts = append(pts, point{x, 100 + 0.5*x})
		}
	}
	pts[4].y = 400 // a neighbour's build during one run
	c, s, err := theilSen(pts)
	if err != nil || math.Abs(s-0.5) > 1e-9 || math.Abs(c-100) > 1e-9 {
		t.Fatalf("got %v + %v*x, %v; want 100 + 0.5*x", c, s, err)
	}
	if _, _, err := theilSen([]point{{5, 1}, {5, 2}}); err == nil {
		t.Error("one x only: want an error")
	}
}

func TestSpinsFor(t *testing.T) {
	// untagged 100 ns/op, line 102 + 0.25*x: 15% is 115 ns/op at x = 52.
	if s, err := spinsFor(100, 102, 0.25, 15); err != nil || s != 52 {
		t.Errorf("got %d, %v; want 52", s, err)
	}
	if s, _ := spinsFor(100, 120, 0.25, 15); s != 1 {
		t.Errorf("target below the intercept: got %d, want the minimum 1", s)
	}
	if _, err := spinsFor(100, 100, 0, 15); err == nil {
		t.Error("zero slope: want an error")
	}
}

func TestNextSpins(t *testing.T) {
	// one pass: Newton step with the fitted slope (0.5 ns/iteration, base 100).
	if got := nextSpins([]verified{{30, 10}}, 15, 100, 0.5, 0); got != 40 {
		t.Errorf("newton: got %d, want 40", got)
	}
	// two passes bracketing 15%: the secant through them.
	if got := nextSpins([]verified{{30, 10}, {50, 20}}, 15, 100, 0.5, 0); got != 40 {
		t.Errorf("secant: got %d, want 40", got)
	}
	// a secant that would jump far is held to 4x the last count.
	if got := nextSpins([]verified{{30, 14.0}, {31, 14.01}}, 15, 100, 0.5, 0); got != 124 {
		t.Errorf("clamp: got %d, want 124", got)
	}
	// from a count of 1 the Newton step may reach the top of the grid.
	if got := nextSpins([]verified{{1, 0}}, 15, 100, 0.5, 40); got != 31 {
		t.Errorf("reach: got %d, want 31", got)
	}
	if got := nextSpins([]verified{{2, 40}}, 15, 100, 0.5, 0); got != 1 {
		t.Errorf("floor: got %d, want 1", got)
	}
}

func TestBest(t *testing.T) {
	if b := best([]verified{{10, 8}, {20, 16}, {15, 13}}, 15); b.spins != 20 {
		t.Errorf("got %+v", b)
	}
}

func TestRotateVisitsEveryPosition(t *testing.T) {
	seen := map[[2]int]bool{}
	for k := range 4 {
		xs := []int{0, 1, 2, 3}
		rotate(xs, k)
		for pos, x := range xs {
			seen[[2]int{pos, x}] = true
		}
	}
	if len(seen) != 16 {
		t.Errorf("4 rounds put the 4 configurations at %d of the 16 (position, config) pairs", len(seen))
	}
}

func TestParseNsOp(t *testing.T) {
	out := "goos: linux\npkg: x\nBenchmarkAlloc/v=1-2   \t 1000\t  12.50 ns/op\t 8000 MB/s\t 0 B/op\nPASS\n"
	if ns, err := parseNsOp(out); err != nil || ns != 12.5 {
		t.Errorf("got %v, %v", ns, err)
	}
	if _, err := parseNsOp("PASS\n"); err == nil {
		t.Error("no result: want an error")
	}
	two := "BenchmarkA-2 10 1 ns/op\nBenchmarkB-2 10 2 ns/op\n"
	if _, err := parseNsOp(two); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Errorf("two benchmarks: got %v", err)
	}
}

// model is a benchmark seen through a measurer: ns/op as a function of the
// spin count, with multiplicative noise and a rare wild outlier.
func model(t *testing.T, seed uint64, base, tagOverhead float64, f func(float64) float64, noise float64) measurer {
	rng := rand.New(rand.NewPCG(seed, 1))
	return func(s int) (float64, error) {
		v := base
		if s != untagged {
			v += tagOverhead + f(float64(s))
		}
		v *= 1 + noise*rng.NormFloat64()
		if rng.IntN(40) == 0 {
			v *= 1.5
		}
		return v, nil
	}
}

func TestCalibrateLandsOnTarget(t *testing.T) {
	cfg := config{pct: 15, tol: 1.5, rounds: 3, verify: 5, passes: 3, nsPerSpin: 0.3}
	cases := map[string]measurer{
		// a memtable Put: additive spin, 1% noise.
		"linear": model(t, 1, 900, 5, func(x float64) float64 { return 0.3 * x }, 0.01),
		// a tiny op (arena Alloc): the tagged build alone costs 6%, and
		// out-of-order execution hides most of a short spin (concave).
		"concave": model(t, 2, 12, 0.7, func(x float64) float64 { return 0.5 * math.Sqrt(x) }, 0.01),
		// a pipelined path: the spin is hidden until it is the bottleneck.
		"hockey": model(t, 3, 1300, 0, func(x float64) float64 { return max(0, 0.3*x-150) }, 0.01),
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := calibrate(m, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if !r.withinTol || math.Abs(r.measured-15) > 1.5 {
				t.Errorf("measured %.2f%% at %d spins after %d passes (%+v)", r.measured, r.spins, len(r.passes), r.passes)
			}
		})
	}
}

func TestCalibrateNoSlope(t *testing.T) {
	cfg := config{pct: 15, tol: 1.5, rounds: 3, verify: 3, passes: 2, nsPerSpin: 0.3}
	m := func(int) (float64, error) { return 100, nil }
	if _, err := calibrate(m, cfg, io.Discard); err == nil {
		t.Error("a site off the benchmark's path: want an error")
	}
}
