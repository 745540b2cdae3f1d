package results

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// classString renders window classes one letter each (H, E, D, F).
func classString(v Health) string {
	var b strings.Builder
	for _, w := range v.Windows {
		b.WriteByte(strings.ToUpper(string(w.Class))[0])
	}
	return b.String()
}

func verdictText(rs []Result) string {
	var b strings.Builder
	for _, r := range rs {
		v := r.Verdict
		fmt.Fprintf(&b, "%s: %s (%s)\n  windows %s\n  gc %.1f%% assist %.1f%% limiter-on %.2fs failed-at %.3f\n",
			r.Scenario.Name, v.Class, v.Why, classString(v), v.GCPct, v.AssistPct, v.LimiterOn, v.FailedAt)
	}
	return b.String()
}

// TestClassifyGolden classifies recorded sample streams (real runs of
// gcstress -quick, latency histograms stripped) and compares the verdicts
// with golden files.
func TestClassifyGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/streams/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no recorded streams")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			th := DefaultThresholds()
			th.Warmup = 500e6
			rs, err := ReadResults(in, th)
			if err != nil {
				t.Fatal(err)
			}
			testkit.CheckGolden(t, strings.TrimSuffix(f, ".jsonl")+".golden.txt", []byte(verdictText(rs)))
		})
	}
}

// win builds a synthetic window.
func win(t float64, cycles uint64, cpu, gc, assist, mbps float64) Sample {
	return Sample{Type: SampleWindow, T: t, Dur: 1, WinCycles: cycles, CPUUsed: cpu, GCCPU: gc, Assist: assist, MBps: mbps,
		HeapGoal: 100 << 20, HeapObjects: 50 << 20, HeapLive: 40 << 20}
}

func TestClassifySpansMergeUntilACycleEnds(t *testing.T) {
	th := DefaultThresholds()
	th.Warmup = 0
	// Windows 0-1 have no completed cycle: their CPU is only seen at the
	// end of window 2, where 30% of 3 cpu-seconds was GC.
	ws := []Sample{win(1, 0, 0, 0, 0, 10), win(2, 0, 0, 0, 0, 10), win(3, 1, 3, 0.9, 0, 10),
		win(4, 2, 2, 0.02, 0, 10), win(5, 0, 0, 0, 0, 10)}
	v := Classify(ws, Exit{}, th)
	if got := classString(v); got != "DDDHH" {
		t.Fatalf("classes %s, want DDDHH (first span degraded at 30%%, last span healthy)", got)
	}
	if v.Windows[0].Span != [2]int{0, 2} || v.Windows[4].Span != [2]int{3, 4} {
		t.Fatalf("spans %v %v", v.Windows[0].Span, v.Windows[4].Span)
	}
	if v.Class != Degraded {
		t.Fatalf("scenario %s, want degraded", v.Class)
	}
	// Elevated between the thresholds; assists alone can degrade.
	three := func(w Sample) []Sample { return []Sample{w, w, w} }
	v = Classify(three(win(1, 1, 1, 0.15, 0, 1)), Exit{}, th)
	if v.Class != Elevated {
		t.Fatalf("15%% GC: %s, want elevated", v.Class)
	}
	v = Classify(three(win(1, 1, 1, 0.08, 0.06, 1)), Exit{}, th)
	if v.Class != Degraded {
		t.Fatalf("6%% assist: %s, want degraded", v.Class)
	}
	// Heap above its goal degrades a window whatever the CPU.
	w := win(1, 1, 1, 0.01, 0, 1)
	w.HeapObjects = 101 << 20
	if v = Classify(three(w), Exit{}, th); v.Class != Degraded || !v.Windows[0].OverGoal {
		t.Fatalf("over goal: %s", v.Class)
	}
}

func TestClassifyFailureNeedsAllConditionsInARow(t *testing.T) {
	th := DefaultThresholds()
	th.Warmup = 0
	const limit = 1000 << 20
	mk := func(i int, mbps float64, live uint64, limiter uint64) Sample {
		w := win(float64(i+1), 1, 1, 0.5, 0.2, mbps)
		w.MemLimit, w.HeapLive, w.LimiterLast, w.LimiterCycles, w.Progress = limit, live, limiter, uint64(i+1), float64(i)/10
		w.HeapGoal, w.HeapObjects = limit, limit-1
		return w
	}
	var ws []Sample
	ws = append(ws, mk(0, 100, 100<<20, 0), mk(1, 100, 500<<20, 0))
	// Live at 95% of the limit, limiter advancing, throughput 10% of best:
	// two windows, then one that recovers, then three in a row.
	ws = append(ws, mk(2, 10, 950<<20, 3), mk(3, 10, 950<<20, 4), mk(4, 80, 950<<20, 5))
	v := Classify(ws, Exit{}, th)
	if v.Class == Failed {
		t.Fatalf("failed after two failing windows: %s", v.Why)
	}
	ws = append(ws, mk(5, 10, 950<<20, 6), mk(6, 10, 950<<20, 7), mk(7, 10, 950<<20, 8))
	v = Classify(ws, Exit{}, th)
	if v.Class != Failed || v.FailedAt != 0.7 || v.FailedT != 8 {
		t.Fatalf("got %s at %v (t %v), want failed at 0.7 (t 8): %s", v.Class, v.FailedAt, v.FailedT, v.Why)
	}
	if v.LimiterOn != 6 {
		t.Fatalf("limiter on %v s, want 6", v.LimiterOn)
	}
	// Without the limiter advancing, the same heap is not a failure.
	for i := range ws {
		ws[i].LimiterLast, ws[i].LimiterCycles = 0, 100
	}
	if v = Classify(ws, Exit{}, th); v.Class == Failed {
		t.Fatalf("failed without the limiter: %s", v.Why)
	}
}

func TestClassifyExit(t *testing.T) {
	th := DefaultThresholds()
	w := win(3, 1, 1, 0.01, 0, 1)
	w.Progress = 0.6
	v := Classify([]Sample{w}, Exit{Died: true, Message: "signal: killed"}, th)
	if v.Class != Failed || v.FailedAt != 0.6 || !strings.Contains(v.Why, "signal: killed") {
		t.Fatalf("died: %+v", v)
	}
	v = Classify([]Sample{w}, Exit{RSSCap: true}, th)
	if v.Class != Failed || !strings.Contains(v.Why, "hard cap") {
		t.Fatalf("rss cap: %+v", v)
	}
	if v = Classify(nil, Exit{}, th); v.Class != Inconclusive {
		t.Fatalf("no windows: %s", v.Class)
	}
}

// TestClassifyInconclusive: a 0.7 s scenario (one window, inside the
// warm-up) and one with 2 windows after it are inconclusive, and say why;
// a third window makes a verdict; a failure condition still fails it.
func TestClassifyInconclusive(t *testing.T) {
	th := DefaultThresholds()
	short := win(0.7, 1, 1, 0.01, 0, 10)
	short.Dur = 0.7
	v := Classify([]Sample{short}, Exit{}, th)
	if v.Class != Inconclusive || v.Why != "0 windows after the 2s warm-up; at least 3 are needed" {
		t.Fatalf("0.7 s: %s (%s)", v.Class, v.Why)
	}
	ws := []Sample{win(1, 1, 1, 0.01, 0, 10), win(2, 1, 1, 0.01, 0, 10), win(3, 1, 1, 0.01, 0, 10)}
	v = Classify(ws, Exit{}, th)
	if v.Class != Inconclusive || !strings.Contains(v.Why, "2 windows after the 2s warm-up; at least 3") {
		t.Fatalf("2 after warm-up: %s (%s)", v.Class, v.Why)
	}
	if v.Class.Rank() != -1 {
		t.Fatalf("rank %d", v.Class.Rank())
	}
	if v = Classify(append(ws, win(4, 1, 1, 0.01, 0, 10)), Exit{}, th); v.Class != Healthy {
		t.Fatalf("3 after warm-up: %s (%s)", v.Class, v.Why)
	}
	if v = Classify([]Sample{short}, Exit{Died: true}, th); v.Class != Failed {
		t.Fatalf("died: %s", v.Class)
	}
}

// TestCauseOnEveryUnhealthyWindow: the classifier names a cause on every
// window that is not healthy, and none on a healthy one, in every recorded
// stream.
func TestCauseOnEveryUnhealthyWindow(t *testing.T) {
	files, _ := filepath.Glob("testdata/streams/*.jsonl")
	seen := map[Cause]bool{}
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ReadResults(in, DefaultThresholds())
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			for _, wh := range r.Verdict.Windows {
				if (wh.Class == Healthy) != (wh.Cause == CauseNone) {
					t.Errorf("%s: %s at %.1f s: class %s, cause %q", f, r.Scenario.Name, wh.T, wh.Class, wh.Cause)
				}
				seen[wh.Cause] = true
			}
		}
	}
	if !seen[CauseGCCPU] {
		t.Errorf("no gc_cpu window in the recorded streams: %v", seen)
	}
}

// TestCauseOfEachCondition: each unhealthy condition gives its own cause.
func TestCauseOfEachCondition(t *testing.T) {
	th := DefaultThresholds()
	win := func(gc, assist float64) Sample {
		return Sample{Type: SampleWindow, T: 1, Dur: 1, WinCycles: 1, CPUUsed: 100, GCCPU: gc, Assist: assist, MBps: 10}
	}
	over := win(1, 0)
	over.HeapGoal, over.HeapObjects = 10, 20
	for _, tc := range []struct {
		name string
		w    Sample
		want Cause
	}{
		{"healthy", win(1, 0), CauseNone},
		{"gc elevated", win(th.HealthyGC+1, 0), CauseGCCPU},
		{"gc degraded", win(th.DegradedGC+1, 0), CauseGCCPU},
		{"assist", win(th.HealthyAssist+1, th.HealthyAssist+1), CauseAssist},
		{"heap over goal", over, CauseHeapOverGoal},
	} {
		v := Classify([]Sample{tc.w}, Exit{}, th)
		if got := v.Windows[0].Cause; got != tc.want {
			t.Errorf("%s: cause %q, want %q (class %s, %s)", tc.name, got, tc.want, v.Windows[0].Class, v.Windows[0].Why)
		}
	}
}

// TestClassifyBlockedWriters: the stall scenario's writers blocked 96% of
// their time after the warm-up: degraded with cause blocked, though its
// collector was only elevated; under the threshold the collector's class
// stands; Classify (no writer count) leaves the rule out; and the class
// is a function of the figures alone, whatever order of Puts produced them.
func TestClassifyBlockedWriters(t *testing.T) {
	th := DefaultThresholds()
	th.Warmup = 2 * time.Second
	s := Scenario{Name: "stall/heap", Group: SetStall, Kind: "heap", Writers: 2}
	windows := func(blockedPerWindow float64) []Sample {
		var ws []Sample
		var blocked int64
		for i := 1; i <= 10; i++ {
			w := win(float64(i), 1, 1, 0.12, 0, 1) // GC 12%: elevated
			blocked += int64(blockedPerWindow * 1e9)
			w.BlockedNanos = blocked
			ws = append(ws, w)
		}
		return ws
	}
	v := ClassifyScenario(s, windows(2*0.96), Exit{}, th)
	if v.Class != Degraded || v.Cause != CauseBlocked || math.Abs(v.BlockedPct-96) > 0.01 ||
		!strings.Contains(v.Why, "writers blocked by backpressure 96% of their time") || !strings.Contains(v.Why, "collector: ") {
		t.Fatalf("blocked 96%%: %s (%s), blocked %.1f%%: %s", v.Class, v.Cause, v.BlockedPct, v.Why)
	}
	for _, w := range v.Windows {
		if w.Cause == CauseBlocked {
			t.Fatalf("a window took the scenario's cause: %+v", w)
		}
	}
	if v := ClassifyScenario(s, windows(2*0.30), Exit{}, th); v.Class != Elevated || v.Cause != CauseNone || math.Abs(v.BlockedPct-30) > 0.01 {
		t.Errorf("blocked 30%%: %s (%s) %.1f%%", v.Class, v.Cause, v.BlockedPct)
	}
	if v := Classify(windows(2*0.96), Exit{}, th); v.Class != Elevated || v.BlockedPct != 0 {
		t.Errorf("Classify without writers: %s %.1f%%", v.Class, v.BlockedPct)
	}
	// Blocked time of the warm-up's windows does not count: 10 s blocked
	// by the first window, none after.
	ws := windows(0)
	for i := range ws {
		ws[i].BlockedNanos = 10e9
	}
	if v := ClassifyScenario(s, ws, Exit{}, th); v.Class != Elevated || v.BlockedPct != 0 {
		t.Errorf("warm-up blocking counted: %s %.1f%%", v.Class, v.BlockedPct)
	}
	// A failed scenario stays failed.
	if v := ClassifyScenario(s, windows(2*0.96), Exit{RSSCap: true}, th); v.Class != Failed {
		t.Errorf("failed and blocked: %s", v.Class)
	}
}
