package gchealth

// The one file of gchealth that imports gcstress: it holds this package's
// classes against gcstress's classifier on the same recorded windows, so
// the two cannot drift apart while the package itself depends on nothing
// of gcstress.

import (
	"encoding/json"
	"testing"

	"github.com/writegc/writegc/gcmetrics/health"
	"github.com/writegc/writegc/gcstress/results"
)

// recordedBoth reads the window lines of a testdata file by scenario, as
// gcstress's samples and as this package's windows, in the same order.
func recordedBoth(t *testing.T, file string) (map[string][]results.Sample, map[string][]window) {
	t.Helper()
	samples, windows := map[string][]results.Sample{}, map[string][]window{}
	recordedLines(t, file, func(scenario string, line []byte) {
		var s results.Sample
		var w window
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(line, &w); err != nil {
			t.Fatal(err)
		}
		samples[scenario], windows[scenario] = append(samples[scenario], s), append(windows[scenario], w)
	})
	return samples, windows
}

// TestSameClassesAsGcstress: one classifier. Every recorded window that
// closes a span (a GC cycle ended in it; the trailing span aside, which
// gcstress merges into the one before) gets the class results.Classify
// gives it, and its first cause is gcstress's window cause; the spiral,
// this package's own rule, is the only difference allowed (gcstress's
// throughput-based failure is not applied here).
func TestSameClassesAsGcstress(t *testing.T) {
	compared := 0
	for _, file := range []string{"matrix.jsonl", "degrading.jsonl", "spiral.jsonl"} {
		samples, windows := recordedBoth(t, file)
		for name, w := range windows {
			g := results.Classify(samples[name], results.Exit{}, health.DefaultThresholds())
			lastClose := -1
			for i := range w {
				if w[i].WinCycles > 0 {
					lastClose = i
				}
			}
			for i, v := range replay(w) {
				wh := g.Windows[i]
				if w[i].WinCycles == 0 || (i == lastClose && i < len(w)-1) || v.state == Failing || wh.Class == health.Failed {
					continue
				}
				compared++
				if v.state != stateOf(wh.Class) {
					t.Errorf("%s %s window %d: %s, gcstress %s (%s)", file, name, i, v.state, wh.Class, wh.Why)
				}
				if wh.Cause != health.CauseNone && (v.n == 0 || v.causes[0] != Cause(wh.Cause)) {
					t.Errorf("%s %s window %d: causes %v, gcstress %s", file, name, i, v.causeList(), wh.Cause)
				}
				if gp := 100 * v.fig.GCCPURatio; gp-wh.GCPct > 1e-9 || wh.GCPct-gp > 1e-9 {
					t.Errorf("%s %s window %d: GC CPU %.3f%%, gcstress %.3f%%", file, name, i, gp, wh.GCPct)
				}
			}
		}
	}
	if compared < 60 {
		t.Fatalf("only %d windows compared", compared)
	}
}

// TestHeapOverGoalAsGcstress: gcstress's classifier gives the window
// TestHeapOverGoal degrades the same cause.
func TestHeapOverGoalAsGcstress(t *testing.T) {
	s := []results.Sample{{Type: results.SampleWindow, Dur: 1, WinCycles: 1, CPUUsed: 1, GCCPU: 0.01, HeapObjects: 11, HeapGoal: 10}}
	if g := results.Classify(s, results.Exit{}, health.DefaultThresholds()).Windows[0]; g.Cause != health.CauseHeapOverGoal {
		t.Fatalf("gcstress: %+v", g)
	}
}
