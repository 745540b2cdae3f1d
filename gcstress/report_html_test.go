package gcstress

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// htmlData extracts report.html's inlined JSON.
func htmlData(t *testing.T, page string) map[string]json.RawMessage {
	t.Helper()
	_, rest, ok := strings.Cut(page, `id="gcstress-data">`)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("no data script in the page")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("data: %v", err)
	}
	return m
}

// TestWriteHTMLSelfContained: report.html inlines uPlot, its own script and
// styles and the data; it references nothing outside itself.
func TestWriteHTMLSelfContained(t *testing.T) {
	sum := fixedSummary(t)
	sum.Capacity = []Capacity{{Kind: "arena", Value: 100, SustainableMBps: 42, FirstUnhealthyMBps: 60, ProbeMBps: 80}}
	var b bytes.Buffer
	if err := WriteHTML(&b, sum); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{" src=", "<link", "@import", "cdn"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must load nothing", bad)
		}
	}
	for _, want := range []string{"uPlot", "window.gcstress = {", "gcstressReport", "Random write throughput"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	m := htmlData(t, page)
	var scen []struct {
		W struct {
			T   []any    `json:"t"`
			Cls []string `json:"cls"`
		} `json:"w"`
	}
	if err := json.Unmarshal(m["scenarios"], &scen); err != nil || len(scen) != len(sum.Results) {
		t.Fatalf("scenarios: %v, %d of %d", err, len(scen), len(sum.Results))
	}
	if len(scen[0].W.T) == 0 || len(scen[0].W.T) != len(scen[0].W.Cls) {
		t.Fatalf("first scenario's windows: %+v", scen[0].W)
	}
	var tables []struct {
		Title string     `json:"title"`
		Rows  [][]string `json:"rows"`
	}
	if err := json.Unmarshal(m["tables"], &tables); err != nil || len(tables) < 3 || len(tables[0].Rows) == 0 {
		t.Fatalf("tables: %v %+v", err, tables)
	}
	titles := ""
	for _, tb := range tables {
		titles += tb.Title + "; "
	}
	if !strings.Contains(titles, "Capacity") {
		t.Errorf("no capacity table among %s", titles)
	}
}

// writeSamples concatenates the recorded streams into dir/samples.jsonl.
func writeSamples(t *testing.T, dir string) {
	t.Helper()
	var all []byte
	for _, f := range []string{"matrix.jsonl", "failure.jsonl"} {
		b, err := os.ReadFile(filepath.Join("results", "testdata", "streams", f))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.jsonl"), all, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildReports regenerates the reports from samples.jsonl alone, then
// with a summary.json whose metadata and accounts must reach the reports;
// summary.json itself is left as it was.
func TestRebuildReports(t *testing.T) {
	dir := t.TempDir()
	writeSamples(t, dir)
	sum, err := RebuildReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) == 0 {
		t.Fatal("no results replayed")
	}
	for _, f := range []string{"report.md", "report.html", "throughput.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	rec := *sum
	rec.Command = "gcstress -recorded-command"
	rec.Results = []Result{{Scenario: Scenario{Name: sum.Results[0].Scenario.Name}, Account: "ACCOUNT-TEXT", Exit: sum.Results[0].Exit}}
	b, _ := json.Marshal(&rec)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RebuildReports(dir); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"-recorded-command", "ACCOUNT-TEXT"} {
		if !strings.Contains(string(page), want) || !strings.Contains(string(md), want) {
			t.Errorf("reports lack %q from summary.json", want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "summary.json")); !bytes.Equal(after, b) {
		t.Error("summary.json was rewritten")
	}
}

func TestRebuildReportsNoSamples(t *testing.T) {
	if _, err := RebuildReports(t.TempDir()); !errors.Is(err, ErrUsage) {
		t.Fatalf("err %v, want ErrUsage", err)
	}
}

// TestChartsShortRuns: a failure-set run that ended within its first window
// (one window, or only its end record) still gets its line in the failure
// timeline, and the log-scale throughput chart copes with failed cells and
// with every cell failed.
func TestChartsShortRuns(t *testing.T) {
	end := &Sample{Type: SampleEnd, T: 0.2, MBps: 3, HeapLive: 8 << 20, HeapGoal: 16 << 20, MemLimit: 64 << 20}
	win := Sample{Type: SampleWindow, T: 0.1, MBps: 4, HeapLive: 4 << 20, HeapGoal: 8 << 20}
	sum := &Summary{Results: []Result{
		{Scenario: Scenario{Name: "failure/heap", Group: "failure", Kind: "heap"}, Windows: []Sample{win}, End: end},
		{Scenario: Scenario{Name: "failure/arena", Group: "failure", Kind: "arena"}, End: end},
		{Scenario: Scenario{Name: "heap/10B", Group: "matrix", Kind: "heap", Value: 10}, Windows: []Sample{win}, End: end, Verdict: Verdict{Class: Failed}},
		{Scenario: Scenario{Name: "arena/10KB", Group: "matrix", Kind: "arena", Value: 10 << 10}, Windows: []Sample{win}, End: end},
	}}
	dir := t.TempDir()
	files, err := WriteCharts(dir, sum)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(files, " "), "timeline-failure.png") || !strings.Contains(strings.Join(files, " "), "throughput.png") {
		t.Fatalf("charts %v", files)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "timeline-failure.svg"))
	if !strings.Contains(string(svg), "failure/arena") {
		t.Error("the run with only an end record has no legend entry")
	}
	for i := range sum.Results {
		sum.Results[i].Verdict.Class = Failed
	}
	if _, err := WriteCharts(t.TempDir(), sum); err != nil {
		t.Fatal(err)
	}
}
