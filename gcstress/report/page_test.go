package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
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
	sum.Capacity = []results.Capacity{{Kind: "arena", Value: 100, SustainableMBps: 42, FirstUnhealthyMBps: 60, ProbeMBps: 80}}
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

// TestChartsShortRuns: a failure-set run that ended within its first window
// (one window, or only its end record) still gets its line in the failure
// timeline, and the log-scale throughput chart copes with failed cells and
// with every cell failed.
func TestChartsShortRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("renders every chart of recorded short runs: make test-slow")
	}
	end := &results.Sample{Type: results.SampleEnd, T: 0.2, MBps: 3, HeapLive: 8 << 20, HeapGoal: 16 << 20, MemLimit: 64 << 20}
	win := results.Sample{Type: results.SampleWindow, T: 0.1, MBps: 4, HeapLive: 4 << 20, HeapGoal: 8 << 20}
	sum := &results.Summary{Results: []results.Result{
		{Scenario: results.Scenario{Name: "failure/heap", Group: "failure", Kind: "heap"}, Windows: []results.Sample{win}, End: end},
		{Scenario: results.Scenario{Name: "failure/arena", Group: "failure", Kind: "arena"}, End: end},
		{Scenario: results.Scenario{Name: "heap/10B", Group: "matrix", Kind: "heap", Value: 10}, Windows: []results.Sample{win}, End: end, Verdict: results.Health{Class: results.Failed}},
		{Scenario: results.Scenario{Name: "arena/10KB", Group: "matrix", Kind: "arena", Value: 10 << 10}, Windows: []results.Sample{win}, End: end},
	}}
	dir := t.TempDir()
	files, err := WriteCharts(dirSink(dir), sum)
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
		sum.Results[i].Verdict.Class = results.Failed
	}
	if _, err := WriteCharts(dirSink(t.TempDir()), sum); err != nil {
		t.Fatal(err)
	}
}
