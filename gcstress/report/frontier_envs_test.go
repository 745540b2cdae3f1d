package report

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
)

// TestFrontierPerEnv: a frontier run under two build environments has a
// series per kind and environment: its rows, recommendation sentence,
// chart file and scatter colour name it, and the two never share one.
func TestFrontierPerEnv(t *testing.T) {
	pt := func(env string, gogc int) results.FrontierPoint {
		return results.FrontierPoint{Kind: "heap", Env: env, Value: 100, GOGC: gogc, GCCPUSPerGB: 1, PeakRSS: 100 << 20, Class: results.Healthy, Pareto: true}
	}
	sum := &results.Summary{BuildEnvs: []results.BuildEnv{{Name: "a"}, {Name: "b"}},
		FrontierRun: &results.FrontierRun{Container: 512 << 20, RateMBps: 10},
		Frontier:    []results.FrontierPoint{pt("a", 100), pt("b", 100), pt("a", 200), pt("b", 200)},
		Recommendation: []results.Recommendation{{Kind: "heap", Env: "a", GOGC: 200, Fits: true, Confirmed: true, Reason: "cheapest"},
			{Kind: "heap", Env: "b", GOGC: 100, Fits: true, Confirmed: true, Reason: "cheapest"}}}
	se := frontierKinds(sum.Frontier)
	if len(se) != 2 || se[0].stem() == se[1].stem() || se[1].stem() != "frontier-heap-env-b" || se[0].label() != "heap env=a" {
		t.Fatalf("series %+v", se)
	}
	_, rows := frontierTable(sum.Frontier)
	if rows[0][0] != "heap env=a" || rows[1][0] != "heap env=b" {
		t.Errorf("rows %v", rows)
	}
	got := frontierConclusions(sum, noEscape)
	if len(got) != 2 || !strings.HasPrefix(got[1], "For heap env=b at 10 MB") {
		t.Errorf("conclusions %q", got)
	}
	web := frontierWebData(sum)
	if len(web) != 2 || web[0].Color != view.KindColourHex("heap") || web[1].Color == web[0].Color || len(web[1].Points) != 2 || web[1].Recommended == nil {
		t.Errorf("scatter data %+v", web)
	}
	if p := frontierPanel(sum, se[1]); !strings.Contains(p.Title.Text, "heap env=b") {
		t.Errorf("chart title %q", p.Title.Text)
	}
	// The points are not the per-scenario environments' comparison: the
	// frontier's own tables compare them.
	var rs []results.Result
	for _, env := range []string{"a", "b"} {
		rs = append(rs, results.Result{Scenario: results.Scenario{Name: "frontier/heap/env=" + env, Group: results.SetFrontier, Kind: "heap", BuildEnv: env},
			End: &results.Sample{Type: results.SampleEnd, Bytes: 1e9}})
	}
	if _, rows := envTable(rs); len(rows) != 0 {
		t.Errorf("frontier points in the environments' table: %v", rows)
	}
}
