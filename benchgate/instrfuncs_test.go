package benchgate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate/internal/callgrind"
)

func fpo(self, incl float64) callgrind.FuncPerOp { return callgrind.FuncPerOp{Self: self, Incl: incl} }

// TestInstrFuncDiffs ranks functions by the rise of their own instructions
// per op, averaged over rounds, leaving out bookkeeping and rises under one
// instruction an op; a benchmark without counts on a side says so.
func TestInstrFuncDiffs(t *testing.T) {
	f := newInstrFuncs()
	for _, extra := range []float64{590, 610} { // two rounds: a mean of 600
		f.add("base", "BenchmarkX", map[string]callgrind.FuncPerOp{"x.hot": fpo(3000, 3000), "x.tiny": fpo(1, 1)})
		f.add("head", "BenchmarkX", map[string]callgrind.FuncPerOp{"x.hot": fpo(3000, 3600), "x.extra": fpo(extra, extra),
			"x.tiny": fpo(1.5, 1.5), "testing.(*B).Loop": fpo(900, 900), "x.less": fpo(-5, -5)})
	}
	d := f.diffs([]string{"BenchmarkX", "BenchmarkMissing"}, 0, 8)
	if len(d) != 2 {
		t.Fatalf("%d diffs, want 2: %+v", len(d), d)
	}
	got := d[0]
	if got.SampleType != SampleInstructions || got.Err != "" || len(got.Funcs) != 2 {
		t.Fatalf("diff %+v, want x.extra then x.hot", got)
	}
	if fc := got.Funcs[0]; fc.Func != "x.extra" || fc.FlatGrowth() != 600 || fc.BaseFlat != 0 {
		t.Errorf("first %+v, want x.extra +600 from 0", fc)
	}
	if fc := got.Funcs[1]; fc.Func != "x.hot" || fc.FlatGrowth() != 0 || fc.CumGrowth() != 600 {
		t.Errorf("second %+v, want x.hot with cum +600", fc)
	}
	if d[1].Err == "" || len(d[1].Funcs) != 0 {
		t.Errorf("missing benchmark: %+v, want an Err", d[1])
	}
	if d := f.diffs([]string{"BenchmarkX", "BenchmarkX"}, 1, 8); len(d) != 1 {
		t.Errorf("max 1: %d diffs", len(d))
	}
	var nilF *instrFuncs
	if d := nilF.diffs([]string{"BenchmarkX"}, 0, 8); d != nil {
		t.Errorf("no counts: %+v", d)
	}
}

// writeSlowFnModule writes a module whose benchmark calls hot, and, when
// extra is not 0, a function named extra doing that many more iterations
// per op (the head's 20% slowdown that a report must name).
func writeSlowFnModule(t *testing.T, dir string, extra int) {
	t.Helper()
	src := fmt.Sprintf(`package slowfn

import "testing"

var sink uint64

//go:noinline
func hot(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func extra(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x = x*2862933555777941757 + 3037000493
	}
	return x
}

func BenchmarkHot(b *testing.B) {
	for b.Loop() {
		sink = hot(1000)
		if %d > 0 {
			sink += extra(%d)
		}
	}
}
`, extra, extra)
	for name, body := range map[string]string{"go.mod": "module example.com/slowfn\n\ngo 1.26\n", "slow_test.go": src} {
		if err := os.WriteFile(dir+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunInstructionsNamesFunction runs instruction mode under real
// valgrind on a head 20% slower because one function, extra, does added
// work: the report names example.com/slowfn.extra first among the
// functions behind the regression, with about the added instructions.
func TestRunInstructionsNamesFunction(t *testing.T) {
	needRealValgrind(t)
	dir := gitModuleDir(t)
	commitBaseHead(t, dir, func() { writeSlowFnModule(t, dir, 0) }, func() { writeSlowFnModule(t, dir, 200) })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var selected []string
	cfg := RunConfig{Dir: dir, Base: "HEAD~1", Head: "HEAD", Count: DefaultInstructionCount, Benchtime: "2000x",
		Measure: MeasureInstructions, Jobs: 2, OutDir: t.TempDir(),
		ProfileSelect: func(base, head *Set) []string {
			rep, err := Compare(base, head, Options{})
			if err != nil {
				t.Error(err)
				return nil
			}
			for _, r := range rep.Rows {
				if r.Verdict == Regressed && r.Unit == UnitInstructions {
					selected = append(selected, r.Name)
				}
			}
			return selected
		}}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(selected) != 1 || len(res.FuncDiffs) != 1 {
		t.Fatalf("selected %v, func diffs %+v: want BenchmarkHot", selected, res.FuncDiffs)
	}
	d := res.FuncDiffs[0]
	if d.Err != "" || len(d.Funcs) == 0 || d.Funcs[0].Func != "example.com/slowfn.extra" {
		t.Fatalf("func diff %+v: want example.com/slowfn.extra first", d)
	}
	if g := d.Funcs[0].FlatGrowth(); g < 1200 || g > 1600 { // 7 instructions an iteration, as hot's
		t.Errorf("extra: +%.1f instructions/op, want about 1400 (200 iterations of 7)", g)
	}
	rep, err := Compare(res.Base, res.Head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep.Profiles = res.FuncDiffs
	var text, md bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{text.String(), md.String()} {
		if !strings.Contains(out, "where BenchmarkHot got slower") && !strings.Contains(out, "where `BenchmarkHot` got slower") ||
			!strings.Contains(out, "example.com/slowfn.extra") {
			t.Errorf("report does not name the function:\n%s", out)
		}
	}
	t.Logf("%s", text.String())
}

// TestInstrFuncsNeverNegative: a function whose per-op count fell (a fixed
// cost that differed between the two calls) or scatters around zero reads
// 0, never a negative count; a steady small count is kept.
func TestInstrFuncsNeverNegative(t *testing.T) {
	f := newInstrFuncs()
	for _, gc := range []float64{0, 0, 30, 0, 0} { // a GC cycle in one round of five
		f.add("head", "BenchmarkX", map[string]callgrind.FuncPerOp{
			"runtime.ReadMemStats.func1": fpo(-0.004, -3.85),
			"runtime.gcBgMarkWorker":     fpo(gc, gc),
			"x.steady":                   fpo(5, 12),
		})
	}
	m := f.mean("head", "BenchmarkX")
	for name, want := range map[string]callgrind.FuncPerOp{
		"runtime.ReadMemStats.func1": fpo(0, 0),
		"runtime.gcBgMarkWorker":     fpo(0, 0),
		"x.steady":                   fpo(5, 12),
	} {
		if got := m[name]; got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	for _, r := range []struct {
		sum, sumSq float64
		n          int
		want       float64
	}{{-1, 1, 1, 0}, {3, 9, 1, 3}, {10, 50, 2, 5}, {10, 100, 2, 0}} {
		if got := resolved(r.sum, r.sumSq, r.n); got != r.want {
			t.Errorf("resolved(%g, %g, %d) = %g, want %g", r.sum, r.sumSq, r.n, got, r.want)
		}
	}
}

// writeChecksumModule writes a module whose BenchmarkChecksum calls
// Checksum, which the compiler inlines into it; slower adds work to each
// byte (about a fifth more instructions), as a developer's change would.
func writeChecksumModule(t *testing.T, dir string, slower bool) {
	t.Helper()
	step := "s = s*31 + uint32(c)"
	if slower {
		step = "s = (s*31 + uint32(c)) ^ (s >> 7)"
	}
	src := fmt.Sprintf(`package checksum

// Checksum is small enough to be inlined into its callers.
func Checksum(b []byte) uint32 {
	var s uint32
	for _, c := range b {
		%s
	}
	return s
}
`, step)
	test := `package checksum

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
	for name, body := range map[string]string{"go.mod": "module example.com/checksum\n\ngo 1.26\n", "checksum.go": src, "checksum_test.go": test} {
		if err := os.WriteFile(dir+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunInstructionsNamesInlined runs instruction mode under real valgrind
// on a head whose Checksum, inlined into BenchmarkChecksum, got slower: the
// report names example.com/checksum.Checksum (the function the developer
// wrote, from the binary's inline information), not the benchmark it was
// inlined into, and prints no negative per-op count.
func TestRunInstructionsNamesInlined(t *testing.T) {
	needRealValgrind(t)
	dir := gitModuleDir(t)
	commitBaseHead(t, dir, func() { writeChecksumModule(t, dir, false) }, func() { writeChecksumModule(t, dir, true) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := RunConfig{Dir: dir, Base: "HEAD~1", Head: "HEAD", Count: DefaultInstructionCount, Benchtime: "500x",
		Measure: MeasureInstructions, Jobs: 2, OutDir: t.TempDir(),
		ProfileSelect: func(base, head *Set) []string { return []string{"BenchmarkChecksum"} }}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.FuncDiffs) != 1 || len(res.FuncDiffs[0].Funcs) == 0 {
		t.Fatalf("func diffs %+v: want BenchmarkChecksum's", res.FuncDiffs)
	}
	d := res.FuncDiffs[0]
	if d.Funcs[0].Func != "example.com/checksum.Checksum" {
		t.Errorf("first function %q, want example.com/checksum.Checksum: %+v", d.Funcs[0].Func, d.Funcs)
	}
	for _, f := range d.Funcs {
		if f.BaseFlat < 0 || f.HeadFlat < 0 || f.BaseCum < 0 || f.HeadCum < 0 {
			t.Errorf("a negative per-op count: %+v", f)
		}
	}
	rep, err := Compare(res.Base, res.Head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep.Profiles = res.FuncDiffs
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "example.com/checksum.Checksum") {
		t.Errorf("report does not name Checksum:\n%s", text.String())
	}
	t.Logf("%s", text.String())
}
