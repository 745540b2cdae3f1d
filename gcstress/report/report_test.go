package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
)

// dirSink is a Sink that writes plain files into a folder (gcstress's own
// Sink also writes atomically and keeps a manifest).
type dirSink string

func (d dirSink) Write(name string, write func(io.Writer) error) (err error) {
	f, err := os.Create(filepath.Join(string(d), name))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

// fixedSummary builds a Summary from the recorded streams with fixed
// machine fields, so reports are reproducible.
func fixedSummary(t *testing.T) *results.Summary {
	t.Helper()
	th := results.DefaultThresholds()
	th.Warmup = 500 * time.Millisecond
	sum := &results.Summary{Command: "gcstress -quick (recorded)", GoVersion: "go1.26.x", GOEXPERIMENT: "(default)", GOOS: "linux", GOARCH: "amd64",
		CPUs: 2, CPUModel: "test CPU", MemTotal: 24 << 30, Thresholds: th, Rules: th.String(), SpanNote: results.SpanNote, Out: "out",
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Finished: time.Date(2026, 1, 2, 3, 9, 5, 0, time.UTC)}
	for _, f := range []string{"matrix.jsonl", "failure.jsonl", "died.jsonl"} {
		in, err := os.Open(filepath.Join("..", "results", "testdata", "streams", f))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := results.ReadResults(in, th)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f == "died.jsonl" {
			rs[0].Scenario.Name = "died/heap"
		}
		sum.Results = append(sum.Results, rs...)
	}
	setCosts(sum.Results)
	return sum
}

// setCosts gives the recorded matrix scenarios (recorded before the end
// record had them) fixed footprint and cost figures, one set per kind, so
// the reports' cost tables are in the goldens.
func setCosts(rs []results.Result) {
	fig := map[string]struct {
		fp   results.Footprint
		cost results.Cost
	}{
		"heap": {results.Footprint{ObjectsPerEntry: 2.01, BytesPerEntry: 127.4, ScanPerEntry: 61.2, Entries: 412_000, EntriesFrom: results.EntriesEngine},
			results.Cost{GCCPUNsPerPut: 412, AssistNsPerPut: 96, CPUSPerGB: 41.5, GCCPUSPerGB: 14.2, AssistCPUSPerGB: 3.31}.WithCycles(31, 2e9)},
		"arena": {results.Footprint{ObjectsPerEntry: 0.0041, BytesPerEntry: 70.3, ScanPerEntry: 0.4, Entries: 398_000, EntriesFrom: results.EntriesEngine},
			results.Cost{GCCPUNsPerPut: 21, AssistNsPerPut: 2, CPUSPerGB: 12.8, GCCPUSPerGB: 0.72, AssistCPUSPerGB: 0.07}.WithCycles(3, 2e9)},
	}
	for i := range rs {
		f, ok := fig[rs[i].Scenario.Kind]
		if !ok || rs[i].End == nil || rs[i].Scenario.Group != results.SetMatrix {
			continue
		}
		rs[i].End.Footprint, rs[i].End.Cost = f.fp, f.cost
	}
}

func TestReportGolden(t *testing.T) {
	sum := fixedSummary(t)
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"report_table.golden.txt", func(b *bytes.Buffer) error { return WriteTable(b, sum) }},
		{"report_ycsb.golden.txt", func(b *bytes.Buffer) error { return WriteYCSB(b, sum) }},
		{"report_pe.golden.txt", func(b *bytes.Buffer) error { return WritePE(b, sum) }},
		{"report.golden.md", func(b *bytes.Buffer) error {
			return WriteMarkdown(b, sum, []string{"timeline-10B.png", "timeline-10B.svg", "throughput.png"})
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			testkit.CheckGolden(t, filepath.Join("testdata", tc.file), b.Bytes())
		})
	}
}

func TestChartsFromRecordedStreams(t *testing.T) {
	dir := t.TempDir()
	sum := fixedSummary(t)
	// Charts render slowly under -race: the failure group only (the
	// end-to-end test draws the matrix charts).
	var rs []results.Result
	for _, r := range sum.Results {
		if r.Scenario.Group != "matrix" {
			rs = append(rs, r)
		}
	}
	sum.Results = rs
	files, err := WriteCharts(dirSink(dir), sum)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"timeline-failure.png": true, "timeline-failure.svg": true}
	for _, f := range files {
		delete(want, f)
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing charts %v (got %v)", want, files)
	}
}

func TestCellText(t *testing.T) {
	r := results.Result{Verdict: results.Health{Class: results.Failed, FailedAt: 0.6, LimiterOn: 12}, Last: results.Sample{T: 10, Bytes: 10 << 20}}
	if got := view.CellText(r); got != "failed at 60% (limiter on 12 s)" {
		t.Fatalf("cell %q", got)
	}
	r = results.Result{Verdict: results.Health{Class: results.Healthy}, End: &results.Sample{T: 2, Bytes: 200e6, Reason: results.StopKeys}}
	if got := view.CellText(r); got != "100.0" {
		t.Fatalf("cell %q", got)
	}
}

// TestHTMLHasCostTable: report.html carries the cost table too.
func TestHTMLHasCostTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, fixedSummary(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GC cost per entry, per Put and per GB written", "Objects/entry", "GC CPU ns/Put", "CPU s/GB"} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
