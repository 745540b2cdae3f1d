package callgrind

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// part is a dump of ir instructions ended by trigger fn.
func part(fn string, ir uint64) *Profile {
	return &Profile{Trigger: fn, Counts: Counts{evIr: ir}, Funcs: map[string]FuncCost{"f": {Self: ir, Incl: ir}}}
}

// The dumps of one process that ran a parent with two leaves (the root, the
// parent, then each leaf's probe and measured call) split into four calls,
// each leaf's timed part after its own ResetTimer.
func TestCallsOf(t *testing.T) {
	leafCall := func(setup, timed uint64) []*Profile {
		return []*Profile{part(triggerReset, 900), part(triggerCheck, 10), part(triggerTimer, 30),
			part(triggerTimer, setup), part(triggerCheck, timed)}
	}
	var parts []*Profile
	parts = append(parts, part(triggerReset, 5000), part(triggerTimer, 20))                        // root: no parent, no checkRaces at its start
	parts = append(parts, part(triggerReset, 700), part(triggerCheck, 10), part(triggerTimer, 30)) // the parent
	parts = append(parts, leafCall(1e6, 500)...)
	parts = append(parts, leafCall(1e6, 500+100*1000)...)
	parts = append(parts, leafCall(2e6, 800)...)
	parts = append(parts, leafCall(2e6, 800+250*1000)...)
	parts = append(parts, part(triggerCheck, 40), part(triggerCheck, 40)) // the parent's and the root's ends
	calls := callsOf(parts)
	if len(calls) != 4 {
		t.Fatalf("%d calls, want 4", len(calls))
	}
	ms, err := pairCalls(calls, []string{"B/x", "B/y"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if got := ms["B/x"].PerOp[UnitInstructions]; got != 100 {
		t.Errorf("B/x: %v instructions/op, want 100 (set-up and bookkeeping left out)", got)
	}
	if got := ms["B/y"].PerOp[UnitInstructions]; got != 250 {
		t.Errorf("B/y: %v instructions/op, want 250", got)
	}
	if got := ms["B/y"].Funcs["f"].Self; got != 250 {
		t.Errorf("B/y: f's rise %v, want 250", got)
	}

	if _, err := pairCalls(calls[:3], []string{"B/x", "B/y"}, 1000); !errors.Is(err, ErrNoSplit) {
		t.Errorf("three calls for two leaves: err = %v, want ErrNoSplit", err)
	}
	// A benchmark that resets its timer in one call and not in the other.
	odd := append(leafCall(1e6, 500), part(triggerReset, 900), part(triggerCheck, 10), part(triggerTimer, 30), part(triggerCheck, 5000))
	if _, err := pairCalls(callsOf(odd), []string{"B/x"}, 1000); !errors.Is(err, ErrNoSplit) {
		t.Errorf("calls with 2 and 1 ResetTimer parts: err = %v, want ErrNoSplit", err)
	}
	if calls := callsOf([]*Profile{part("", 5)}); len(calls) != 0 {
		t.Errorf("a run without the testing package's triggers: %d calls", len(calls))
	}
}

func TestParseProfileTrigger(t *testing.T) {
	in := "events: Ir\ndesc: Trigger: --dump-before=testing.(*B).ResetTimer\nfn=(1) f\n1 5\ntotals: 5\n"
	p, err := ParseProfile(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Trigger != triggerTimer {
		t.Errorf("trigger %q, want %q", p.Trigger, triggerTimer)
	}
	p, err = ParseProfile(strings.NewReader("events: Ir\ndesc: Trigger: Program termination\ntotals: 5\n"))
	if err != nil || p.Trigger != "" {
		t.Errorf("program termination: trigger %q, err %v; want none", p.Trigger, err)
	}
}

// TestMeasureLeaves runs real benchmarks under callgrind in one process:
// each leaf's figure agrees with its own two-process measurement within 1%,
// twice the work gives twice the instructions, set-up before ResetTimer
// stays out, and a b.Loop benchmark (one call) is ErrNoSplit.
func TestMeasureLeaves(t *testing.T) {
	r, bin := loopRunner(t)
	ctx := context.Background()
	leaves := []string{"BenchmarkWork/k=1000", "BenchmarkWork/k=2000", "BenchmarkSetup"}
	ms, err := r.MeasureLeaves(ctx, bin, "^(BenchmarkWork|BenchmarkSetup)$", leaves, 20000)
	if err != nil {
		t.Fatal(err)
	}
	for _, leaf := range []string{"BenchmarkWork/k=1000", "BenchmarkSetup"} {
		own, err := r.Measure(ctx, bin, leaf, 20000)
		if err != nil {
			t.Fatal(err)
		}
		got, want := ms[leaf].PerOp[UnitInstructions], own[UnitInstructions]
		t.Logf("%s: %.1f instructions/op in one process, %.1f in two", leaf, got, want)
		if math.Abs(got-want)/want > 0.01 {
			t.Errorf("%s: %.1f instructions/op in one process, %.1f in its own two: over 1%% apart", leaf, got, want)
		}
	}
	if r := ms["BenchmarkWork/k=2000"].PerOp[UnitInstructions] / ms["BenchmarkWork/k=1000"].PerOp[UnitInstructions]; r < 1.9 || r > 2.1 {
		t.Errorf("twice the work gave %.3fx the instructions", r)
	}
	if top := topFunc(ms["BenchmarkSetup"].Funcs); !strings.HasPrefix(top, "example.com/loop.") {
		t.Errorf("BenchmarkSetup: top function %q, want the loop's", top)
	}
	if _, err := r.MeasureLeaves(ctx, bin, "^BenchmarkLoop$", []string{"BenchmarkLoop"}, 2000); !errors.Is(err, ErrNoSplit) {
		t.Errorf("b.Loop: err = %v, want ErrNoSplit", err)
	}
	if _, err := r.MeasureLeaves(ctx, bin, "^BenchmarkWork$", []string{"BenchmarkWork/k=1000"}, 10); !errors.Is(err, ErrNoSplit) {
		t.Errorf("a pattern that runs a leaf not asked for: err = %v, want ErrNoSplit", err)
	}
}

func topFunc(funcs map[string]FuncPerOp) string {
	top, rise := "", 0.0
	for name, f := range funcs {
		if f.Self > rise {
			top, rise = name, f.Self
		}
	}
	return top
}

// A run that left more dump files than MaxParts is refused before any is
// read; a sane one reads in part order.
func TestReadPartsLimit(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []int{2, 10, 1} {
		body := "events: Ir\ndesc: Trigger: --dump-before=" + triggerCheck + "\ntotals: " + strconv.Itoa(k) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "out."+strconv.Itoa(k)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := readParts(dir, nil)
	if err != nil || len(parts) != 3 || parts[0].Counts[evIr] != 1 || parts[2].Counts[evIr] != 10 {
		t.Fatalf("parts %v, err %v: want out.1, out.2, out.10 in order", parts, err)
	}
	for k := 11; k <= MaxParts+10; k++ { // 3 + MaxParts files in all
		if err := os.WriteFile(filepath.Join(dir, "out."+strconv.Itoa(k)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := readParts(dir, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("%d files: err = %v, want ErrTooLarge", MaxParts+3, err)
	}
}
