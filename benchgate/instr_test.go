package benchgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate/internal/callgrind"
	"github.com/writegc/writegc/internal/testkit"
)

func TestParseMeasure(t *testing.T) {
	for _, s := range []string{"wall", "instructions"} {
		if m, err := ParseMeasure(s); err != nil || string(m) != s {
			t.Errorf("ParseMeasure(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "foo", "Instructions", "cycles"} {
		if _, err := ParseMeasure(s); !errors.Is(err, errBadOption) {
			t.Errorf("ParseMeasure(%q): err = %v, want errBadOption", s, err)
		}
	}
}

func TestInstrValidate(t *testing.T) {
	ok := RunConfig{Base: "x", Measure: MeasureInstructions, Benchtime: "100x",
		Targets: []Target{{Pkg: ".", Bench: ".", Benchtime: "5x"}, {Pkg: ".", Bench: "A"}}}
	if err := ok.validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for name, c := range map[string]RunConfig{
		"duration benchtime":        {Base: "x", Measure: MeasureInstructions, Benchtime: "1s"},
		"duration target benchtime": {Base: "x", Measure: MeasureInstructions, Targets: []Target{{Pkg: ".", Bench: ".", Benchtime: "50ms"}}},
		"unknown measure":           {Base: "x", Measure: "foo"},
		"jobs":                      {Base: "x", Measure: MeasureInstructions, Jobs: MaxJobs + 1},
		"negative jobs":             {Base: "x", Jobs: -1},
	} {
		if err := c.validate(); !errors.Is(err, errBadOption) {
			t.Errorf("%s: err = %v, want errBadOption", name, err)
		}
	}
	// Wall mode keeps accepting durations.
	if err := (RunConfig{Base: "x", Benchtime: "1s"}).validate(); err != nil {
		t.Errorf("wall mode, 1s: %v", err)
	}
}

func TestInstrOps(t *testing.T) {
	for _, tc := range []struct {
		target, cfg string
		want        int
	}{
		{"5x", "100x", 5}, {"", "100x", 100}, {"", "", DefaultInstructionOps}, {"", "1s", DefaultInstructionOps},
	} {
		if got := instrOps(tc.target, tc.cfg); got != tc.want {
			t.Errorf("instrOps(%q, %q) = %d, want %d", tc.target, tc.cfg, got, tc.want)
		}
	}
}

// TestInstrPreamble: the default gates are written for every unit key the
// -units preamble leaves unset, and never conflict with it.
func TestInstrPreamble(t *testing.T) {
	all := instrPreamble("")
	for _, u := range InstructionUnits {
		if want := "Unit " + u.Unit + " better=lower gate=" + u.Gate + "\n"; !strings.Contains(all, want) {
			t.Errorf("no %q in %q", want, all)
		}
	}
	got := instrPreamble("Unit instructions/op better=lower gate=3%\nUnit LL-misses/op better=none\n")
	if strings.Contains(got, "Unit instructions/op") {
		t.Errorf("instructions/op set by the preamble, written again: %q", got)
	}
	if !strings.Contains(got, "Unit LL-misses/op gate=5%,0.5pt\n") || strings.Contains(got, "LL-misses/op better") {
		t.Errorf("LL-misses/op: want only its gate= added: %q", got)
	}
	// The outputs parse: default gates and a preamble together.
	in := "Unit LL-misses/op better=none\n" + got + "BenchmarkX\t10\t5 instructions/op\t1 LL-misses/op\n"
	set, err := Parse(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := UnitGateOf(UnitEstCycles, set.Units); !ok || g.Amount != 0.02 {
		t.Errorf("est-cycles/op gate %+v %v, want 2%%", g, ok)
	}
}

func TestWriteInstrLine(t *testing.T) {
	var b bytes.Buffer
	writeInstrLine(&b, "BenchmarkPut/kind=arena", 2000, callgrind.PerOp{
		UnitInstructions: 10234.5, UnitD1Misses: 0.00125, UnitLLMisses: 0, UnitEstCycles: 10300.25})
	want := "BenchmarkPut/kind=arena\t2000\t10234.5 instructions/op\t0.00125 D1-misses/op\t0 LL-misses/op\t10300.25 est-cycles/op\n"
	if b.String() != want {
		t.Fatalf("line\n%q\nwant\n%q", b.String(), want)
	}
	set, err := Parse(&b, "t")
	if err != nil {
		t.Fatal(err)
	}
	if xs := set.Samples[Key{Name: "BenchmarkPut/kind=arena", Unit: UnitInstructions}]; len(xs) != 1 || xs[0] != 10234.5 {
		t.Errorf("parsed %v", set.Samples)
	}
}

func TestConfigLines(t *testing.T) {
	var c configLines
	c.Write([]byte("goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: Some CPU\nBenchmarkA \t1\t5 ns/op\nPASS\n"))
	if got, want := c.String(), "goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: Some CPU\n"; got != want {
		t.Errorf("config %q, want %q", got, want)
	}
}

// TestInstrCountNotUnderpowered: five rounds a side can reach p < 0.01, so
// instruction mode's default count is not called underpowered.
func TestInstrCountNotUnderpowered(t *testing.T) {
	n := DefaultInstructionCount
	if p := minUTestP(n, n); !(p < DefaultAlpha) {
		t.Fatalf("minUTestP(%d, %d) = %g, want < %g", n, n, p, DefaultAlpha)
	}
	var bt, ht strings.Builder
	bt.WriteString(instrPreamble(""))
	ht.WriteString(instrPreamble(""))
	for i := range n {
		fmt.Fprintf(&bt, "BenchmarkX\t100\t%g instructions/op\n", 1000+float64(i)*0.1)
		fmt.Fprintf(&ht, "BenchmarkX\t100\t%g instructions/op\n", 1020+float64(i)*0.1)
	}
	base, err := Parse(strings.NewReader(bt.String()), "base")
	if err != nil {
		t.Fatal(err)
	}
	head, err := Parse(strings.NewReader(ht.String()), "head")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if row := findRow(t, rep, UnitInstructions); row.Verdict != Regressed || row.ThresholdFrom != "unit gate=1%" {
		t.Errorf("2%% more instructions, 5+5 separated: %+v, want regressed", row)
	}
}

func TestRunInstructionsNoValgrind(t *testing.T) {
	dir := gitModuleDir(t)
	writeSynth(t, dir, 10, true)
	testkit.CommitAll(t, dir, "x")
	_, err := Run(context.Background(), RunConfig{Dir: dir, Base: "HEAD", Head: "HEAD",
		Measure: MeasureInstructions, Valgrind: "/nonexistent/valgrind"})
	if !errors.Is(err, ErrNoValgrind) {
		t.Fatalf("err = %v, want ErrNoValgrind", err)
	}
}

// TestRunInstructions runs the instruction mode end to end under real
// valgrind: a head whose benchmark executes 2% more instructions regresses
// on instructions/op, naming the benchmark; an identical head passes.
func TestRunInstructions(t *testing.T) {
	needRealValgrind(t)
	dir := gitModuleDir(t)
	commitBaseHead(t, dir, func() { writeSynth(t, dir, 2000, true) },
		func() { writeSynth(t, dir, 2040, true) }) // 2% more loop iterations per op
	testkit.Git(t, dir, "tag", "base", "HEAD~1")
	testkit.Git(t, dir, "tag", "slow")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := RunConfig{Dir: dir, Base: "base", Count: DefaultInstructionCount, Benchtime: "2000x",
		Measure: MeasureInstructions, Jobs: 2}
	t.Run("2% more instructions regresses", func(t *testing.T) {
		c := cfg
		c.Head, c.OutDir = "slow", t.TempDir()
		res, err := Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(res.HeadFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"measure: instructions\n", "gomaxprocs: 1\n", "Unit instructions/op better=lower gate=1%\n", "\nBenchmarkWork\t2000\t"} {
			if !strings.Contains(string(raw), want) {
				t.Errorf("head.txt lacks %q:\n%s", want, raw)
			}
		}
		rep, err := Compare(res.Base, res.Head, Options{})
		if err != nil {
			t.Fatal(err)
		}
		row := findRow(t, rep, UnitInstructions)
		if row.Verdict != Regressed || row.Name != "BenchmarkWork" || row.NBase != 5 || row.NHead != 5 {
			t.Errorf("instructions/op: %+v, want BenchmarkWork regressed with n=5+5", row)
		}
		if !(row.Delta > 0.015 && row.Delta < 0.025) {
			t.Errorf("instructions/op delta %.4f, want about +2%%", row.Delta)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "BenchmarkWork") || !strings.Contains(text.String(), "instructions/op") {
			t.Errorf("report does not name the benchmark and unit:\n%s", text.String())
		}
	})
	t.Run("identical head passes", func(t *testing.T) {
		c := cfg
		c.Head, c.OutDir = "base", t.TempDir()
		res, err := Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Compare(res.Base, res.Head, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Regressed() {
			var text bytes.Buffer
			rep.WriteText(&text)
			t.Errorf("identical commits regressed:\n%s", text.String())
		}
	})
}

// TestMissFloor: a miss unit regresses when it is worse by more than 5% and
// by more than half a miss per op; a large relative change of a tiny count
// does not.
func TestMissFloor(t *testing.T) {
	for _, tc := range []struct {
		base, head float64
		want       Verdict
	}{
		{0.1, 0.3, Within},    // +200%, +0.2 a op
		{50, 51, Within},      // +2%, +1 a op
		{3.6, 4.6, Regressed}, // one more last-level miss an op
		{50, 40, Improved},
	} {
		var bt, ht strings.Builder
		bt.WriteString(instrPreamble(""))
		ht.WriteString(instrPreamble(""))
		for i := range DefaultInstructionCount {
			fmt.Fprintf(&bt, "BenchmarkX\t100\t%g LL-misses/op\n", tc.base+float64(i)*0.001)
			fmt.Fprintf(&ht, "BenchmarkX\t100\t%g LL-misses/op\n", tc.head+float64(i)*0.001)
		}
		rep, err := Compare(parseString(t, bt.String()), parseString(t, ht.String()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		row := findRow(t, rep, UnitLLMisses)
		if row.Verdict != tc.want || row.ThresholdFloor != 0.5 {
			t.Errorf("LL-misses/op %g -> %g: %+v, want %v", tc.base, tc.head, row, tc.want)
		}
		if got, want := row.thresholdCell(), "5% and +0.5pt (unit gate=5%,0.5pt)"; got != want {
			t.Errorf("threshold cell %q, want %q", got, want)
		}
	}
}

// TestInstrUnitFiles: scripts/units.txt and scripts/gate-units.txt name the
// four instruction units, and the gate's file with Run's default gates
// added parses (no conflicting metadata) and keeps the defaults.
func TestInstrUnitFiles(t *testing.T) {
	for _, f := range []string{"../scripts/units.txt", "../scripts/gate-units.txt"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range InstructionUnits {
			if !strings.Contains(string(raw), "\nUnit "+u.Unit+" better=lower") {
				t.Errorf("%s lacks a `Unit %s better=lower` line", f, u.Unit)
			}
		}
		if !strings.HasSuffix(f, "gate-units.txt") {
			continue
		}
		in := string(raw) + instrPreamble(string(raw)) + "BenchmarkX\t10\t5 instructions/op\n"
		set, err := Parse(strings.NewReader(in), f)
		if err != nil {
			t.Fatalf("%s with the default gates: %v", f, err)
		}
		for _, u := range InstructionUnits {
			if g, ok := UnitGateOf(u.Unit, set.Units); !ok || g.Spec != u.Gate {
				t.Errorf("%s: gate %+v %v, want %s", u.Unit, g, ok, u.Gate)
			}
		}
	}
}

// fakeValgrind is a stand-in for valgrind that runs the benchmark natively
// and writes callgrind totals from its work/op metric: Ir 5,000,000 + N x
// work, D1 misses 100 + N, LL misses 10 + N/2; with FAKE_FAIL set it fails.
const fakeValgrind = `#!/bin/sh
[ "$1" = --version ] && { echo valgrind-fake; exit 0; }
[ -n "$FAKE_FAIL" ] && { echo "fake valgrind: failing" >&2; exit 1; }
out=
for a; do
	case $a in
	--callgrind-out-file=*) out=${a#*=} ;;
	--*) ;;
	*) break ;;
	esac
	shift
done
n=
for a; do case $a in -test.benchtime=*x) v=${a#*=}; n=${v%x} ;; esac; done
res=$("$@") || exit 1
printf '%s\n' "$res"
w=$(printf '%s\n' "$res" | awk '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) == "work/op") print int($i) }')
[ -n "$w" ] && [ -n "$n" ] && [ -n "$out" ] || exit 3
echo "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw" >"$out"
echo "totals: $((5000000 + n * w)) 0 0 0 $((100 + n)) 0 0 $((10 + n / 2)) 0" >>"$out"
`

// writeWorkModule writes a module whose two leaf benchmarks report their
// work per op (the fake valgrind's instruction count): k=a does workA, k=b
// a fixed 500.
func writeWorkModule(t *testing.T, dir string, workA int) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/work\n\ngo 1.26\n",
		"work_test.go": fmt.Sprintf(`package work

import "testing"

func BenchmarkW(b *testing.B) {
	for _, c := range []struct{ name string; work int }{{"k=a", %d}, {"k=b", 500}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(float64(c.work), "work/op")
		})
	}
}
`, workA),
	}
	for name, body := range files {
		if err := os.WriteFile(dir+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunInstructionsFake runs instruction mode's whole pipeline (leaf
// listing, rounds with base and head at once, output files, compare) with a
// fake valgrind, so it runs everywhere, fast and deterministically: the
// leaf whose work grew 3% (est-cycles +2.8%, past its 2% gate) regresses on
// instructions/op and est-cycles/op,
// the other is unchanged; a failing measurement is ErrBenchFailed.
func TestRunInstructionsFake(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := gitModuleDir(t)
	vg := t.TempDir() + "/valgrind"
	if err := os.WriteFile(vg, []byte(fakeValgrind), 0o755); err != nil {
		t.Fatal(err)
	}
	commitBaseHead(t, dir, func() { writeWorkModule(t, dir, 1000) }, func() { writeWorkModule(t, dir, 1030) })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := RunConfig{Dir: dir, Base: "HEAD~1", Head: "HEAD", Count: DefaultInstructionCount,
		Measure: MeasureInstructions, Valgrind: vg, Jobs: 2,
		Targets: []Target{{Pkg: ".", Bench: "BenchmarkW", Benchtime: "40x"}}}
	c := cfg
	c.OutDir = t.TempDir()
	res, err := Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(res.BaseFile)
	if err != nil {
		t.Fatal(err)
	}
	want := "BenchmarkW/k=a\t40\t1000 instructions/op\t1 D1-misses/op\t0.5 LL-misses/op\t1060 est-cycles/op\n"
	if got := strings.Count(string(raw), want); got != DefaultInstructionCount {
		t.Errorf("base.txt has %d lines %q, want %d:\n%s", got, want, DefaultInstructionCount, raw)
	}
	for _, w := range []string{"measure: instructions\n", "valgrind: valgrind-fake\n", "pkg: example.com/work\n", "gomaxprocs: 1\n"} {
		if !strings.Contains(string(raw), w) {
			t.Errorf("base.txt lacks %q", w)
		}
	}
	rep, err := Compare(res.Base, res.Head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rep.Rows {
		want := Unchanged
		if row.Name == "BenchmarkW/k=a" && (row.Unit == UnitInstructions || row.Unit == UnitEstCycles) {
			want = Regressed
		}
		if row.Verdict != want || row.NBase != 5 || row.NHead != 5 {
			t.Errorf("%s %s: %v (n=%d+%d), want %v", row.Name, row.Unit, row.Verdict, row.NBase, row.NHead, want)
		}
	}
	if len(rep.Rows) != 8 {
		t.Errorf("%d rows, want 8 (2 leaves x 4 units)", len(rep.Rows))
	}

	c = cfg
	c.HeadEnv = []string{"FAKE_FAIL=1"}
	if _, err := Run(ctx, c); !errors.Is(err, ErrBenchFailed) || !strings.Contains(err.Error(), "head BenchmarkW/k=") {
		t.Errorf("failing head: err = %v, want ErrBenchFailed naming the head's benchmark", err)
	}
	out, err := exec.Command("git", "-C", dir, "worktree", "list").Output()
	if err != nil || countLines(string(out)) != 1 {
		t.Errorf("worktrees left behind: %s (%v)", out, err)
	}
}
