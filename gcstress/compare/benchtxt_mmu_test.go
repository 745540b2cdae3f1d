package compare

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/writegc/writegc/gcstress/results"
)

// lineUnits reads out's result lines and returns each unit on them with
// its value, and the reader (for the Unit lines).
func lineUnits(t *testing.T, out []byte) (map[string]float64, *benchfmt.Reader) {
	t.Helper()
	rd := benchfmt.NewReader(bytes.NewReader(out), FileName)
	got := map[string]float64{}
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok {
			for _, v := range res.Values {
				if v.OrigUnit == "" { // benchfmt keeps the original only when it tidied it
					v.OrigUnit, v.OrigValue = v.Unit, v.Value
				}
				got[v.OrigUnit] = v.OrigValue
			}
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return got, rd
}

// A traced run's line carries mmu-1ms, mmu-10ms and mmu-100ms (declared
// better=higher) and the assist shares of its slowest writes and reads
// (better=lower); a run without a trace has none of them, and its file
// declares none; a trace with no GC cycle gives the MMU but no assist
// share (a vacuous 0%).
func TestTraceUnits(t *testing.T) {
	r := run(results.SetMatrix, "heap", 100, 0, 10, 2)
	for _, w := range []int64{1e6, 1e7, 1e8, 1e9} {
		r.End.MMU = append(r.End.MMU, results.MMUPoint{WindowNs: w, Util: float64(w) / 2e9})
	}
	w, rd := 83.0, 40.0
	r.End.OpAssist = map[string]results.OpAssist{results.AssistWrite: {Ops: 1000, SlowestPctWithAssistPct: &w},
		results.AssistRead: {Ops: 1000, SlowestPctWithAssistPct: &rd}}
	r.End.GCTrace = &results.GCTrace{Traced: true, Cycles: 3}
	got, reader := lineUnits(t, write(t, &results.Summary{GOOS: "linux", Results: []results.Result{r}}))
	want := map[Unit]float64{MMU1ms: 0.0005, MMU10ms: 0.005, MMU100ms: 0.05, AssistShareSlowPct: 83, ReadAssistShareSlowPct: 40}
	for u, v := range want {
		if got[string(u)] != v || reader.Units().GetBetter(string(u)) != int(u.Better()) {
			t.Errorf("unit %s: %v on the line (want %v), declared better %d (want %d)", u, got[string(u)], v, reader.Units().GetBetter(string(u)), u.Better())
		}
	}
	if MMU10ms.Better() != Higher || AssistShareSlowPct.Better() != Lower {
		t.Errorf("directions: mmu %v, assist share %v", MMU10ms.Better(), AssistShareSlowPct.Better())
	}
	r.End.GCTrace.Cycles = 0
	got, _ = lineUnits(t, write(t, &results.Summary{GOOS: "linux", Results: []results.Result{r}}))
	if _, ok := got[string(AssistShareSlowPct)]; ok || got[string(MMU10ms)] == 0 {
		t.Errorf("no GC cycle: want the MMU and no assist share, got %v", got)
	}
	r.End.MMU, r.End.OpAssist, r.End.GCTrace = nil, nil, &results.GCTrace{Note: "-read-trace off"}
	out := write(t, &results.Summary{GOOS: "linux", Results: []results.Result{r}})
	for u := range want {
		if strings.Contains(string(out), string(u)) {
			t.Errorf("no trace: %s in the file:\n%s", u, out)
		}
	}
}
