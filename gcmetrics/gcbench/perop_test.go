package gcbench_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
// the collector many times what the pointer-free one does in gc-ns/op (23x
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
// gc-cycles/Mop prints as a plain number; the -ns/op units come out as
// -sec/op with time prefixes, like sec/op; gc-cycles/op, the deprecated
// unit, is the one with a tiny SI prefix.
func TestBenchstatPrintsPerOpUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool benchstat")
	}
	var sb strings.Builder
	sb.WriteString(gcbench.UnitLines())
	for i := range 6 {
		fmt.Fprintf(&sb, "BenchmarkHeavy 2000000 %d ns/op %d gc-ns/op %d assist-ns/op %d cpu-ns/op %.1f gc-cycles/Mop %g gc-cycles/op\n",
			60+i, 18+i, 4+i, 80+i, 8.0+0.1*float64(i), 8e-6)
		fmt.Fprintf(&sb, "BenchmarkFree 2000000 %d ns/op 0.%d gc-ns/op 0.0%d assist-ns/op %d cpu-ns/op %.1f gc-cycles/Mop %g gc-cycles/op\n",
			30+i, 3+i, 1+i, 35+i, 9.0+0.1*float64(i), 9e-6)
	}
	in := filepath.Join(t.TempDir(), "gcbench.txt")
	if err := os.WriteFile(in, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "benchstat", in).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool benchstat: %v\n%s", err, out)
	}
	tables := tablesByUnit(string(out))
	mop, ok := tables[gcbench.UnitCyclesPerMop]
	if !ok {
		t.Fatalf("no %s table in:\n%s", gcbench.UnitCyclesPerMop, out)
	}
	for _, l := range mop {
		if f := strings.Fields(l); len(f) < 2 || strings.ContainsAny(f[1], "µmnk") {
			t.Errorf("%s row with an SI prefix: %q", gcbench.UnitCyclesPerMop, l)
		}
	}
	for _, u := range []string{"gc-sec/op", "assist-sec/op", "cpu-sec/op"} {
		if _, ok := tables[u]; !ok {
			t.Errorf("no %s table (benchstat's name for %s) in:\n%s", u, strings.Replace(u, "sec", "ns", 1), out)
		}
	}
	if old := strings.Join(tables[gcbench.UnitCycles], "\n"); !strings.Contains(old, "µ") {
		t.Errorf("%s rows without the µ this unit is deprecated for:\n%s", gcbench.UnitCycles, old)
	}
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
