package report

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestCapacityEnvConclusions: per kind x value size searched in two build
// environments, one sentence: overlapping intervals read the same,
// disjoint ones higher or lower with the ratio, a contended figure as a
// bound; the kinds are compared within each environment, never across.
func TestCapacityEnvConclusions(t *testing.T) {
	capa := func(kind, env string, mbps, lo, hi float64) results.Capacity {
		return results.Capacity{Kind: kind, Value: 100, Env: env, SustainableMBps: mbps, SustainableLoMBps: lo, SustainableHiMBps: hi, Limit: results.LimitGCCPU}
	}
	cs := []results.Capacity{
		capa("heap", "greentea", 20, 17, 24), capa("heap", "classic", 22, 19, 26), // overlap
		capa("arena", "greentea", 60, 55, 66), capa("arena", "classic", 30, 27, 33), // disjoint
	}
	got := capacityEnvConclusions(cs, noEscape)
	if len(got) != 2 {
		t.Fatalf("%d sentences: %q", len(got), got)
	}
	if want := "Capacity of heap 100B: classic and greentea sustain the same rate (22 MB/s (19-26) against 20 MB/s (17-24); the intervals overlap)."; got[0] != want {
		t.Errorf("overlap:\n got %q\nwant %q", got[0], want)
	}
	if want := "Capacity of arena 100B: classic sustains a lower rate than greentea (30 MB/s (27-33) against 60 MB/s (55-66); 2.0x); classic is first limited by gc_cpu."; got[1] != want {
		t.Errorf("disjoint:\n got %q\nwant %q", got[1], want)
	}
	// Two intervals that touch nowhere but whose figures are within 10%
	// are still different: the intervals decide.
	near := capacityEnvConclusions([]results.Capacity{capa("heap", "a", 20, 19.5, 20.5), capa("heap", "b", 21, 20.8, 21.5)}, noEscape)
	if len(near) != 1 || !strings.Contains(near[0], "b sustains a higher rate than a") {
		t.Errorf("disjoint narrow intervals: %q", near)
	}
	cont := capa("heap", "b", 40, 40, 40)
	cont.Contended = true
	bound := capacityEnvConclusions([]results.Capacity{capa("heap", "a", 20, 17, 24), cont}, noEscape)
	if len(bound) != 1 || !strings.Contains(bound[0], "at least 2.0x") || !strings.Contains(bound[0], "≥ 40 MB/s (contended)") {
		t.Errorf("contended: %q", bound)
	}
	low := capa("heap", "b", 10, 10, 10)
	low.Contended = true
	bound = capacityEnvConclusions([]results.Capacity{capa("heap", "a", 20, 17, 24), low}, noEscape)
	if len(bound) != 1 || !strings.Contains(bound[0], "not compared: b's ≥ 10 MB/s (contended) is a lower bound") || strings.Contains(bound[0], "lower rate") {
		t.Errorf("the lower one contended: %q", bound)
	}
	if got := capacityEnvConclusions([]results.Capacity{capa("heap", "", 20, 17, 24), capa("arena", "", 20, 17, 24)}, noEscape); got != nil {
		t.Errorf("without environments: %q", got)
	}
	kinds := capacityConclusions(cs, noEscape)
	if len(kinds) != 2 || !strings.Contains(kinds[0], "in build environment greentea: arena sustains 60") ||
		!strings.Contains(kinds[1], "in build environment classic: arena sustains 30") {
		t.Errorf("kinds per environment: %q", kinds)
	}
	cs[1].Contended, cs[1].ContendedWhy = true, "busy"
	if n := capacityNotes(cs, results.Thresholds{}, noEscape); !strings.Contains(n, "heap 100B env=classic: contended: busy") {
		t.Errorf("notes do not name the environment:\n%s", n)
	}
	cs[1].Contended = false
	h, rows := capacityTable(cs)
	if h[0] != "Kind" || rows[0][0] != "heap env=greentea" || rows[1][0] != "heap env=classic" {
		t.Errorf("table rows do not name the environment: %v", rows)
	}
	// The chart: each environment's line labelled with it, the second
	// environment of a kind dashed in the kind's colour.
	for i := range cs {
		cs[i].Steps = []results.CapacityStep{{TargetMBps: 10, GCPct: 2, P99: 1e6, Healthy: true}, {TargetMBps: 40, GCPct: 30, P99: 2e6}}
	}
	gc := kneePanels(cs)[0]
	for _, want := range []string{"heap 100B env=greentea", "heap 100B env=classic"} {
		if _, ok := legendOf(gc, want); !ok {
			t.Errorf("no legend %q in %+v", want, gc.legend)
		}
	}
	if st := stylesOf([]string{"heap", "heap"}, false); st[0].colour != st[1].colour || st[1].dashes == nil {
		t.Errorf("a kind's second environment is not dashed in its colour: %+v", st)
	}
}
