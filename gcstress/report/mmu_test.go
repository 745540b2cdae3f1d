package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// tracedRun is a matrix run of kind at 100 B whose trace saw cycles GC
// cycles, with an MMU curve and its writes' assist figures.
func tracedRun(kind string, cycles int, mmu10 float64, a results.OpAssist) results.Result {
	e := &results.Sample{Type: results.SampleEnd, Keys: 1000, GCTrace: &results.GCTrace{Traced: true, Cycles: cycles, SpanNs: 2e9},
		OpAssist: map[string]results.OpAssist{results.AssistWrite: a}}
	for _, w := range []int64{1e5, 1e6, 1e7, 1e8, 1e9} {
		e.MMU = append(e.MMU, results.MMUPoint{WindowNs: w, Util: min(1, mmu10*float64(w)/1e7)})
	}
	e.MMUWorst = []results.WorstWindow{{StartNs: 1.5e9, WindowNs: 1e7, Util: mmu10}}
	return results.Result{Scenario: results.Scenario{Name: kind + "/100B", Group: results.SetMatrix, Kind: kind, Value: 100}, End: e}
}

func ptr[T any](v T) *T { return &v }

// The assist sentence says what the evidence supports: heap's slowest
// Puts mostly assisted and by how much at p99, arena's writers never, and
// a kind whose trace saw too few cycles or a run with too few ops is
// inconclusive with the reason; a run without a trace has no clause.
func TestAssistConclusion(t *testing.T) {
	heap := tracedRun("heap", 12, 0.42, results.OpAssist{Ops: 20000, Slowest: 200, OpsWithAssistPct: 4.2,
		SlowestPctWithAssistPct: ptr(83.0), AssistNsPerOp: 950, P99WithAssistNs: ptr(int64(2.3e6)), P99WithoutAssistNs: ptr(int64(0.4e6))})
	arena := tracedRun("arena", 3, 0.97, results.OpAssist{Ops: 20000, Slowest: 200, SlowestPctWithAssistPct: ptr(0.0), P99WithoutAssistNs: ptr(int64(1e5))})
	idle := tracedRun("offheap", 0, 1, results.OpAssist{Ops: 20000, Slowest: 200, SlowestPctWithAssistPct: ptr(0.0)})
	few := tracedRun("btree", 5, 0.5, results.OpAssist{Ops: 300, Slowest: 3, OpsWithAssistPct: 1, SlowestPctWithAssistPct: ptr(100.0)})
	untraced := results.Result{Scenario: results.Scenario{Name: "x/100B", Kind: "x", Value: 100, Group: results.SetMatrix},
		End: &results.Sample{GCTrace: &results.GCTrace{Note: "-read-trace off"}}}
	got := assistConclusions([]results.Result{heap, arena, idle, few, untraced}, noEscape)
	if len(got) != 1 {
		t.Fatalf("conclusions %q, want one sentence", got)
	}
	s := got[0]
	for _, want := range []string{
		"heap (100B): assists were in 83% of its slowest 1% of Puts (4.2% of all) and added 1.9ms at p99 (2.3ms with an assist, 400.0µs without)",
		"arena (100B): its Puts never assisted (20,000 timed over 3 cycles)",
		"offheap (100B): inconclusive (its trace saw 0 GC cycle(s), fewer than 2)",
		"btree (100B): inconclusive (300 timed Puts: too few for a slowest 1%)",
		"MMU at 10 ms: heap (100B) 0.42, arena (100B) 0.97",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "x (100B)") {
		t.Errorf("a run without a trace has a clause:\n%s", s)
	}
	if got := assistConclusions([]results.Result{untraced}, noEscape); got != nil {
		t.Errorf("no trace: %q, want no sentence", got)
	}
}

// The MMU chart draws one curve per traced scenario against the window in
// ms on a log axis; the web chart and the table carry the same runs, a
// run without a trace in none of them.
func TestMMUChart(t *testing.T) {
	heap := tracedRun("heap", 12, 0.42, results.OpAssist{Ops: 100, OpsWithAssistPct: 10})
	arena := tracedRun("arena", 3, 0.97, results.OpAssist{Ops: 100})
	untraced := results.Result{Scenario: results.Scenario{Name: "x/100B", Kind: "x", Group: results.SetMatrix}, End: &results.Sample{}}
	rs := []results.Result{heap, untraced, arena}
	sink := memSink{}
	files, err := writeMMUChart(sink, rs)
	if err != nil || len(files) != 2 || sink["mmu.png"] == nil || sink["mmu.svg"] == nil || !isChart("mmu.png") {
		t.Fatalf("files %v, err %v", files, err)
	}
	w := mmuWebChart(rs)
	if w == nil || len(w.Series) != 2 || len(w.WindowsMs) != 5 || w.WindowsMs[2] != 10 || *w.Series[0].Util[2] != 0.42 {
		t.Fatalf("web chart %+v", w)
	}
	_, rows := mmuTable(rs)
	if len(rows) != 2 || rows[0][2] != "0.420" || rows[0][4] != "0.42 at 1.50 s" {
		t.Errorf("table rows %q", rows)
	}
	var b bytes.Buffer
	writeMMUTable(&b, rs, "\nMMU: %s\n", noEscape)
	if out := b.String(); !strings.Contains(out, "MMU: From the runtime trace") || !strings.Contains(out, "| heap/100B") || strings.Contains(out, "x/100B") {
		t.Errorf("table:\n%s", out)
	}
	b.Reset()
	if writeMMUTable(&b, []results.Result{untraced}, "\nMMU: %s\n", noEscape); b.Len() != 0 {
		t.Errorf("no trace: table %q", b.String())
	}
	if files, err := writeMMUChart(sink, []results.Result{untraced}); err != nil || files != nil {
		t.Errorf("no trace: files %v, err %v", files, err)
	}
}
