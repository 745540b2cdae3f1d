package benchgate

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

func mustParse(t *testing.T, path string) *Set {
	t.Helper()
	s, err := ParseFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func compareTestdata(t *testing.T) *Report {
	t.Helper()
	acc, err := ReadAccepted("testdata/accepted.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(mustParse(t, "testdata/base.txt"), mustParse(t, "testdata/head.txt"), Options{Accepted: acc})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestCompareGolden(t *testing.T) {
	rep := compareTestdata(t)
	var text, md bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	testkit.CheckGolden(t, filepath.Join("testdata", "compare.golden.txt"), text.Bytes())
	testkit.CheckGolden(t, filepath.Join("testdata", "compare.golden.md"), md.Bytes())
}

func TestCompareVerdicts(t *testing.T) {
	rep := compareTestdata(t)
	want := map[Key]Verdict{
		{"BenchmarkPut/kind=arena/value=100B-2", "ns/op"}:     Regressed,
		{"BenchmarkPut/kind=arena/value=100B-2", "allocs/op"}: Unchanged,
		{"BenchmarkPut/kind=heap/value=100B-2", "ns/op"}:      Unchanged,
		{"BenchmarkPut/kind=heap/value=100B-2", "allocs/op"}:  Accepted,
		{"BenchmarkWrite/path=direct-2", "ns/op"}:             Within,
		{"BenchmarkWrite/path=direct-2", "gc-pause-p99-ns"}:   Improved,
		{"BenchmarkWrite/path=direct-2", "ops/s"}:             Regressed,
		{"BenchmarkWrite/path=direct-2", "widgets"}:           NotGated,
		{"BenchmarkWrite/path=buffered-2", "B/op"}:            Within,
		{"BenchmarkWrite/path=buffered-2", "heap-B/key"}:      Unchanged,
		{"BenchmarkAlloc/value=100B-2", "ns/op"}:              Improved,
		{"BenchmarkAlloc/value=10KB-2", "ns/op"}:              New,
	}
	got := map[Key]Verdict{}
	for _, r := range rep.Rows {
		got[r.Key] = r.Verdict
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s %s: verdict %v, want %v", k.Name, k.Unit, got[k], v)
		}
	}
	if !rep.Regressed() || rep.Count(Regressed) != 2 {
		t.Errorf("Regressed() = %v with %d regressions, want 2", rep.Regressed(), rep.Count(Regressed))
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "accepted.txt:4") {
		t.Errorf("notes = %q, want the unused acceptance at accepted.txt:4", rep.Notes)
	}
}

func TestSameInputPasses(t *testing.T) {
	base := mustParse(t, "testdata/base.txt")
	rep, err := Compare(base, mustParse(t, "testdata/base.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Regressed() || rep.Count(Improved) != 0 {
		t.Errorf("A/A comparison: %s", rep.Summary())
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     error
		lines    []string // file:line substrings expected in the error
	}{
		{"empty", "", errEmptyInput, nil},
		{"blank", "\n \n\t\n", errEmptyInput, nil},
		{"no benchmarks", "goos: linux\nPASS\nok  \tx\t0.1s\n", ErrNoBenchmarks, nil},
		{"malformed", "BenchmarkA-2 \t 10\t5 ns/op\nBenchmarkB-2 \t ten\t5 ns/op\nBenchmarkC-2 \t 10\t5\nBenchmarkD-2 \t 10\n",
			ErrMalformed, []string{"in.txt:2: parsing iteration count", "in.txt:3: missing units", "in.txt:4: missing measurements"}},
		{"bad metadata", "Unit x better=up\nUnit y assume=maybe\nBenchmarkA-2 \t 10\t5 x\n",
			ErrMalformed, []string{"in.txt:1: unit x: better=up", "in.txt:2: unit y: assume=maybe"}},
		{"conflicting metadata", "Unit x better=lower\nUnit x better=higher\nBenchmarkA-2 \t 10\t5 x\n",
			ErrMalformed, []string{"in.txt:2: metadata better of unit x already set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in), "in.txt")
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, l := range tc.lines {
				if !strings.Contains(err.Error(), l) {
					t.Errorf("error %q lacks %q", err, l)
				}
			}
		})
	}
}

func TestVerboseOutputIsNotMalformed(t *testing.T) {
	in := "=== RUN   BenchmarkA\nBenchmarkA\nBenchmarkA-2 \t 10\t5 ns/op\n--- BENCH: BenchmarkA-2\n    a_test.go:9: log\nPASS\n"
	s, err := Parse(strings.NewReader(in), "v.txt")
	if err != nil || len(s.Keys) != 1 {
		t.Fatalf("Parse = %v, %v; want one key and no error", s, err)
	}
}

func parseString(t *testing.T, in string) *Set {
	t.Helper()
	s, err := Parse(strings.NewReader(in), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lines repeats one benchmark line per value.
func lines(name, unit string, vals ...float64) string {
	var b strings.Builder
	for _, v := range vals {
		b.WriteString(name + " \t 100\t" + strconv.FormatFloat(v, 'g', -1, 64) + " " + unit + "\n")
	}
	return b.String()
}

func TestCompareErrors(t *testing.T) {
	ten := []float64{10, 11, 10, 12, 10, 11, 10, 12, 10, 11}
	a := parseString(t, lines("BenchmarkA-2", "ns/op", ten...)+lines("BenchmarkB-2", "ns/op", ten...))
	onlyA := parseString(t, lines("BenchmarkA-2", "ns/op", ten...))
	c := parseString(t, lines("BenchmarkC-2", "ns/op", ten...))

	if _, err := Compare(a, c, Options{}); !errors.Is(err, errNoCommon) {
		t.Errorf("disjoint: err = %v, want errNoCommon", err)
	}
	rep, err := Compare(a, onlyA, Options{})
	if !errors.Is(err, ErrMissingInHead) || !strings.Contains(err.Error(), "BenchmarkB-2 ns/op") {
		t.Errorf("head lacks B: err = %v, want ErrMissingInHead naming BenchmarkB-2", err)
	}
	if rep == nil || rep.Count(Missing) != 1 || !strings.HasPrefix(rep.Summary(), "benchgate: ERROR") {
		t.Errorf("head lacks B: report %v", rep)
	}
	// A base lacking a head benchmark is fine: the row is New.
	if rep, err := Compare(onlyA, a, Options{}); err != nil || rep.Count(New) != 1 {
		t.Errorf("head adds B: err = %v, report %v", err, rep)
	}
	four := parseString(t, lines("BenchmarkA-2", "ns/op", 10, 10, 10, 10))
	slow := parseString(t, lines("BenchmarkA-2", "ns/op", 20, 20, 21, 20))
	if rep, err := Compare(four, slow, Options{}); !errors.Is(err, ErrUnderpowered) || rep.Count(Underpowered) != 1 {
		t.Errorf("n=4+4: err = %v, want ErrUnderpowered", err)
	}
	u1 := parseString(t, "Unit x better=lower\n"+lines("BenchmarkA-2", "x", ten...))
	u2 := parseString(t, "Unit x better=higher\n"+lines("BenchmarkA-2", "x", ten...))
	if _, err := Compare(u1, u2, Options{}); !errors.Is(err, errUnitConflict) {
		t.Errorf("conflicting units: err = %v, want errUnitConflict", err)
	}
}

func TestThreshold(t *testing.T) {
	base := []float64{100, 101, 99, 100, 102, 100, 98, 100, 101, 99}
	head := []float64{108, 109, 107, 108, 110, 108, 106, 108, 109, 107} // +8%, clearly significant
	b := parseString(t, lines("BenchmarkA-2", "ns/op", base...))
	h := parseString(t, lines("BenchmarkA-2", "ns/op", head...))
	for _, tc := range []struct {
		threshold float64
		want      Verdict
	}{{0, Within}, {0.05, Regressed}, {-1, Regressed}, {0.09, Within}} {
		rep, err := Compare(b, h, Options{Threshold: tc.threshold})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Rows[0].Verdict; got != tc.want {
			t.Errorf("threshold %v: %v, want %v (row %+v)", tc.threshold, got, tc.want, rep.Rows[0])
		}
	}
	// The same shift in a higher-is-better unit is an improvement.
	hb := parseString(t, lines("BenchmarkA-2", "MB/s", base...))
	hh := parseString(t, lines("BenchmarkA-2", "MB/s", head...))
	if rep, _ := Compare(hb, hh, Options{Threshold: 0.05}); rep.Rows[0].Verdict != Improved {
		t.Errorf("MB/s +8%%: %v, want improved", rep.Rows[0].Verdict)
	}
}

func TestExactUnits(t *testing.T) {
	b := parseString(t, lines("BenchmarkA-2", "allocs/op", 3, 3, 3, 3, 3))
	h := parseString(t, lines("BenchmarkA-2", "allocs/op", 4, 4, 4, 4, 4))
	rep, err := Compare(b, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Verdict != Regressed || !r.Exact || !math.IsNaN(r.P) {
		t.Errorf("3 -> 4 allocs/op: %+v, want an exact regression", r)
	}
	// Even a 1% increase of a declared-exact unit regresses.
	b = parseString(t, "Unit heap-B/key assume=exact better=lower\n"+lines("BenchmarkA-2", "heap-B/key", 100, 100, 100))
	h = parseString(t, lines("BenchmarkA-2", "heap-B/key", 101, 101, 101))
	if rep, _ := Compare(b, h, Options{}); rep.Rows[0].Verdict != Regressed {
		t.Errorf("exact 100 -> 101: %v, want regressed", rep.Rows[0].Verdict)
	}
}

func TestAcceptedFileErrors(t *testing.T) {
	_, err := ParseAccepted(strings.NewReader("# c\n^ok  reason\n^noreason\n(  bad regexp\n"), "acc.txt")
	if !errors.Is(err, errAcceptFile) || !strings.Contains(err.Error(), "acc.txt:3") || !strings.Contains(err.Error(), "acc.txt:4") {
		t.Errorf("err = %v, want errAcceptFile naming acc.txt:3 and acc.txt:4", err)
	}
	acc, err := ReadAccepted(filepath.Join(t.TempDir(), "absent"))
	if err != nil || acc != nil {
		t.Errorf("missing file: %v, %v; want no acceptances and no error", acc, err)
	}
}

func TestMinUTestP(t *testing.T) {
	if got, want := minUTestP(5, 5), 2.0/252; math.Abs(got-want) > 1e-12 {
		t.Errorf("minUTestP(5,5) = %v, want %v", got, want)
	}
	if minUTestP(4, 4) < DefaultAlpha || minUTestP(10, 10) > 1e-4 {
		t.Errorf("minUTestP(4,4) = %v, minUTestP(10,10) = %v", minUTestP(4, 4), minUTestP(10, 10))
	}
}

func TestDirection(t *testing.T) {
	for unit, want := range map[string]Direction{
		"ns/op": LowerIsBetter, "sec/op": LowerIsBetter, "B/op": LowerIsBetter, "allocs/op": LowerIsBetter,
		"p99-ns": LowerIsBetter, "gc-cpu-%": LowerIsBetter, "gc-cycles/op": LowerIsBetter,
		"MB/s": HigherIsBetter, "B/s": HigherIsBetter, "ops/s": HigherIsBetter,
		"heap-B/key": DirUnknown, "widgets": DirUnknown,
	} {
		if got := DirectionOf(unit, nil); got != want {
			t.Errorf("DirectionOf(%q) = %v, want %v", unit, got, want)
		}
	}
}
