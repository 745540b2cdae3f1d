package gcbench_test

import (
	"flag"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcmetrics/gcbench"
)

// runFixed runs f through testing.Benchmark with b.N fixed at n (after the
// framework's first N=1 run), so the test's cost does not depend on
// -benchtime or the machine's speed. The result is the n-iteration run's.
func runFixed(t *testing.T, n string, f func(*testing.B)) testing.BenchmarkResult {
	t.Helper()
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set(n); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	// Finish any cycle an earlier test left running, so its CPU is not
	// credited to this run when it ends.
	runtime.GC()
	return testing.Benchmark(f)
}

type node struct {
	next *node
	val  *int
}

var live [16]*node // the last lists built, so marking has a live heap to trace

// TestPointerHeavyLoopShowsGC builds linked lists of pointers, allocating
// many times the live heap, so several GC cycles complete in the run.
func TestPointerHeavyLoopShowsGC(t *testing.T) {
	r := runFixed(t, "200x", func(b *testing.B) {
		m := gcbench.Start(b)
		b.ResetTimer()
		for i := range b.N {
			var head *node
			for j := range 5000 {
				v := j
				head = &node{next: head, val: &v}
			}
			live[i%len(live)] = head
		}
		b.StopTimer()
		m.Stop()
	})
	live = [16]*node{}
	t.Logf("N=%d %v", r.N, r.Extra)
	if r.Extra[gcbench.UnitCycles] <= 0 {
		t.Fatalf("no GC cycle completed in %d ops of 10000 allocations: %v", r.N, r.Extra)
	}
	if g := r.Extra[gcbench.UnitGCCPU]; g <= 0 || g > 100 {
		t.Fatalf("gc-cpu-%% = %v, want in (0, 100]", g)
	}
	if _, ok := r.Extra[gcbench.UnitAssist]; !ok {
		t.Fatalf("no %s reported: %v", gcbench.UnitAssist, r.Extra)
	}
	if p := r.Extra[gcbench.UnitPauseP99]; p <= 0 {
		t.Fatalf("%s = %v with cycles completed", gcbench.UnitPauseP99, p)
	}
}

var sum uint64

// TestAllocationFreeLoopShowsNoGC runs arithmetic only: no cycle starts,
// so the GC share is zero. A run may still be charged the tail of a cycle
// that other work (the race detector's, a neighbour test's garbage)
// left in flight when the window opened, so one of three runs must show a
// share under 1%: an allocation-free loop that the collector really
// charged would show it in all three.
func TestAllocationFreeLoopShowsNoGC(t *testing.T) {
	var last map[string]float64
	for range 3 {
		r := runFixed(t, "20000x", func(b *testing.B) {
			m := gcbench.Start(b)
			b.ResetTimer()
			x := uint64(88172645463325252)
			for range b.N {
				for range 1000 {
					x = xorshift(x)
				}
			}
			sum += x
			b.StopTimer()
			m.Stop()
		})
		t.Logf("N=%d %v", r.N, r.Extra)
		last = r.Extra
		if r.Extra[gcbench.UnitGCCPU] < 1 && r.Extra[gcbench.UnitAssist] < 1 {
			return
		}
	}
	t.Fatalf("gc-cpu-%% %v, assist-cpu-%% %v in each of 3 runs of an allocation-free loop, want < 1",
		last[gcbench.UnitGCCPU], last[gcbench.UnitAssist])
}

// TestStopReportsMetrics checks the names Stop reports and that a second
// Stop changes nothing.
func TestStopReportsMetrics(t *testing.T) {
	r := runFixed(t, "1x", func(b *testing.B) {
		m := gcbench.Start(b)
		m.Stop()
		b.ReportMetric(-1, gcbench.UnitGCCPU)
		m.Stop()
	})
	for _, u := range gcbench.AllUnits() {
		if u == gcbench.UnitCPUPerOp && runtime.GOOS == "windows" {
			continue // no getrusage
		}
		if _, ok := r.Extra[u]; !ok {
			t.Errorf("Stop did not report %s: %v", u, r.Extra)
		}
	}
	if r.Extra[gcbench.UnitGCCPU] != -1 {
		t.Errorf("second Stop reported again: %v", r.Extra)
	}
}

// TestMetricsFollowGCMetrics checks Metrics against gcmetrics' methods on
// a hand-built interval.
func TestMetricsFollowGCMetrics(t *testing.T) {
	d := gcmetrics.Delta{CPU: gcmetrics.CPU{CPUUsed: 8, GCCPU: 2, Assist: 0.5, IdleMark: 1, Cycles: 4},
		Pauses: gcmetrics.Histogram{Buckets: []float64{0, 1e-4, 2e-4}, Counts: []uint64{3, 1}}}
	want := map[string]float64{gcbench.UnitGCCPU: 25, gcbench.UnitAssist: 6.25, gcbench.UnitPauseP99: 2e5, gcbench.UnitCycles: 0.5,
		gcbench.UnitGCPerOp: 3e9 / 8, gcbench.UnitAssistPerOp: 0.5e9 / 8, gcbench.UnitCyclesPerMop: 0.5e6}
	got := gcbench.Metrics(d, 8)
	if len(got) != len(want) {
		t.Fatalf("Metrics = %v", got)
	}
	for _, m := range got {
		if w := want[m.Unit]; m.Value != w {
			t.Errorf("%s = %v, want %v", m.Unit, m.Value, w)
		}
	}
	for _, m := range gcbench.Metrics(d, 0) {
		switch m.Unit {
		case gcbench.UnitCycles, gcbench.UnitGCPerOp, gcbench.UnitAssistPerOp, gcbench.UnitCyclesPerMop:
			t.Errorf("%s reported for n = 0", m.Unit)
		}
	}
}

// TestUnitFiles checks that scripts/units.txt holds every UnitLines line
// and scripts/gate-units.txt gives every unit a direction.
func TestUnitFiles(t *testing.T) {
	units, err := os.ReadFile("../../scripts/units.txt")
	if err != nil {
		t.Fatal(err)
	}
	gate, err := os.ReadFile("../../scripts/gate-units.txt")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(units), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	gated := map[string]bool{}
	for _, l := range strings.Split(string(gate), "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[0] == "Unit" {
			gated[f[1]] = true
		}
	}
	lines := strings.Split(strings.TrimSuffix(gcbench.UnitLines(), "\n"), "\n")
	if len(lines) != len(gcbench.AllUnits()) {
		t.Fatalf("UnitLines has %d lines, want %d:\n%s", len(lines), len(gcbench.AllUnits()), gcbench.UnitLines())
	}
	for _, l := range lines {
		if !have[l] {
			t.Errorf("scripts/units.txt lacks %q", l)
		}
		if u := strings.Fields(l)[1]; !gated[u] {
			t.Errorf("scripts/gate-units.txt has no line for %s", u)
		}
	}
}
