package benchgate

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// spreadSet builds a Set of one unit from per-benchmark values.
func spreadSet(unit string, vals map[string][]float64) *Set {
	s := &Set{Samples: map[Key][]float64{}, Files: []string{"mem"}}
	for _, name := range []string{"BenchmarkQuiet-2", "BenchmarkNoisy-2", "BenchmarkSlow-2"} {
		if v, ok := vals[name]; ok {
			k := Key{Name: name, Unit: unit}
			s.Keys = append(s.Keys, k)
			s.Samples[k] = v
		}
	}
	return s
}

// quiet is ten values within 2% of 100; noisy ten spread over 50..150
// (interquartile range 55%), the same on both sides.
var (
	quietVals = []float64{100, 101, 102, 100, 101, 102, 100, 101, 102, 101}
	noisyVals = []float64{50, 150, 60, 140, 70, 130, 80, 120, 90, 110}
)

func TestRelativeSpread(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, math.NaN()},
		{[]float64{7}, 0},
		{[]float64{5, 5, 5, 5}, 0},
		{[]float64{0, 0, 0, 1, 1}, math.Inf(1)},
		{[]float64{1, 2, 3, 4, 5}, 2.0 / 3},  // quartiles 2 and 4, median 3
		{[]float64{90, 100, 110, 100}, 0.05}, // quartiles 97.5 and 102.5
	} {
		got := RelativeSpread(tc.xs)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want) || math.Abs(got-tc.want) < 1e-12) {
			t.Errorf("RelativeSpread(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestNoisyVerdict(t *testing.T) {
	base := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": quietVals, "BenchmarkNoisy-2": noisyVals})
	head := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": quietVals, "BenchmarkNoisy-2": noisyVals})
	rep, err := Compare(base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, n := rep.Rows[0], rep.Rows[1]
	if q.Verdict != Unchanged || q.Noise > 0.05 {
		t.Errorf("quiet row %+v: want unchanged with noise below 5%%", q)
	}
	if n.Verdict != Noisy || math.Abs(n.Noise-0.55*1.57/math.Sqrt(10)) > 1e-9 || !strings.Contains(n.Note, "MDE 69.8% > threshold 10%; 409 rounds a side would resolve it") {
		t.Errorf("noisy row %+v: want noisy, noise 27.3%% (1.57 × 55%% IQR/median / √10), MDE 69.8%%, a note with the rounds", n)
	}
	if q.Verdict != Unchanged || !(q.MDE > 0 && q.MDE < 0.03) {
		t.Errorf("quiet row MDE %v: want under 3%%", q.MDE)
	}
	if !rep.Inconclusive() || rep.Regressed() {
		t.Errorf("Inconclusive %v, Regressed %v: want inconclusive, no regression", rep.Inconclusive(), rep.Regressed())
	}
	advice := rep.NoiseAdvice()
	for _, want := range []string{"BenchmarkNoisy-2 ns/op (MDE 69.8% > 10%)", "-measure instructions", "-count 409"} {
		if !strings.Contains(advice, want) {
			t.Errorf("advice %q lacks %q", advice, want)
		}
	}
	if strings.Contains(advice, "BenchmarkQuiet") || strings.Contains(advice, "too noisy") {
		t.Errorf("advice %q names the quiet row", advice)
	}
	var text, md bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, want := range []string{"benchgate: NOISY (2 compared, 1 noisy;", "noisy (MDE 69.8%", "or instruction mode (-measure instructions"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", name, want, out)
			}
		}
		if c := strings.Count(out, "too noisy to judge"); c != 1 {
			t.Errorf("%s report says \"too noisy to judge\" %d times, want once (the note):\n%s", name, c, out)
		}
	}
	if !strings.Contains(md.String(), "| 27.3% | 69.8% | **noisy (MDE 69.8% &gt; threshold 10%; 409 rounds a side would resolve it)** |") {
		t.Errorf("markdown does not stress the noisy row:\n%s", md.String())
	}

	// A threshold above the MDE judges the row; a zero threshold leaves it
	// to the U test alone.
	for _, th := range []float64{0.75, -1} {
		rep, err := Compare(base, head, Options{Threshold: th})
		if err != nil || rep.Rows[1].Verdict != Unchanged || rep.Inconclusive() {
			t.Errorf("threshold %g: %+v, %v; want unchanged", th, rep.Rows[1], err)
		}
	}
}

// A significant regression stays Regressed whatever the noise: regression
// wins over noise, for the row and for the report.
func TestRegressionWinsOverNoise(t *testing.T) {
	slower := make([]float64, len(noisyVals))
	for i, v := range noisyVals {
		slower[i] = v * 3
	}
	base := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": noisyVals, "BenchmarkSlow-2": noisyVals})
	head := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": noisyVals, "BenchmarkSlow-2": slower})
	rep, err := Compare(base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows[0].Verdict != Noisy || rep.Rows[1].Verdict != Regressed {
		t.Errorf("rows %+v: want noisy, regressed", rep.Rows)
	}
	if rep.Inconclusive() || !rep.Regressed() || !strings.Contains(rep.Summary(), "FAIL") {
		t.Errorf("summary %q: want FAIL, not inconclusive", rep.Summary())
	}
}

// Instruction units are already counts: the advice is more rounds only.
func TestNoiseAdviceInstructions(t *testing.T) {
	base := spreadSet(UnitInstructions, map[string][]float64{"BenchmarkNoisy-2": noisyVals})
	rep, err := Compare(base, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.NoiseAdvice(); !strings.Contains(a, "rerun with 409 rounds a side (-count 409)") || strings.Contains(a, "-measure instructions") {
		t.Errorf("advice %q: want more rounds only", a)
	}
}

// With Rounds, a side with fewer values than the rounds it ran is missing
// data: Incomplete and ErrMissingRounds naming the row, whichever side.
func TestMissingRounds(t *testing.T) {
	full := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": quietVals, "BenchmarkNoisy-2": quietVals})
	short := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": quietVals, "BenchmarkNoisy-2": quietVals[:7]})
	for _, tc := range []struct {
		name       string
		base, head *Set
		note       string
	}{
		{"head short", full, short, "head: 7 of 10 rounds"},
		{"base short", short, full, "base: 7 of 10 rounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Compare(tc.base, tc.head, Options{Rounds: 10})
			if !errors.Is(err, ErrMissingRounds) || !strings.Contains(err.Error(), "BenchmarkNoisy-2 ns/op ("+tc.note+")") {
				t.Fatalf("err %v: want ErrMissingRounds naming BenchmarkNoisy-2", err)
			}
			if rep.Rows[1].Verdict != Incomplete || rep.Rows[0].Verdict != Unchanged || !strings.Contains(rep.Summary(), "ERROR") {
				t.Errorf("rows %+v, summary %q", rep.Rows, rep.Summary())
			}
		})
	}
	// Without Rounds nothing is checked; a benchmark new in the head is
	// allowed when it ran every round, missing data when it did not.
	if _, err := Compare(full, short, Options{}); err != nil {
		t.Errorf("no Rounds: %v", err)
	}
	onlyQuiet := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": quietVals})
	if rep, err := Compare(onlyQuiet, full, Options{Rounds: 10}); err != nil || rep.Rows[1].Verdict != New {
		t.Errorf("new in the head, every round: %v, %+v", err, rep)
	}
	if rep, err := Compare(onlyQuiet, short, Options{Rounds: 10}); !errors.Is(err, ErrMissingRounds) || rep.Rows[1].Verdict != Incomplete {
		t.Errorf("new in the head, 7 rounds: %v, %+v", err, rep)
	}
	if _, err := Compare(full, full, Options{Rounds: -1}); !errors.Is(err, errBadOption) {
		t.Errorf("Rounds -1: %v, want errBadOption", err)
	}
}

// The same scatter over four times the rounds halves the MDE: 40 rounds of
// noisyVals' spread resolve what 10 could not (MDE 69.8% → 35.5%, under a
// 40% threshold), so the row is judged, not Noisy.
func TestNoiseShrinksWithRounds(t *testing.T) {
	var many []float64
	for range 4 {
		many = append(many, noisyVals...)
	}
	for _, c := range []struct {
		vals []float64
		want Verdict
	}{{noisyVals, Noisy}, {many, Unchanged}} {
		b := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": c.vals})
		rep, err := Compare(b, b, Options{Threshold: 0.4})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Rows[0]; got.Verdict != c.want {
			t.Errorf("%d rounds: %+v, want %v", len(c.vals), got, c.want)
		}
	}
}
