package results

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStreamStringsStable: the typed sample types and stop reasons keep the
// JSON strings samples.jsonl has always used.
func TestStreamStringsStable(t *testing.T) {
	for v, want := range map[any]string{SampleStart: "start", SampleWindow: "window", SampleFlight: "flight", SampleEnd: "end",
		StopKeys: "keys", StopDuration: "duration", StopInterrupted: "interrupted", StopRSSCap: "rss-cap", StopError: "error",
		StopFailed: "failed", StopHung: "hung", SampleExit: "exit", StopStalled: "stalled"} {
		b, _ := json.Marshal(v)
		if string(b) != `"`+want+`"` {
			t.Errorf("%v marshals to %s, want %q", v, b, want)
		}
	}
}

// TestSnakeCaseKeysAndLegacyDecoding: Exit and Thresholds are written with
// snake_case keys and read under both those and their former CamelCase keys.
func TestSnakeCaseKeysAndLegacyDecoding(t *testing.T) {
	b, _ := json.Marshal(Result{Exit: Exit{Died: true, RSSCap: true, Message: "m"}, Scenario: Scenario{Thresholds: DefaultThresholds()}})
	for _, want := range []string{`"exit":{"died":true,"rss_cap":true,"message":"m"}`, `"healthy_gc":10`, `"fail_windows":3`, `"warmup":2000000000`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil || r.Exit != (Exit{Died: true, RSSCap: true, Message: "m"}) || r.Scenario.Thresholds != DefaultThresholds() {
		t.Fatalf("round trip: %v %+v %+v", err, r.Exit, r.Scenario.Thresholds)
	}
	var e Exit
	if err := json.Unmarshal([]byte(`{"Died":false,"RSSCap":true,"Message":"old"}`), &e); err != nil || e != (Exit{RSSCap: true, Message: "old"}) {
		t.Fatalf("old exit: %v %+v", err, e)
	}
	if err := json.Unmarshal([]byte(`{"RSSCap":false,"rss_cap":true}`), &e); err != nil || !e.RSSCap {
		t.Fatalf("current key should win: %v %+v", err, e)
	}
	if err := json.Unmarshal([]byte(`{"rss_cap":"yes"}`), &e); err == nil {
		t.Fatal("a bad value decoded")
	}
	if err := json.Unmarshal([]byte(`[1]`), &e); err == nil {
		t.Fatal("an array decoded as an Exit")
	}
}

// TestReplayOldStreams: the recorded streams predate the snake_case
// thresholds and MB/s in 10^6 B/s; their start lines' thresholds decode and
// their MB/s are recomputed in the current unit.
func TestReplayOldStreams(t *testing.T) {
	in, err := os.Open(filepath.Join("testdata", "streams", "matrix.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	rs, err := ReadResults(in, DefaultThresholds())
	if err != nil || len(rs) == 0 {
		t.Fatal(err)
	}
	th := rs[0].Scenario.Thresholds
	if th.HealthyGC != 10 || th.FailWindows != 3 || th.Warmup != 500*time.Millisecond {
		t.Fatalf("recorded thresholds %+v", th)
	}
	for _, r := range rs {
		for _, w := range r.Windows {
			if want := float64(w.WinBytes) / 1e6 / w.Dur; w.Dur > 0 && math.Abs(w.MBps-want) > 1e-9*want {
				t.Fatalf("%s window at %v s: %v MB/s, want %v", r.Scenario.Name, w.T, w.MBps, want)
			}
		}
		if e := r.End; e != nil && e.MBps != MBps(e.Bytes, e.T) {
			t.Fatalf("%s end: %v MB/s", r.Scenario.Name, e.MBps)
		}
	}
	if MBps(3e6, 2) != 1.5 || MBps(1, 0) != 0 {
		t.Fatal("mbps")
	}
}

// TestInterruptedEndIsInterrupted: a child told to stop writes an end
// record of the part that ran (reason interrupted); its scenario is
// Interrupted, never healthy, even though its windows were healthy, and a
// replay of its stream says the same.
func TestInterruptedEndIsInterrupted(t *testing.T) {
	th := DefaultThresholds()
	th.Warmup = 0
	spec := Scenario{Name: "failure/shardmap", Group: SetFailure, Kind: "shardmap", Keys: 1000, Thresholds: th}
	stream := []Sample{{Type: SampleStart, Scenario: spec.Name, Spec: &spec, Proto: StreamProto}}
	for i := 1; i <= 5; i++ {
		w := win(float64(i), 1, 1, 0.01, 0, 10)
		w.Scenario, w.Progress = spec.Name, 0.23*float64(i)/5
		stream = append(stream, w)
	}
	stream = append(stream, Sample{Type: SampleEnd, Scenario: spec.Name, T: 5.1, Keys: 230, Progress: 0.23, Reason: StopInterrupted})
	e, ok := ExitOfEnd(&Sample{Reason: StopInterrupted})
	if !ok || !e.Interrupted || e.Died {
		t.Fatalf("ExitOfEnd(interrupted) = %+v, %v", e, ok)
	}
	rs := replayOne(t, stream, th)
	if v := rs[0].Verdict; v.Class != Interrupted || !strings.Contains(v.Why, "interrupted at 23%") {
		t.Fatalf("verdict %s: %s", v.Class, v.Why)
	}
}

// replayOne writes stream as samples.jsonl lines and reads it back with
// ReadResults under th, which must find one scenario.
func replayOne(t *testing.T, stream []Sample, th Thresholds) []Result {
	t.Helper()
	var b strings.Builder
	for _, s := range stream {
		line, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	rs, err := ReadResults(strings.NewReader(b.String()), th)
	if err != nil || len(rs) != 1 {
		t.Fatalf("replay: %v, %d results; want 1", err, len(rs))
	}
	return rs
}
