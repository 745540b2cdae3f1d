package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// mixedRun is a mix b scenario whose reads were attributed: p99 2.1 ms in
// mark, 40 µs outside.
func mixedRun(kind string) results.Result {
	pct := 38.0
	e := &results.Sample{Type: results.SampleEnd, Keys: 1000, Reason: results.StopDuration,
		Ops: map[string]results.OpLatency{"read": {N: 950, Count: 9500, Misses: 3, ILatP50: 20e3, ILatP99: 60e3, ILatP999: 2e6, ILatMax: 3e6},
			"update": {N: 50, Count: 500, ILatP50: 25e3, ILatP99: 70e3}},
		ReadInMark:       &results.ReadLatency{N: 50, ILatP50: 300e3, ILatP99: 2.1e6, ILatP999: 3e6},
		ReadOutsideMark:  &results.ReadLatency{N: 900, ILatP50: 20e3, ILatP99: 40e3, ILatP999: 90e3},
		SlowReadsInGCPct: &pct,
		ReadAttribution:  &results.ReadAttribution{Source: results.AttributionTrace, Reads: 950, SlowInMarkPct: 30, Cycles: 4, TraceBytes: 1 << 20}}
	s := results.Scenario{Name: kind + "/100B/b", Group: results.SetMatrix, Kind: kind, Value: 100, Mix: "b", Rate: 1000}
	return results.Result{Scenario: s, End: e}
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
		"heap's readers (100B, mix b): p99 2.1ms during mark vs 40.0µs outside; 38% of the slow reads overlapped GC work.", "300.0µs/2.1ms/3.0ms"} {
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
