package callgrind

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChain: nested ranges give the innermost inlined function first, a
// range equal to its parent's nests by depth, and an address outside every
// range has none.
func TestChain(t *testing.T) {
	in := buildInlines([]inlRange{
		{lo: 0x200, hi: 0x210, depth: 1, name: "b"},
		{lo: 0x100, hi: 0x180, depth: 1, name: "a"},
		{lo: 0x110, hi: 0x120, depth: 2, name: "a.inner"},
		{lo: 0x110, hi: 0x120, depth: 3, name: "a.innermost"},
		{lo: 0x140, hi: 0x150, depth: 2, name: "a.other"},
		{lo: 0x160, hi: 0x170, depth: 2, name: "a.inner"}, // a second range of one call
	})
	for addr, want := range map[uint64][]string{
		0x0ff: nil,
		0x100: {"a"},
		0x115: {"a.innermost", "a.inner", "a"},
		0x120: {"a"},
		0x14f: {"a.other", "a"},
		0x165: {"a.inner", "a"},
		0x17f: {"a"},
		0x180: nil,
		0x205: {"b"},
		0x210: nil,
	} {
		if got := in.Chain(addr, nil); !slices.Equal(got, want) {
			t.Errorf("Chain(%#x) = %q, want %q", addr, got, want)
		}
	}
	var none *Inlines
	if got := none.Chain(0x100, nil); len(got) != 0 {
		t.Errorf("nil Inlines: %q", got)
	}
}

// inlinedOut is an output with instruction positions: outer's code holds
// an inlined call of inl at 0x1010-0x1020 (relative positions, a call from
// inside it whose cost line is relative to the line before it and does not
// move the position, a step back with "-").
const inlinedOut = `positions: instr line
events: Ir
fn=(1) outer
0x1000 10 5
+16 11 7
cfn=(2) callee
calls=1 0x2000 30
+4 * 100
+2 * 3
+32 12 1
-40 10 2
fn=(2)
0x2000 30 100
totals: 118
`

// TestParseProfileInlined: costs at addresses of an inlined call are the
// inlined function's own, in the inclusive counts of it and of the function
// it was inlined into, and no longer in that function's own.
func TestParseProfileInlined(t *testing.T) {
	in := buildInlines([]inlRange{{lo: 0x1010, hi: 0x1020, depth: 1, name: "inl"}})
	p, err := ParseProfileInlined(strings.NewReader(inlinedOut), in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]FuncCost{
		// 0x1000: 5, 0x1032: 1, 0x100a: 2 are outer's own.
		"outer": {Self: 5 + 1 + 2, Incl: 5 + 7 + 100 + 3 + 1 + 2},
		// 0x1010: 7, the call at 0x1014 (100), 0x1012 (+2 from 0x1010): 3.
		"inl":    {Self: 7 + 3, Incl: 7 + 100 + 3},
		"callee": {Self: 100, Incl: 100},
	}
	for name, w := range want {
		if got := p.Funcs[name]; got != w {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
	// Without inline information the same output is read as before.
	p, err = ParseProfile(strings.NewReader(inlinedOut))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Funcs["outer"]; got.Self != 5+7+3+1+2 || len(p.Funcs) != 2 {
		t.Errorf("without inlines: %+v", p.Funcs)
	}
	if _, err := ParseProfileInlined(strings.NewReader("positions: instr line\nevents: Ir\nfn=f\n+zz 1 5\ntotals: 5\n"), in); !errors.Is(err, ErrBadFormat) {
		t.Errorf("bad position: %v, want ErrBadFormat", err)
	}
}

// inlSrc is a package whose Checksum the compiler inlines into the
// benchmark that calls it.
const inlSrc = `package inl

// Checksum is small enough to be inlined.
func Checksum(b []byte) uint32 {
	var s uint32
	for _, c := range b {
		s = s*31 + uint32(c)
	}
	return s
}
`

const inlTestSrc = `package inl

import "testing"

var sink uint32

func BenchmarkChecksum(b *testing.B) {
	data := make([]byte, 1024)
	b.ResetTimer()
	for range b.N {
		sink += Checksum(data)
	}
}
`

// buildInl compiles inlSrc's test binary.
func buildInl(t *testing.T) (bin, dir string) {
	t.Helper()
	dir = t.TempDir()
	for name, src := range map[string]string{"go.mod": "module example.com/inl\n\ngo 1.26\n", "inl.go": inlSrc, "inl_test.go": inlTestSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin = filepath.Join(dir, "inl.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin, dir
}

// TestReadInlines: a Go test binary's DWARF names Checksum inlined into
// BenchmarkChecksum; a file that is not ELF is ErrNoInlines.
func TestReadInlines(t *testing.T) {
	bin, dir := buildInl(t)
	in, err := ReadInlines(bin)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	var walk func(ns []inlNode)
	walk = func(ns []inlNode) {
		for _, n := range ns {
			found = found || n.name == "example.com/inl.Checksum"
			walk(n.kids)
		}
	}
	walk(in.roots)
	if !found {
		t.Errorf("no inlined call of example.com/inl.Checksum among %d ranges", len(in.roots))
	}
	if _, err := ReadInlines(filepath.Join(dir, "inl.go")); !errors.Is(err, ErrNoInlines) {
		t.Errorf("a Go source file: %v, want ErrNoInlines", err)
	}
	stripped := filepath.Join(dir, "stripped.test")
	cmd := exec.Command("go", "test", "-c", "-ldflags=-w", "-o", stripped, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if _, err := ReadInlines(stripped); !errors.Is(err, ErrNoInlines) {
		t.Errorf("a binary without DWARF: %v, want ErrNoInlines", err)
	}
}

// TestMeasureInlined runs a benchmark into which Checksum is inlined under
// callgrind: without inline information the benchmark function carries the
// work; with it, Checksum does, named as the developer wrote it, and the
// per-op figures agree (two runs differ by a few instructions: GC timing).
func TestMeasureInlined(t *testing.T) {
	r := Runner{TmpDir: t.TempDir()}
	if err := r.Available(); err != nil {
		t.Skipf("valgrind not installed (apt-get install valgrind): %v", err)
	}
	if testing.Short() {
		t.Skip("runs valgrind")
	}
	bin, dir := buildInl(t)
	r.Dir = dir
	ctx := context.Background()
	leaves := []string{"BenchmarkChecksum"}
	plain, err := r.MeasureLeaves(ctx, bin, "^BenchmarkChecksum$", leaves, 200)
	if err != nil {
		t.Fatal(err)
	}
	if top := topFunc(plain["BenchmarkChecksum"].Funcs); top != "example.com/inl.BenchmarkChecksum" {
		t.Errorf("without inline information: top function %q, want the benchmark", top)
	}
	if r.Inlines, err = ReadInlines(bin); err != nil {
		t.Fatal(err)
	}
	named, err := r.MeasureLeaves(ctx, bin, "^BenchmarkChecksum$", leaves, 200)
	if err != nil {
		t.Fatal(err)
	}
	m := named["BenchmarkChecksum"]
	sum := m.Funcs["example.com/inl.Checksum"]
	perOp := m.PerOp[UnitInstructions]
	t.Logf("instructions/op %.1f; Checksum self %.1f incl %.1f; benchmark %+v", perOp, sum.Self, sum.Incl, m.Funcs["example.com/inl.BenchmarkChecksum"])
	if top := topFunc(m.Funcs); top != "example.com/inl.Checksum" || sum.Self < 0.9*perOp {
		t.Errorf("with inline information: top function %q, Checksum %.1f of %.1f instructions/op: want Checksum, nearly all", top, sum.Self, perOp)
	}
	if p := plain["BenchmarkChecksum"].PerOp[UnitInstructions]; math.Abs(perOp-p) > 0.005*p {
		t.Errorf("instructions/op %.1f with inline information, %.1f without", perOp, plain["BenchmarkChecksum"].PerOp[UnitInstructions])
	}
}
