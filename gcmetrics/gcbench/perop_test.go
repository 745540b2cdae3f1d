package gcbench_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchunit"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/gcmetrics/gcbench"
)

// The two benchmarks of TestPerOpUnitsRankPointerHeavy allocate the same
// 64 bytes per op over the same amount of live heap, so they run about the
// same number of GC cycles; only what a cycle has to trace differs.
const (
	liveObjects = 1_000_000
	objectSize  = 64
	perOpRuns   = "8000000x"
)

// pnode is a 64-byte object with three pointers.
//
//lint:ignore U1000 the fields give the object its size and pointer layout; only val is read
type pnode struct {
	next, prev *pnode
	val        *uint64
	pad        [5]uint64
}

var (
	anchor    uint64 // what every pnode's val points at
	sinkBytes []byte
	sinkNodes []*pnode
)

// pointerHeavy keeps liveObjects small pointerful objects alive, replacing
// one per op (the old one becomes garbage): every cycle traces all of them.
func pointerHeavy(b *testing.B) {
	live := make([]*pnode, liveObjects)
	for i := range live {
		live[i] = &pnode{val: &anchor}
	}
	m := gcbench.Start(b)
	b.ResetTimer()
	x := uint64(88172645463325252)
	for range b.N {
		x = xorshift(x)
		j := int(x % liveObjects)
		live[j] = &pnode{val: &anchor}
	}
	b.StopTimer()
	m.Stop()
	sinkNodes = live
}

// xorshift is one step of Marsaglia's 64-bit xorshift generator.
func xorshift(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}

// pointerFree keeps the same bytes alive as one []byte, which a cycle
// marks without scanning, and allocates a 64-byte pointer-free buffer per op.
func pointerFree(b *testing.B) {
	live := make([]byte, liveObjects*objectSize)
	m := gcbench.Start(b)
	b.ResetTimer()
	x := uint64(88172645463325252)
	for range b.N {
		x = xorshift(x)
		buf := make([]byte, objectSize)
		buf[0] = byte(x)
		sinkBytes = buf
		j := int(x%liveObjects) * objectSize
		copy(live[j:j+objectSize], buf)
	}
	b.StopTimer()
	m.Stop()
	sinkBytes = live[:1]
}

// TestPerOpUnitsRankPointerHeavy: per op, the pointer-heavy benchmark costs
// the collector many times what the pointer-free one does in gc-nsec/op (23x
// to 87x under -race beside the whole test suite on this project's 2-core
// machine; the test asks for 10x). The live heap is large (1M objects) and
// the run long (8M ops) so that the marking, which grows with what is live,
// dwarfs a cycle's fixed cost: with 200,000 objects and 4M ops the ratio
// fell to 6.3x under -race and load, with cycle counts of the same order, and neither
// trips the live-heap warning.
func TestPerOpUnitsRankPointerHeavy(t *testing.T) {
	if testing.Short() {
		t.Skip("8M ops a layout: make test-slow")
	}
	heavy := runFixed(t, perOpRuns, pointerHeavy)
	sinkNodes = nil
	free := runFixed(t, perOpRuns, pointerFree)
	sinkBytes = nil
	t.Logf("pointer-heavy N=%d %v", heavy.N, heavy.Extra)
	t.Logf("pointer-free  N=%d %v", free.N, free.Extra)
	for _, r := range []struct {
		name  string
		extra map[string]float64
	}{{"pointer-heavy", heavy.Extra}, {"pointer-free", free.Extra}} {
		if c := r.extra[gcbench.UnitCyclesPerMop]; c <= 0 {
			t.Fatalf("%s: %s = %v: no GC cycle in %s ops of %d bytes", r.name, gcbench.UnitCyclesPerMop, c, perOpRuns, objectSize)
		}
		if runtime.GOOS != "windows" && r.extra[gcbench.UnitCPUPerOp] <= 0 {
			t.Errorf("%s: %s = %v, want > 0", r.name, gcbench.UnitCPUPerOp, r.extra[gcbench.UnitCPUPerOp])
		}
	}
	h, f := heavy.Extra[gcbench.UnitGCPerOp], free.Extra[gcbench.UnitGCPerOp]
	if h <= 0 {
		t.Fatalf("pointer-heavy %s = %v, want > 0", gcbench.UnitGCPerOp, h)
	}
	t.Logf("%s: pointer-heavy %.3g, pointer-free %.3g, ratio %.1fx", gcbench.UnitGCPerOp, h, f, h/max(f, 1e-9))
	if h < 10*f {
		t.Errorf("%s: pointer-heavy %.3g is not 10x pointer-free %.3g", gcbench.UnitGCPerOp, h, f)
	}
	if ha, fa := heavy.Extra[gcbench.UnitAssistPerOp], free.Extra[gcbench.UnitAssistPerOp]; ha < fa {
		t.Errorf("%s: pointer-heavy %.3g below pointer-free %.3g", gcbench.UnitAssistPerOp, ha, fa)
	}
	for _, name := range []string{""} { // testing.Benchmark's B has no name
		if gcbench.Warned(name) {
			t.Errorf("live-heap warning for a benchmark with a fixed live heap")
		}
	}
}

// TestBenchstatPrintsPerOpUnits runs `go tool benchstat` on benchfmt text
// holding the per-op units at the sizes the two benchmarks above report:
// every unit keeps its name (none is rescaled to -sec), gc-cycles/Mop prints
// as a plain number; gc-cycles/op, the deprecated unit, is the one with a
// tiny SI prefix.
func TestBenchstatPrintsPerOpUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool benchstat")
	}
	var sb strings.Builder
	sb.WriteString(gcbench.UnitLines())
	for i := range 6 {
		fmt.Fprintf(&sb, "BenchmarkHeavy 2000000 %d ns/op %d %s %d %s %d %s %.1f gc-cycles/Mop %g gc-cycles/op\n",
			60+i, 18+i, gcbench.UnitGCPerOp, 4+i, gcbench.UnitAssistPerOp, 80+i, gcbench.UnitCPUPerOp, 8.0+0.1*float64(i), 8e-6)
		fmt.Fprintf(&sb, "BenchmarkFree 2000000 %d ns/op 0.%d %s 0.0%d %s %d %s %.1f gc-cycles/Mop %g gc-cycles/op\n",
			30+i, 3+i, gcbench.UnitGCPerOp, 1+i, gcbench.UnitAssistPerOp, 35+i, gcbench.UnitCPUPerOp, 9.0+0.1*float64(i), 9e-6)
	}
	tables := benchstatTables(t, sb.String())
	mop, ok := tables[gcbench.UnitCyclesPerMop]
	if !ok {
		t.Fatalf("no %s table in %v", gcbench.UnitCyclesPerMop, tables)
	}
	for _, l := range mop {
		if f := strings.Fields(l); len(f) < 2 || strings.ContainsAny(f[1], "µmnk") {
			t.Errorf("%s row with an SI prefix: %q", gcbench.UnitCyclesPerMop, l)
		}
	}
	for _, u := range []string{gcbench.UnitGCPerOp, gcbench.UnitAssistPerOp, gcbench.UnitCPUPerOp} {
		if _, ok := tables[u]; !ok {
			t.Errorf("no %s table in %v", u, tables)
		}
	}
	if old := strings.Join(tables[gcbench.UnitCycles], "\n"); !strings.Contains(old, "µ") {
		t.Errorf("%s rows without the µ this unit is deprecated for:\n%s", gcbench.UnitCycles, old)
	}
}

// TestBenchstatOneTablePerUnit: a benchmark whose GC figures are all zero
// (no cycle ran) shares each unit's table with one whose figures are not.
// With -ns units benchstat rescaled the non-zero values to -sec and kept
// the zeros as written, splitting assist-ns/op from assist-sec/op.
func TestBenchstatOneTablePerUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool benchstat")
	}
	var sb strings.Builder
	sb.WriteString(gcbench.UnitLines())
	for i := range 6 {
		fmt.Fprintf(&sb, "BenchmarkGC 1000 %d ns/op %d %s %d %s %d %s\n", 500+i,
			120+i, gcbench.UnitGCPerOp, 30+i, gcbench.UnitAssistPerOp, 15000+i, gcbench.UnitPauseP99)
		fmt.Fprintf(&sb, "BenchmarkNoGC 1000 %d ns/op 0 %s 0 %s 0 %s\n", 500+i,
			gcbench.UnitGCPerOp, gcbench.UnitAssistPerOp, gcbench.UnitPauseP99)
	}
	tables := benchstatTables(t, sb.String())
	for _, u := range []string{gcbench.UnitGCPerOp, gcbench.UnitAssistPerOp, gcbench.UnitPauseP99} {
		var names []string
		for _, row := range tables[u] {
			names = append(names, strings.Fields(row)[0])
		}
		if !slices.Contains(names, "GC") || !slices.Contains(names, "NoGC") {
			t.Errorf("%s table rows %q, want both benchmarks in it", u, tables[u])
		}
	}
	for u := range tables {
		if strings.Contains(u, "-sec") {
			t.Errorf("a rescaled table %s beside the others: %v", u, tables)
		}
	}
}

// TestUnitsNotRescaled: benchstat's reader (benchunit.Tidy) leaves every
// unit Stop reports as it is, whatever its value: a unit it rescaled would
// split a value of 0 (kept as written) from the others.
func TestUnitsNotRescaled(t *testing.T) {
	for _, u := range gcbench.AllUnits() {
		for _, v := range []float64{0, 1, 1234.5} {
			if got, gu := benchunit.Tidy(v, u); gu != u || got != v {
				t.Errorf("benchunit.Tidy(%g, %q) = %g %q, want it unchanged", v, u, got, gu)
			}
		}
	}
}

// benchstatTables runs `go tool benchstat` on text and returns its tables.
func benchstatTables(t *testing.T, text string) map[string][]string {
	t.Helper()
	in := filepath.Join(t.TempDir(), "gcbench.txt")
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "benchstat", in).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool benchstat: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	return tablesByUnit(string(out))
}

// tablesByUnit splits benchstat's text output into its tables' benchmark
// rows, keyed by the unit in each table's header.
func tablesByUnit(out string) map[string][]string {
	tables := map[string][]string{}
	var unit string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(strings.ReplaceAll(l, "│", " "))
		switch {
		case len(f) == 0:
			unit = ""
		case strings.HasPrefix(l, " ") && strings.Contains(l, "│") && len(f) == 1 && !strings.Contains(f[0], "."):
			unit = f[0]
		case unit != "" && !strings.HasPrefix(l, " "):
			tables[unit] = append(tables[unit], l)
		}
	}
	return tables
}

// TestUnitsLowerByDefault: benchgate reads the nanosecond units as
// lower-is-better even without the Unit lines (a user's own result file),
// as it read them when they were named -ns.
func TestUnitsLowerByDefault(t *testing.T) {
	for _, u := range []string{gcbench.UnitPauseP99, gcbench.UnitGCPerOp, gcbench.UnitAssistPerOp, gcbench.UnitCPUPerOp} {
		if d := benchgate.DirectionOf(u, nil); d != benchgate.LowerIsBetter {
			t.Errorf("benchgate.DirectionOf(%q) = %v, want lower is better", u, d)
		}
	}
}
