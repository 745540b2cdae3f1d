package callgrind

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const sampleOut = `# callgrind format
version: 1
creator: callgrind-3.19.0
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
fl=(1) x.go
fn=(1) main
1 5 2 1
summary: 1000 200 100 7 20 5 3 4 2
totals: 1000 200 100 7 20 5 3 4 2
`

func TestParseOut(t *testing.T) {
	c, err := ParseOut(strings.NewReader(sampleOut))
	if err != nil {
		t.Fatal(err)
	}
	if c["Ir"] != 1000 || c.D1Misses() != 25 || c.LLMisses() != 9 {
		t.Fatalf("counts %v: Ir %d D1 %d LL %d", c, c["Ir"], c.D1Misses(), c.LLMisses())
	}
	// Ir + 10*(I1mr 7 + D1 25) + 100*LL 9
	if got, want := c.EstCycles(), uint64(1000+10*32+100*9); got != want {
		t.Fatalf("EstCycles = %d, want %d", got, want)
	}
}

func TestParseOutTrailingZeros(t *testing.T) {
	c, err := ParseOut(strings.NewReader("events: Ir D1mr D1mw\ntotals: 50\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c["Ir"] != 50 || c.D1Misses() != 0 {
		t.Fatalf("counts %v", c)
	}
}

func TestParseOutRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"no totals":    "events: Ir\n",
		"no events":    "totals: 5\n",
		"no Ir":        "events: Dr\ntotals: 5\n",
		"extra values": "events: Ir\ntotals: 5 6\n",
	} {
		if _, err := ParseOut(strings.NewReader(in)); !errors.Is(err, ErrNoTotals) {
			t.Errorf("%s: err = %v, want ErrNoTotals", name, err)
		}
	}
	long := "events: Ir\n" + strings.Repeat("x", MaxLineBytes+1) + "\ntotals: 5\n"
	if _, err := ParseOut(strings.NewReader(long)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("long line: err = %v, want ErrTooLarge", err)
	}
	if _, err := ParseOut(strings.NewReader("events: Ir\ntotals: -5\n")); err == nil {
		t.Error("negative count accepted")
	}
}

func TestDiff(t *testing.T) {
	lo := Counts{"Ir": 1000, "D1mr": 10, "D1mw": 0, "I1mr": 0, "ILmr": 0, "DLmr": 1, "DLmw": 0}
	hi := Counts{"Ir": 3000, "D1mr": 30, "D1mw": 0, "I1mr": 0, "ILmr": 0, "DLmr": 1, "DLmw": 0}
	p, err := Diff(lo, hi, 100, 200)
	if err != nil {
		t.Fatal(err)
	}
	if p[UnitInstructions] != 20 || p[UnitD1Misses] != 0.2 || p[UnitLLMisses] != 0 {
		t.Fatalf("per op %v", p)
	}
	if want := 20 + 10*0.2; math.Abs(p[UnitEstCycles]-want) > 1e-9 {
		t.Fatalf("est-cycles/op %v, want %v", p[UnitEstCycles], want)
	}
	if _, err := Diff(hi, lo, 100, 200); !errors.Is(err, ErrNotMonotone) {
		t.Fatalf("fewer instructions at more ops: err = %v", err)
	}
	if _, err := Diff(lo, hi, 200, 200); err == nil {
		t.Fatal("equal op counts accepted")
	}
}

func TestBenchRegexp(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkPut-2":                    `^BenchmarkPut$`,
		"BenchmarkPut/kind=arena/value=1KB": `^BenchmarkPut$/^kind=arena$/^value=1KB$`,
		"BenchmarkX/a.b+c-8":                `^BenchmarkX$/^a\.b\+c$`,
	} {
		if got := BenchRegexp(in); got != want {
			t.Errorf("BenchRegexp(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckRan(t *testing.T) {
	out := "goos: linux\nBenchmarkA/x=1   \t 100\t 5 ns/op\nPASS\n"
	if err := checkRan([]byte(out), "BenchmarkA/x=1"); err != nil {
		t.Fatal(err)
	}
	if err := checkRan([]byte(out), "BenchmarkB"); !errors.Is(err, ErrBadRun) {
		t.Fatalf("missing line: %v", err)
	}
	two := out + "BenchmarkA/x=2 \t 100\t 5 ns/op\n"
	if err := checkRan([]byte(two), "BenchmarkA/x=1"); !errors.Is(err, ErrBadRun) {
		t.Fatalf("two benchmarks: %v", err)
	}
}

func TestCappedKeepsTail(t *testing.T) {
	var c capped
	c.Write([]byte(strings.Repeat("a", MaxStdout)))
	c.Write([]byte("end"))
	if len(c.Bytes()) != MaxStdout || !strings.HasSuffix(string(c.Bytes()), "end") || c.dropped != 3 {
		t.Fatalf("kept %d bytes, dropped %d", len(c.Bytes()), c.dropped)
	}
}

const loopSrc = `package loop

import "testing"

var sink uint64

func work(k int) {
	x := sink
	for i := 0; i < k; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func BenchmarkWork(b *testing.B) {
	b.Run("k=1000", func(b *testing.B) {
		for range b.N {
			work(1000)
		}
	})
	b.Run("k=2000", func(b *testing.B) {
		for range b.N {
			work(2000)
		}
	})
}

// BenchmarkSetup does a million iterations of set-up before its timer
// starts, and allocates in its loop (a GC cycle may land in either call).
func BenchmarkSetup(b *testing.B) {
	work(1000000)
	b.ResetTimer()
	for range b.N {
		work(1000)
		sinkBuf = make([]byte, 64)
	}
}

var sinkBuf []byte

// BenchmarkLoop drives its op count with b.Loop: one call of N ops.
func BenchmarkLoop(b *testing.B) {
	for b.Loop() {
		work(1000)
	}
}
`

// buildLoop compiles a throwaway package's test binary.
func buildLoop(t *testing.T) (bin, dir string) {
	t.Helper()
	dir = t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/loop\n\ngo 1.26\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "loop_test.go"), []byte(loopSrc), 0o644))
	bin = filepath.Join(dir, "loop.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin, dir
}

// loopRunner skips a short run or one without valgrind, and returns a
// Runner in buildLoop's package and its test binary.
func loopRunner(t *testing.T) (Runner, string) {
	t.Helper()
	r := Runner{TmpDir: t.TempDir()}
	if err := r.Available(); err != nil {
		t.Skipf("valgrind not installed (apt-get install valgrind): %v", err)
	}
	if testing.Short() {
		t.Skip("runs valgrind")
	}
	bin, dir := buildLoop(t)
	r.Dir = dir
	return r, bin
}

// TestMeasure runs a real benchmark under callgrind: the per-op instructions
// of twice the work are twice as many, two measurements agree, and the
// function that does the work carries nearly all of them.
func TestMeasure(t *testing.T) {
	r, bin := loopRunner(t)
	ctx := context.Background()
	m, err := r.MeasureFuncs(ctx, bin, "BenchmarkWork/k=1000", 20000)
	if err != nil {
		t.Fatal(err)
	}
	one := m.PerOp
	top, topRise := "", 0.0
	for name, f := range m.Funcs {
		if f.Self > topRise {
			top, topRise = name, f.Self
		}
	}
	if !strings.HasPrefix(top, "example.com/loop.") || topRise < 0.9*one[UnitInstructions] {
		t.Errorf("top function %q %.1f instructions/op of %.1f: want the loop's, nearly all", top, topRise, one[UnitInstructions])
	}
	again, err := r.Measure(ctx, bin, "BenchmarkWork/k=1000", 20000)
	if err != nil {
		t.Fatal(err)
	}
	two, err := r.Measure(ctx, bin, "BenchmarkWork/k=2000", 20000)
	if err != nil {
		t.Fatal(err)
	}
	i1, i1b, i2 := one[UnitInstructions], again[UnitInstructions], two[UnitInstructions]
	t.Logf("instructions/op: k=1000 %.1f and %.1f, k=2000 %.1f", i1, i1b, i2)
	if i1 < 2000 || i1 > 20000 {
		t.Fatalf("k=1000: %.1f instructions/op, want a few per iteration", i1)
	}
	if d := math.Abs(i1b-i1) / i1; d > 0.01 {
		t.Fatalf("two measurements differ by %.2f%%", 100*d)
	}
	if r := i2 / i1; r < 1.9 || r > 2.1 {
		t.Fatalf("twice the work gave %.3fx the instructions", r)
	}
	if _, err := r.Measure(ctx, bin, "BenchmarkWork", 10); !errors.Is(err, ErrBadRun) {
		t.Fatalf("a parent with two leaves: err = %v, want ErrBadRun", err)
	}
}
