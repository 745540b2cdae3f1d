package gcmetrics_test

import (
	"encoding/json"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcmetrics/gcbench"
	"github.com/writegc/writegc/gcstress"
)

// shares returns the GC and assist CPU percentages the three consumers of
// gcmetrics compute for the interval a..b: a gcstress window, explain's
// metrics.json (through its JSON form, as Explain reads it) and gcbench.
func shares(t *testing.T, a, b gcmetrics.Snapshot) (stress, expl, bench [2]float64) {
	t.Helper()
	var w gcstress.Sample
	w.SetGC(gcmetrics.Sub(a, b), b)
	stress = [2]float64{w.GCPct, w.AssistPct}

	data, err := json.Marshal(explain.NewCaptureMetrics(a, b, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var m explain.CaptureMetrics
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if g, ok := m.GCCPUShare(); ok {
		expl[0] = g * 100
		expl[1] = m.CPU.AssistPercent()
	}

	for _, x := range gcbench.Metrics(gcmetrics.Sub(a, b), 1) {
		switch x.Unit {
		case gcbench.UnitGCCPU:
			bench[0] = x.Value
		case gcbench.UnitAssist:
			bench[1] = x.Value
		}
	}
	return stress, expl, bench
}

func same(x, y [2]float64) bool {
	return math.Abs(x[0]-y[0]) < 1e-9 && math.Abs(x[1]-y[1]) < 1e-9
}

// TestOneGCShareEverywhere feeds one hand-built snapshot pair to the
// gcstress sampler, explain and gcbench and expects gcmetrics' answer
// from each: idle-priority marking out of GC CPU, in the denominator.
func TestOneGCShareEverywhere(t *testing.T) {
	pauses := gcmetrics.Histogram{Buckets: []float64{math.Inf(-1), 0, 1e-4, math.Inf(1)}, Counts: []uint64{0, 0, 0}}
	a := gcmetrics.Snapshot{CPUTotal: 100, CPUIdle: 40, GCTotal: 5, GCIdle: 1, GCAssist: 1, Cycles: 10, Pauses: pauses}
	b := a
	b.CPUTotal, b.CPUIdle = 120, 52 // 8 cpu-seconds used
	b.GCTotal, b.GCIdle, b.GCAssist = 8, 2, 1.5
	b.Cycles = 12
	b.Pauses = gcmetrics.Histogram{Buckets: pauses.Buckets, Counts: []uint64{0, 3, 1}}
	want := [2]float64{25, 6.25} // (3-1)/8, 0.5/8
	if got := gcmetrics.Sub(a, b); got.GCCPUPercent() != want[0] || got.AssistPercent() != want[1] {
		t.Fatalf("gcmetrics: %v%%, %v%%, want %v", got.GCCPUPercent(), got.AssistPercent(), want)
	}
	s, e, g := shares(t, a, b)
	for name, got := range map[string][2]float64{"gcstress": s, "explain": e, "gcbench": g} {
		if !same(got, want) {
			t.Errorf("%s: gc, assist = %v, want %v", name, got, want)
		}
	}
}

var keep []*[4]*int

// TestOneGCShareLive does the same over a real interval with GC cycles.
func TestOneGCShareLive(t *testing.T) {
	a := gcmetrics.Read()
	for range 3 {
		for i := range 20000 {
			v := i
			keep = append(keep, &[4]*int{&v})
		}
		keep = nil
		runtime.GC()
	}
	b := gcmetrics.Read()
	if !gcmetrics.Sub(a, b).Counted() {
		t.Fatal("no CPU accounted over three GC cycles")
	}
	s, e, g := shares(t, a, b)
	if s[0] <= 0 || !same(s, e) || !same(s, g) {
		t.Fatalf("gc, assist %%: gcstress %v, explain %v, gcbench %v", s, e, g)
	}
	t.Logf("gc %.2f%%, assist %.2f%%", s[0], s[1])
}
