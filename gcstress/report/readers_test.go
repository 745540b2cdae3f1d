package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// mixedRun is a mix b scenario whose reads were attributed and tested:
// p50 300 µs in mark vs 20 µs outside (significant), p99 2.1 ms vs 40 µs
// (not significant: 50 reads in mark), over 10 s and 4 GC cycles.
func mixedRun(kind string) results.Result {
	pct := 38.0
	e := &results.Sample{Type: results.SampleEnd, T: 10, Keys: 1000, MBps: 1.16, Reason: results.StopDuration,
		Ops: map[string]results.OpLatency{"read": {N: 950, Count: 9500, Misses: 3, ILatP50: 20e3, ILatP99: 60e3, ILatP999: 2e6, ILatMax: 3e6},
			"update": {N: 50, Count: 500, ILatP50: 25e3, ILatP99: 70e3}},
		ReadInMark:       &results.ReadLatency{N: 50, ILatP50: 300e3, ILatP99: 2.1e6, ILatP999: 3e6},
		ReadOutsideMark:  &results.ReadLatency{N: 900, ILatP50: 20e3, ILatP99: 40e3, ILatP999: 90e3},
		SlowReadsInGCPct: &pct,
		ReadAttribution: &results.ReadAttribution{Source: results.AttributionTrace, Reads: 950, SlowInMarkPct: 30, AllInMarkPct: 5.3, Cycles: 4, TraceBytes: 1 << 20,
			Test: &results.MarkTest{P50P: 0.0004, P99P: 0.3}}}
	s := results.Scenario{Name: kind + "/100B/b", Group: results.SetMatrix, Kind: kind, Value: 100, Mix: "b", Rate: 1000}
	return results.Result{Scenario: s, End: e, Verdict: results.Health{Class: results.Healthy}}
}

// noCycleRun is mixedRun whose measured phase completed no GC cycle: its
// verdict as ClassifyScenario gives it, no read in mark, and the child's
// vacuous 0% of slow reads in GC.
func noCycleRun(kind string) results.Result {
	r := mixedRun(kind)
	zero := 0.0
	r.End.SlowReadsInGCPct = &zero
	r.End.ReadInMark = &results.ReadLatency{}
	r.End.ReadAttribution.Cycles, r.End.ReadAttribution.Test = 0, nil
	var ws []results.Sample
	for i := range 5 {
		ws = append(ws, results.Sample{Type: results.SampleWindow, T: float64(i + 1), Dur: 1, CPUUsed: 1})
	}
	r.Verdict = results.ClassifyScenario(r.Scenario, ws, results.Exit{}, results.DefaultThresholds())
	return r
}

// The readers' section: a heading per mix, both tables, and the
// conclusion sentence, in report.md and in the terminal report; nothing
// for a write-only run.
func TestReaderTables(t *testing.T) {
	sum := &results.Summary{Results: []results.Result{mixedRun("heap"), mixedRun("arena")}}
	var md bytes.Buffer
	writeReaderTables(&md, sum.Results, true, func(s string) string { return s })
	out := md.String()
	for _, want := range []string{"## Readers under GC: mix b (95% read, 5% update)", "| heap/100B/b ", "| read ", "9,500",
		"heap's readers (100B, mix b): p50 300.0µs during mark vs 20.0µs outside (15x, p<0.001); p99 not distinguishable (2.1ms vs 40.0µs, p=0.3); " +
			"n=50 in mark, 900 outside; 38% of the slow reads overlapped GC work (5.3% of all reads overlapped mark).",
		"300.0µs/2.1ms/3.0ms", "| 15x, p<0.001 | ~, p=0.3 ",
		// the throughput table: 10,000 ops in 10 s, 9,500 of them reads
		"| Ops/s | Reads/s | Writes/s |", "| 1,000 | 950     | 50       | 1.16", "| healthy |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report.md section lacks %q:\n%s", want, out)
		}
	}
	if cs := readerConclusions(sum.Results, noEscape); len(cs) != 2 {
		t.Errorf("conclusions %v", cs)
	}
	if p := readerPlot(mixGroups(sum.Results)[0]); p == nil || len(p.series) != 4 {
		t.Errorf("chart: %+v", p)
	}
	var none bytes.Buffer
	writeReaderTables(&none, []results.Result{{Scenario: results.Scenario{Kind: "heap", Group: results.SetMatrix}, End: &results.Sample{}}}, false, noEscape)
	if none.Len() != 0 {
		t.Errorf("write-only run got a readers section: %s", none.String())
	}
}

// A mix whose measured phase completed no GC cycle: inconclusive (no GC
// cycle) in its throughput table, n/a for every in-mark figure in its
// mark table and sentence (never "0% of the slow reads overlapped GC"),
// and no in-mark point on its charts.
func TestReadersNoCycle(t *testing.T) {
	rs := []results.Result{noCycleRun("heap")}
	var md bytes.Buffer
	writeReaderTables(&md, rs, true, noEscape)
	out := md.String()
	for _, want := range []string{"| inconclusive (no GC cycle) |", "| n/a (no GC cycle) | n/a ",
		"heap's readers (100B, mix b): inconclusive (no GC cycle): no GC cycle completed in the measured phase, fewer than the 2 " +
			"a verdict on the collector and on reads during mark needs (run longer, at a higher rate, or under a lower GOGC); " +
			"in-mark figures n/a; p99 of all reads 40.0µs."} {
		if !strings.Contains(out, want) {
			t.Errorf("section lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "of the slow reads overlapped") || strings.Contains(out, "| 0% ") {
		t.Errorf("section states an in-mark share for a run without GC cycles:\n%s", out)
	}
	if p := readerPlot(mixGroups(rs)[0]); p == nil || len(p.series) != 2 || strings.Contains(p.series[0].name+p.series[1].name, "in mark") {
		t.Fatalf("chart: %+v; want the outside series only", p)
	}
	for _, c := range readerWebCharts(rs) {
		for i, s := range c.Series {
			if i%2 == 0 && s.NS[0] != 0 {
				t.Errorf("web chart series %s has an in-mark point %d", s.Label, s.NS[0])
			}
		}
	}
}

// Reads without a test: a run from before the test says "untested" with
// its figures; one with too few reads in mark says so instead of a
// comparison.
func TestReadersUntested(t *testing.T) {
	old := mixedRun("heap")
	old.End.ReadAttribution.Test = nil
	few := mixedRun("arena")
	few.End.ReadAttribution.Test = nil
	few.End.ReadInMark.N = 7
	rs := []results.Result{old, few}
	cs := readerConclusions(rs, noEscape)
	if len(cs) != 2 || !strings.Contains(cs[0], "p50 300.0µs during mark vs 20.0µs outside, p99 2.1ms vs 40.0µs (untested: recorded before the test)") ||
		!strings.Contains(cs[1], "only 7 reads overlapped a mark phase (of 907), too few to compare") {
		t.Errorf("sentences %q", cs)
	}
	if _, rows := markTable(mixGroups(rs)[0]); rows[0][4] != "untested" || rows[0][5] != "untested" {
		t.Errorf("mark table row %q", rows[0])
	}
}

// A mix's report is titled and labelled as a mix: its throughput is in
// ops/s with reads and writes, never the write-throughput table ("Random
// write throughput", "MB/s" per kind); a write-only run keeps that table.
func TestMixTitledAsMix(t *testing.T) {
	mixSum := &results.Summary{Results: []results.Result{mixedRun("heap"), noCycleRun("arena")}}
	var tb, md bytes.Buffer
	if err := WriteTable(&tb, mixSum); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, mixSum, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": tb.String(), "md": md.String()} {
		if strings.Contains(out, "Random write throughput") || strings.Contains(out, "heap MB/s") {
			t.Errorf("%s: a mix under the write-throughput table:\n%s", name, out)
		}
		if !strings.Contains(out, "| Ops/s | Reads/s | Writes/s |") {
			t.Errorf("%s: no mix throughput table:\n%s", name, out)
		}
		if strings.Contains(out, "Target MB/s") {
			t.Errorf("%s: a mix in the Puts' open-loop table:\n%s", name, out)
		}
	}
	if d := newReportData(mixSum); slices.ContainsFunc(d.Tables, func(w webTable) bool { return w.Title == "Random write throughput" && len(w.Rows) > 0 }) ||
		!slices.ContainsFunc(d.Tables, func(w webTable) bool { return strings.HasPrefix(w.Title, "Throughput of mix b") && len(w.Rows) == 2 }) {
		t.Errorf("report.html tables: %+v", d.Tables)
	}
	w := mixedRun("heap")
	w.Scenario.Mix, w.Scenario.Name = "", "heap/100B"
	var wt bytes.Buffer
	if err := WriteTable(&wt, &results.Summary{Results: []results.Result{w}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wt.String(), "Random write throughput") {
		t.Errorf("write-only run lost its throughput table:\n%s", wt.String())
	}
}
