package report

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// memSink is a Sink that keeps the files in memory.
type memSink map[string][]byte

func (m memSink) Write(name string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	m[name] = b.Bytes()
	return nil
}

func registrySummary() *results.Summary {
	th := results.DefaultThresholds()
	s := results.Scenario{Name: "arena/100B", Group: results.SetMatrix, Kind: "arena", Value: 100, Keys: 1000}
	w := results.Sample{Type: results.SampleWindow, Scenario: s.Name, T: 1, Dur: 1, Keys: 500, Bytes: 500 * 124, MBps: 0.06, WinCycles: 1, CPUUsed: 1, GCCPU: 0.01}
	end := results.Sample{Type: results.SampleEnd, Scenario: s.Name, T: 2, Keys: 1000, Bytes: 1000 * 124, Reason: results.StopKeys}
	r := results.Result{Scenario: s, Windows: []results.Sample{w}, End: &end, Last: end}
	r.Verdict = results.Classify(r.Windows, r.Exit, th)
	step := results.CapacityStep{Scenario: "capacity/arena/100B/1", TargetMBps: 1, AchievedMBps: 1, P99: 1e6, Healthy: true, Class: results.Healthy}
	return &results.Summary{Command: "gcstress", CPUs: 2, Thresholds: th, Rules: th.String(), SpanNote: results.SpanNote,
		Results: []results.Result{r}, Capacity: []results.Capacity{{Kind: "arena", Value: 100, SustainableMBps: 1, Steps: []results.CapacityStep{step}}}}
}

// TestRegistryOwnsWhatItWrites: every file a folder write produces is owned
// by a format of the registry (so -replace-out's list is the registry's),
// a rebuild rewrites the reports but not summary.json, and report.md links
// the charts written before it.
func TestRegistryOwnsWhatItWrites(t *testing.T) {
	sum := registrySummary()
	run, rebuild := memSink{}, memSink{}
	if err := WriteFolder(run, sum, AtRun); err != nil {
		t.Fatal(err)
	}
	if err := WriteFolder(rebuild, sum, AtRebuild); err != nil {
		t.Fatal(err)
	}
	for name := range run {
		if !Owns(name) {
			t.Errorf("%s written but owned by no format", name)
		}
	}
	for _, want := range []string{"summary.json", "bench.txt", "report.md", "report.html", "throughput.png", "capacity.svg"} {
		if _, ok := run[want]; !ok {
			t.Errorf("a run's folder lacks %s (has %d files)", want, len(run))
		}
	}
	if _, ok := rebuild["summary.json"]; ok {
		t.Error("a rebuild rewrote summary.json")
	}
	if len(rebuild) != len(run)-1 {
		t.Errorf("rebuild wrote %d files, the run %d (all but summary.json)", len(rebuild), len(run))
	}
	if !bytes.Contains(run["report.md"], []byte("throughput.png")) {
		t.Error("report.md does not link the charts written before it")
	}
	for _, name := range []string{"samples.jsonl", ".gcstress-manifest.json", "arena-100B", "notes.txt"} {
		if Owns(name) {
			t.Errorf("%s owned by a report format", name)
		}
	}
}

// TestTerminalFormats: the -format values come from the registry, and an
// unknown one is ErrUnknownFormat.
func TestTerminalFormats(t *testing.T) {
	if got, want := Formats(), []string{"table", "ycsb", "pe", "json"}; !slices.Equal(got, want) {
		t.Fatalf("Formats() = %v, want %v", got, want)
	}
	sum := registrySummary()
	for _, f := range append(Formats(), "") {
		var b bytes.Buffer
		if err := WriteTerminal(&b, f, sum); err != nil || b.Len() == 0 {
			t.Errorf("%q: %v, %d bytes", f, err, b.Len())
		}
	}
	if err := WriteTerminal(io.Discard, "report.md", sum); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("a file format as a terminal format: %v", err)
	}
}
