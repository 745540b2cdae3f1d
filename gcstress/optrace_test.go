package gcstress

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// Every measured phase is traced: a short write-only run's end line (and
// summary.json's results[].end) has the trace's record and the writes'
// assist attribution, and no read entry; a mix b run has the reads' and
// the writes' apart.
func TestTraceFiguresInEnd(t *testing.T) {
	w := tinyScenario(t, "heap/100B", "heap", 20_000)
	b := tinyScenario(t, "heap/100B/b", "heap", 4000)
	b.Mix, b.KeyDist, b.ZipfTheta, b.Preload, b.ReadTrace = "b", "zipfian", 0.99, 1000, true
	for _, c := range []struct {
		s     Scenario
		kinds []string
	}{
		{w, []string{results.AssistWrite}},
		{b, []string{results.AssistWrite, results.AssistRead}},
	} {
		res, err := (&Runner{}).Run(context.Background(), c.s)
		if err != nil {
			t.Fatal(err)
		}
		e := res.End
		if e == nil || e.GCTrace == nil || !e.GCTrace.Traced {
			t.Fatalf("%s: end %+v stderr %s", c.s.Name, e, res.Stderr)
		}
		t.Logf("%s: mmu %+v worst %+v assist %+v trace %+v", c.s.Name, e.MMU, e.MMUWorst, e.OpAssist, e.GCTrace)
		if len(e.OpAssist) != len(c.kinds) {
			t.Errorf("%s: assist %+v, want %v", c.s.Name, e.OpAssist, c.kinds)
		}
		for _, k := range c.kinds {
			if a, ok := e.OpAssist[k]; !ok || a.Ops == 0 {
				t.Errorf("%s: assist[%s] = %+v (ok %v)", c.s.Name, k, a, ok)
			}
		}
		sum := results.Compact(&results.Summary{Results: []results.Result{res}})
		js, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{`"mmu":[{"window_ns":100000,"util":`, `"mmu_worst":[{"start_ns":`, `"assist":{"`, `"ops_with_assist_pct":`, `"assist_ns_per_op":`, `"gc_trace":{"traced":true`} {
			if !strings.Contains(string(js), f) {
				t.Errorf("%s: summary.json lacks %s", c.s.Name, f)
			}
		}
	}
}
