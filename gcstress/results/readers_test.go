package results

import (
	"strings"
	"testing"
)

// TestMixFewCycles: a mixed scenario whose windows completed no GC cycle,
// or one, is inconclusive and says so in its label and why, however
// healthy its (empty) CPU shares look; two cycles make a verdict; a
// write-only scenario with no cycle keeps its class; a failure still
// fails.
func TestMixFewCycles(t *testing.T) {
	th := DefaultThresholds()
	th.Warmup = 0
	mixS, writeS := Scenario{Name: "heap/100B/b", Mix: "b", Writers: 4}, Scenario{Name: "heap/100B", Writers: 4}
	windows := func(cycles ...uint64) []Sample {
		var ws []Sample
		for i, c := range cycles {
			ws = append(ws, win(float64(i+1), c, 1, 0.01, 0, 10))
		}
		return append(ws, Sample{Type: SampleEnd, Cycles: 9}) // the end line's cycles (a forced GC, say) do not count
	}
	for _, c := range []struct {
		name   string
		s      Scenario
		ws     []Sample
		exit   Exit
		class  Class
		label  string
		inWhy  string
		fewMix bool
	}{
		{"mix, none", mixS, windows(0, 0, 0, 0), Exit{}, Inconclusive, "inconclusive (no GC cycle)", "no GC cycle completed in the measured phase", true},
		{"mix, one", mixS, windows(0, 1, 0, 0), Exit{}, Inconclusive, "inconclusive (few GC cycles)", "1 GC cycle completed in the measured phase, fewer than the 2", true},
		{"mix, two", mixS, windows(1, 0, 1, 0), Exit{}, Healthy, "healthy", "", false},
		{"write-only, none", writeS, windows(0, 0, 0, 0), Exit{}, Healthy, "healthy", "", false},
		{"mix, none, died", mixS, windows(0, 0, 0, 0), Exit{Died: true}, Failed, "failed", "", false},
	} {
		v := ClassifyScenario(c.s, c.ws, c.exit, th)
		if v.Class != c.class || v.Label() != c.label || !strings.Contains(v.Why, c.inWhy) || v.FewMixCycles() != c.fewMix {
			t.Errorf("%s: %s / %q (%s), few %v; want %s / %q with %q", c.name, v.Class, v.Label(), v.Why, v.FewMixCycles(), c.class, c.label, c.inWhy)
		}
	}
}

// The start line of an open-loop mix counts operations (reads and
// writes), not Puts or MB/s; a write-only scenario's keeps both.
func TestDescribeMixRate(t *testing.T) {
	m := Scenario{Kind: "heap", Value: 100, Mix: "b", KeyDist: "zipfian", Rate: 20000, Preload: 1000}
	if d := m.Describe(); !strings.Contains(d, ", open loop at 20000 ops/s (reads and writes)") || strings.Contains(d, "Puts/s") || strings.Contains(d, "MB/s") {
		t.Errorf("mix: %s", d)
	}
	w := Scenario{Kind: "heap", Value: 100, Rate: 20000}
	if d := w.Describe(); !strings.Contains(d, ", open loop at 2.32 MB/s (20000 Puts/s)") {
		t.Errorf("write-only: %s", d)
	}
}
