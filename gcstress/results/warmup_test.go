package results

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// run is a closed-loop run of secs seconds sampled every window seconds
// (each tick 1 ms late, one GC cycle per window, healthy), with the tail
// window the child streams when at least half a window is left.
func run(name string, secs, window float64) []Sample {
	var ws []Sample
	add := func(t, dur float64) {
		w := win(t, 1, dur, dur/100, 0, 50)
		w.Scenario, w.Dur, w.Progress = name, dur, t/secs
		ws = append(ws, w)
	}
	last := 0.0
	for t := window + 0.001; t <= secs; t += window {
		add(t, t-last)
		last = t
	}
	if secs-last >= window/2 {
		add(secs, secs-last)
	}
	return ws
}

// TestScenarioWarmupOverridesThresholds: a 2.6 s run (offheap's in the
// collapse scenario) is inconclusive with the run's 1 s windows after the
// 2 s warm-up (2 windows), but judged with 200 ms windows after its own
// 1 s warm-up, and a replay of its stream with the run's thresholds gives
// the same class. A 1.5 s run (a machine twice as fast) still leaves
// MinWindows windows after the 1 s warm-up, and none after 2 s.
func TestScenarioWarmupOverridesThresholds(t *testing.T) {
	th := DefaultThresholds()
	s := Scenario{Name: "collapse/arena", Group: SetCollapse, Kind: "arena", Keys: 2_000_000, Writers: 2,
		Window: 200 * time.Millisecond, Thresholds: th}
	if v := ClassifyScenario(s, run(s.Name, 2.6, 1), Exit{}, th); v.Class != Inconclusive || !strings.HasPrefix(v.Why, "2 windows after the 2s warm-up") {
		t.Fatalf("1 s windows, 2 s warm-up: %s (%s)", v.Class, v.Why)
	}
	fast := run(s.Name, 1.5, 0.2)
	if v := ClassifyScenario(s, fast, Exit{}, th); v.Class != Inconclusive || !strings.HasPrefix(v.Why, "0 windows after the 2s warm-up") {
		t.Fatalf("1.5 s, 200 ms windows, 2 s warm-up: %s (%s)", v.Class, v.Why)
	}
	ws := run(s.Name, 2.6, 0.2)
	s.Warmup = time.Second
	s.Thresholds = s.EffectiveThresholds(th)
	if s.Thresholds.Warmup != time.Second || s.EffectiveThresholds(th).HealthyGC != th.HealthyGC {
		t.Fatalf("effective thresholds %+v", s.Thresholds)
	}
	v := ClassifyScenario(s, ws, Exit{}, th)
	if v.Class != Healthy {
		t.Fatalf("with a 1 s warm-up: %s (%s)", v.Class, v.Why)
	}
	if v := ClassifyScenario(s, fast, Exit{}, th); v.Class != Healthy {
		t.Fatalf("1.5 s with a 1 s warm-up: %s (%s)", v.Class, v.Why)
	}
	if !strings.Contains(s.Describe(), ", window 200ms, warm-up 1s") {
		t.Fatalf("Describe: %s", s.Describe())
	}

	// summary.json's scenario carries the warm-up; the stream's start line
	// too, and ReadResults (with the run's 2 s thresholds) honours it.
	b, err := json.Marshal(Result{Scenario: s})
	if err != nil || !strings.Contains(string(b), `"window":200000000,"warmup":1000000000,`) {
		t.Fatalf("summary scenario: %v %s", err, b)
	}
	stream := append([]Sample{{Type: SampleStart, Scenario: s.Name, Spec: &s, Proto: StreamProto}}, ws...)
	stream = append(stream,
		Sample{Type: SampleEnd, Scenario: s.Name, T: 2.6, Keys: s.Keys, Progress: 1, Reason: StopKeys},
		Sample{Type: SampleExit, Scenario: s.Name, Exit: &Exit{}})
	rs := replayOne(t, stream, th)
	if got := rs[0].Verdict; got.Class != v.Class || got.Why != v.Why || rs[0].Scenario.Warmup != time.Second {
		t.Fatalf("replay: %s (%s), want %s (%s)", got.Class, got.Why, v.Class, v.Why)
	}
	// A scenario without its own warm-up keeps the thresholds'.
	s.Warmup = 0
	if got := ClassifyScenario(s, fast, Exit{}, th); got.Class != Inconclusive {
		t.Fatalf("no override: %s", got.Class)
	}
	if got := MinRunFor(Scenario{Warmup: time.Second}.EffectiveThresholds(th), 200*time.Millisecond); got != 1700*time.Millisecond {
		t.Fatalf("MinRunFor with a 1 s warm-up: %v", got)
	}
}
