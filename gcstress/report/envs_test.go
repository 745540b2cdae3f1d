package report

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcstress/results"
)

func envResult(kind, env string, gcPerGB float64, scan uint64) results.Result {
	s := results.Scenario{Name: kind + "/100B/env=" + env, Group: results.SetMatrix, Kind: kind, Value: 100, Keys: 1000, BuildEnv: env}
	e := &results.Sample{Type: results.SampleEnd, Keys: 1000, Bytes: 1e9, Cycles: 10, PauseP99us: 200, PeakRSS: 64 << 20, LatP99: 5000,
		MarkWallMs: 2, Shape: &gcmetrics.HeapShape{ScanHeap: scan, HeapLive: 1000, Objects: 10,
			Mix: []gcmetrics.SizeBand{{UpTo: 16, Objects: 2}, {UpTo: 128, Objects: 6}, {UpTo: 1 << 62, Objects: 2}}}}
	e.Cost = results.Cost{GCCPUSPerGB: gcPerGB, AssistCPUSPerGB: gcPerGB / 10}
	return results.Result{Scenario: s, End: e}
}

// Per kind, each environment against the first, one sentence; the heap's
// shape says when there is nothing to scan. Without environments there is
// no table and no sentence.
func TestEnvComparison(t *testing.T) {
	rs := []results.Result{
		envResult("heap", "greentea", 1.0, 900), envResult("heap", "classic", 1.5, 900),
		envResult("arena", "greentea", 0.010, 20), envResult("arena", "classic", 0.012, 20),
	}
	for i := 2; i < 4; i++ { // the arena kinds' shape: two 20 KB chunks
		rs[i].End.Shape.HeapLive, rs[i].End.Shape.Objects = 40000, 2
	}
	_, rows := envTable(rs)
	if len(rows) != 4 || rows[0][1] != "greentea" || rows[1][2] != "1.500" || rows[0][9] != "0.90" || rows[0][11] != "80%" {
		t.Fatalf("rows %q", rows)
	}
	cs := envConclusions(rs, noEscape)
	if len(cs) != 2 {
		t.Fatalf("conclusions %q, want one per kind", cs)
	}
	for i, want := range []string{"heap 100B: classic costs the collector more than greentea", "arena 100B: classic costs the collector about as much as greentea"} {
		if !strings.HasPrefix(cs[i], want) {
			t.Errorf("conclusion %q, want it to start %q", cs[i], want)
		}
	}
	if !strings.Contains(cs[0], "GC CPU 1.500 s/GB against 1.000 s/GB (+50%)") || !strings.Contains(cs[1], "next to nothing to scan or mark") {
		t.Errorf("figures or shape missing: %q", cs)
	}
	// Few scannable bytes in small objects (heap's 1 KB values): still marked.
	small := envConclusions([]results.Result{envResult("heap", "greentea", 0.4, 20), envResult("heap", "classic", 0.4, 20)}, noEscape)
	if len(small) != 1 || strings.Contains(small[0], "nothing to scan") || !strings.Contains(small[0], "its objects (100 B on average) are still marked") {
		t.Errorf("small noscan objects: %q", small)
	}
	for i := range rs {
		rs[i].Scenario.BuildEnv = ""
	}
	if _, rows := envTable(rs); len(rows) != 0 || len(envConclusions(rs, noEscape)) != 0 {
		t.Errorf("without environments: %q", rows)
	}
}
