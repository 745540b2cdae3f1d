package compare

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/writegc/writegc/benchgate"

	"github.com/writegc/writegc/gcstress/results"
)

// traced writes a bench.txt of six rounds of heap/100B whose MMU at 10 ms
// is about mmu and whose slowest writes assisted about share% of the
// time, and reads it back.
func traced(t *testing.T, name string, mmu, share float64) *File {
	t.Helper()
	sum := &results.Summary{GOOS: "linux"}
	for r := 1; r <= 6; r++ {
		jit := 1 + float64(r%3)/200
		s := share * jit
		e := &results.Sample{Type: results.SampleEnd, Keys: 1000, MBps: 40, Reason: results.StopKeys,
			MMU:      []results.MMUPoint{{WindowNs: 1e6, Util: mmu * jit / 2}, {WindowNs: 1e7, Util: mmu * jit}, {WindowNs: 1e8, Util: mmu * jit}},
			OpAssist: map[string]results.OpAssist{results.AssistWrite: {Ops: 1000, SlowestPctWithAssistPct: &s}},
			GCTrace:  &results.GCTrace{Traced: true, Cycles: 5}}
		sum.Results = append(sum.Results, results.Result{End: e,
			Scenario: results.Scenario{Name: "heap/100B", Group: results.SetMatrix, Kind: "heap", Value: 100, Repeat: r}})
	}
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, sum); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	bf, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return bf
}

// The trace's units compare like any other through bench.txt: the MMU is
// better higher (its drop regresses when gated, its rise is better), the
// assist share of the slowest writes better lower, and a change below
// the MMU's floor (a point of utilization) is the same.
func TestTraceUnitsCompare(t *testing.T) {
	gate := Options{Gate: []Unit{MMU10ms, AssistShareSlowPct}}
	for _, c := range []struct {
		name             string
		oldMMU, newMMU   float64
		oldPct, newPct   float64
		wantMMU, wantPct benchgate.Verdict
	}{
		{"worse", 0.8, 0.4, 20, 80, regressed, regressed},
		{"better", 0.4, 0.8, 80, 20, better, better},
		{"floor", 0.010, 0.015, 20, 20, same, same},
	} {
		rep, err := Compare(traced(t, "old", c.oldMMU, c.oldPct), traced(t, "new", c.newMMU, c.newPct), gate)
		if err != nil {
			t.Fatal(err)
		}
		if r := row(t, rep, MMU10ms); r.Verdict != c.wantMMU || r.Better != Higher {
			t.Errorf("%s: mmu-10ms %v -> %v: %s (better %v), want %s", c.name, c.oldMMU, c.newMMU, Word(r.Verdict), r.Better, Word(c.wantMMU))
		}
		if r := row(t, rep, AssistShareSlowPct); r.Verdict != c.wantPct {
			t.Errorf("%s: assist share %v -> %v: %s, want %s", c.name, c.oldPct, c.newPct, Word(r.Verdict), Word(c.wantPct))
		}
		if r := row(t, rep, MMU1ms); r.Regressed() {
			t.Errorf("%s: mmu-1ms is not gated here but regressed", c.name)
		}
	}
}
