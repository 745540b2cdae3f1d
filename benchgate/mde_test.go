package benchgate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/perf/benchmath"
)

// The shift DetectableShift gives is what it claims: the U test the gate
// uses (benchmath's, at alpha 0.01) finds it in about 80% of simulated
// comparisons of normal samples at 10 and 20 rounds a side, and a shift of
// half of it far less often. The generator is seeded: the test is
// deterministic.
func TestDetectableShiftSimulated(t *testing.T) {
	const alpha, power, trials = 0.01, 0.8, 1000
	r := rand.New(rand.NewPCG(51, 1))
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	detect := func(n int, shift float64) float64 {
		hits := 0
		b, h := make([]float64, n), make([]float64, n)
		for range trials {
			for i := range n {
				b[i], h[i] = 100+r.NormFloat64(), 100+shift+r.NormFloat64()
			}
			c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(b), th), benchmath.NewSample(slices.Clone(h), th))
			if c.P < alpha {
				hits++
			}
		}
		return float64(hits) / trials
	}
	for _, n := range []int{10, 20} {
		d := DetectableShift(1, 1, n, n, alpha, power)
		if got := detect(n, d); got < 0.7 || got > 0.9 {
			t.Errorf("n=%d: a shift of %.3f sigma was detected %.1f%% of the time, want about 80%%", n, d, got*100)
		}
		if got := detect(n, d/2); got > 0.4 {
			t.Errorf("n=%d: half the MDE was detected %.1f%% of the time, want well under 80%%", n, got*100)
		}
	}
}

func TestDetectableShiftEdges(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		sb, sh       float64
		nb, nh       int
		alpha, power float64
		want         float64
	}{
		{0, 0, 10, 10, 0.01, 0.8, 0},
		{1, 1, 1, 10, 0.01, 0.8, inf},   // a side of one value
		{1, 1, 3, 3, 0.01, 0.8, inf},    // 3+3 cannot reach p < 0.01
		{-1, 1, 10, 10, 0.01, 0.8, nan}, // a negative sigma
		{1, nan, 10, 10, 0.01, 0.8, nan},
		{1, 1, 10, 10, 0, 0.8, nan},
		{1, 1, 10, 10, 0.01, 1, nan},
	} {
		got := DetectableShift(c.sb, c.sh, c.nb, c.nh, c.alpha, c.power)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("DetectableShift(%v, %v, %d, %d, %v, %v) = %v, want %v", c.sb, c.sh, c.nb, c.nh, c.alpha, c.power, got, c.want)
		}
	}
	// Four times the rounds about halve it (a little more than halve: the
	// t quantiles fall too); more power or a smaller alpha raise it.
	d10, d40 := DetectableShift(1, 1, 10, 10, 0.01, 0.8), DetectableShift(1, 1, 40, 40, 0.01, 0.8)
	if r := d40 / d10; r < 0.45 || r > 0.5 {
		t.Errorf("MDE at 40 rounds / at 10 = %.3f, want about 1/2", r)
	}
	if DetectableShift(1, 1, 10, 10, 0.01, 0.9) <= d10 || DetectableShift(1, 1, 10, 10, 0.001, 0.8) <= d10 {
		t.Error("more power or a smaller alpha did not raise the MDE")
	}
	// Each side's scatter counts: a noisy head raises it as a noisy base does.
	if a, b := DetectableShift(1, 3, 10, 10, 0.01, 0.8), DetectableShift(3, 1, 10, 10, 0.01, 0.8); a != b || a <= d10 {
		t.Errorf("MDE with one noisy side: %v and %v, want equal and above %v", a, b, d10)
	}
}

// MDE is relative to the base median, from each side's IQR/1.349.
func TestMDE(t *testing.T) {
	got := MDE(noisyVals, noisyVals, 0.01, 0.8)
	sigma := 55 / normalIQR // noisyVals' IQR is 55 around a median of 100
	if want := DetectableShift(sigma, sigma, 10, 10, 0.01, 0.8) / 100; math.Abs(got-want) > 1e-12 || math.Abs(got-0.698) > 0.001 {
		t.Errorf("MDE(noisyVals) = %v, want %v (69.8%%)", got, want)
	}
	if got := MDE(nil, noisyVals, 0.01, 0.8); !math.IsNaN(got) {
		t.Errorf("MDE with an empty side = %v, want NaN", got)
	}
	if got := MDE([]float64{0, 0, 0, 1, 1}, []float64{0, 0, 0, 1, 1}, 0.01, 0.8); !math.IsInf(got, 1) {
		t.Errorf("MDE around a zero median = %v, want +Inf", got)
	}
	if got := MDE([]float64{5, 5, 5, 5, 5, 5}, []float64{5, 5, 5, 5, 5, 5}, 0.01, 0.8); got != 0 {
		t.Errorf("MDE of constant values = %v, want 0", got)
	}
}

// RoundsFor is the first n whose MDE is at most the target.
func TestRoundsFor(t *testing.T) {
	for _, target := range []float64{0.2, 0.5, 1, 3} {
		n := RoundsFor(1, 1, target, 0.01, 0.8)
		if n < 4 || DetectableShift(1, 1, n, n, 0.01, 0.8) > target || DetectableShift(1, 1, n-1, n-1, 0.01, 0.8) <= target {
			t.Errorf("RoundsFor(target %v) = %d: not the first n with an MDE at most the target", target, n)
		}
	}
	if n := RoundsFor(1, 1, 0.01, 0.01, 0.8); n != 0 {
		t.Errorf("a target out of reach: %d rounds, want 0", n)
	}
	if n := RoundsFor(1, 1, 0, 0.01, 0.8); n != 0 {
		t.Errorf("a zero target: %d rounds, want 0", n)
	}
}

// A row whose noise is under its threshold but whose MDE is over it is
// noisy: 10 rounds scattering by 15% (IQR over median) have a noise of
// 7.4% but cannot detect a 10% change with 80% probability. The old
// criterion (noise over the threshold) judged it.
func TestNoisyByMDE(t *testing.T) {
	vals := []float64{92.5, 107.5, 95, 105, 97.5, 102.5, 100, 100, 92, 108}
	base := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": vals})
	rep, err := Compare(base, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	if !(row.Noise < 0.1) || !(row.MDE > 0.1) || row.Verdict != Noisy || row.RoundsNeeded <= 10 {
		t.Errorf("row %+v: want noise under 10%%, MDE over it, noisy, more than 10 rounds needed", row)
	}
	if got := RoundsFor(sigmaOf(vals)/100, sigmaOf(vals)/100, 0.1, DefaultAlpha, DefaultPower); got != row.RoundsNeeded {
		t.Errorf("RoundsNeeded %d, RoundsFor %d", row.RoundsNeeded, got)
	}
}

// Calibrate gives each row its MDE at the chunk's rounds, and the rounds
// that would resolve a row whose MDE exceeds its threshold.
func TestCalibrateMDE(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 2))
	mk := func() *Set {
		s := &Set{Samples: map[Key][]float64{}, Files: []string{"mem"}}
		for _, c := range []struct {
			name  string
			sigma float64
		}{{"BenchmarkQuiet-2", 0.5}, {"BenchmarkNoisy-2", 20}} {
			k := Key{c.name, "ns/op"}
			s.Keys = append(s.Keys, k)
			for range 200 {
				s.Samples[k] = append(s.Samples[k], 100+c.sigma*r.NormFloat64())
			}
		}
		return s
	}
	th, err := Calibrate(mk(), mk(), CalibrateConfig{Rounds: 10})
	if err != nil {
		t.Fatal(err)
	}
	q, n := th.Rows[0], th.Rows[1]
	if !(q.MDE > 0 && q.MDE < 0.02) || q.RoundsNeeded > 10 {
		t.Errorf("quiet row %+v: want an MDE under 2%%, resolved at 10 rounds", q)
	}
	if !(n.MDE > n.Threshold) || n.RoundsNeeded <= 10 {
		t.Errorf("noisy row %+v: want an MDE above its threshold and more than 10 rounds needed", n)
	}
}
