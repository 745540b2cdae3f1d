package compare

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate"

	"github.com/writegc/writegc/internal/testkit"
)

var heap100 = Key{Set: "matrix", Kind: "heap", Value: 100}

// file builds a File of one scenario's figures.
func file(path string, k Key, series map[Unit][]float64) *File {
	f := &File{Path: path, Config: map[string]string{}}
	for _, u := range Units() {
		if vs, ok := series[u]; ok {
			f.Series = append(f.Series, Series{Key: k, Unit: u, Values: vs})
		}
	}
	return f
}

// around is n values spread a little around v (a quiet machine's noise).
func around(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v * (1 + 0.01*float64(i%3-1) + 0.001*float64(i))
	}
	return out
}

func row(t *testing.T, rep *Report, u Unit) Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Unit == u {
			return r
		}
	}
	t.Fatalf("no row for %s", u)
	return Row{}
}

// TestSameRunsPass: the same figures (with noise) on both sides: nothing
// regresses.
func TestSameRunsPass(t *testing.T) {
	s := map[Unit][]float64{MBps: around(40, 5), ObjectsPerEntry: around(2, 5), GCCPUNsPerPut: around(400, 5)}
	rep, err := Compare(file("old", heap100, s), file("new", heap100, s), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if regs := rep.Regressions(); len(regs) > 0 || len(rep.Rows) != 3 {
		t.Fatalf("%d rows, regressions %v", len(rep.Rows), regs)
	}
	if r := row(t, rep, ObjectsPerEntry); r.Verdict != same || !r.Tested || r.P < 0.05 {
		t.Errorf("row %+v", r)
	}
}

// TestDoubledObjectsRegress: objects/entry twice as many in every run is a
// regression named with its scenario, figure, change and p-value.
func TestDoubledObjectsRegress(t *testing.T) {
	old := file("old", heap100, map[Unit][]float64{ObjectsPerEntry: around(1, 5), MBps: around(40, 5)})
	new := file("new", heap100, map[Unit][]float64{ObjectsPerEntry: around(2, 5), MBps: around(40, 5)})
	rep, err := Compare(old, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	regs := rep.Regressions()
	if len(regs) != 1 {
		t.Fatalf("regressions %v", regs)
	}
	if got, want := regs[0].Message(), "matrix/heap/100B objects/entry +100% (p=0.008)"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "yes    regressed") || !strings.Contains(b.String(), "regressed: matrix/heap/100B objects/entry +100% (p=0.008)") {
		t.Errorf("text:\n%s", b.String())
	}
}

// TestDirections: a drop of a higher-is-better figure regresses, a rise
// of it is better, and the same for lower-is-better the other way round
// (every unit gated); a significant change within the threshold is the
// same.
func TestDirections(t *testing.T) {
	for _, tc := range []struct {
		unit     Unit
		old, new float64
		want     benchgate.Verdict
	}{
		{MBps, 40, 20, regressed},
		{MBps, 40, 80, better},
		{SustainableMBps, 40, 30, regressed},
		{PauseP99Ns, 1e6, 2e6, regressed},
		{GCCPUNsPerPut, 400, 200, better},
		{GCCPUNsPerPut, 400, 420, same},    // significant, within 10%
		{GCCPUNsPerPut, 0, 100, regressed}, // from nothing: +Inf
	} {
		rep, err := Compare(file("o", heap100, map[Unit][]float64{tc.unit: around(tc.old, 6)}),
			file("n", heap100, map[Unit][]float64{tc.unit: around(tc.new, 6)}), Options{Gate: Units()})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Rows[0]; r.Verdict != tc.want || r.Regressed() != (tc.want == regressed) {
			t.Errorf("%s %v -> %v: verdict %s (delta %v, p %v)", tc.unit, tc.old, tc.new, Word(r.Verdict), r.Delta, r.P)
		}
	}
}

// TestSingleRunInconclusive: with one run a side no p-value is possible:
// a change past the threshold, either way, is inconclusive and names the
// runs a side that would decide it; it fails only with Strict, and only
// on a gated unit. A change within the threshold is the same.
func TestSingleRunInconclusive(t *testing.T) {
	for _, tc := range []struct {
		new  float64
		want benchgate.Verdict
	}{{2, inconclusive}, {1.4, inconclusive}, {1.05, same}, {0.5, inconclusive}} {
		old := file("o", heap100, map[Unit][]float64{ObjectsPerEntry: {1}, MBps: {40}})
		new := file("n", heap100, map[Unit][]float64{ObjectsPerEntry: {tc.new}, MBps: {40 * tc.new}})
		rep, err := Compare(old, new, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := row(t, rep, ObjectsPerEntry)
		if r.Verdict != tc.want || r.Tested || !math.IsNaN(r.P) || r.Regressed() || len(rep.Failures()) > 0 {
			t.Errorf("new %v: %+v", tc.new, r)
		}
		if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "-count 4") {
			t.Errorf("notes %q", rep.Notes)
		}
		if tc.want != inconclusive {
			continue
		}
		if r.RunsNeeded != 4 || !strings.Contains(r.Message(), "(n=1: inconclusive, the U test needs 4 runs a side)") {
			t.Errorf("new %v: runs %d, message %q", tc.new, r.RunsNeeded, r.Message())
		}
		rep, err = Compare(old, new, Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.Failures(); len(f) != 1 || f[0].Unit != ObjectsPerEntry {
			t.Errorf("new %v strict: failures %+v (MB/s is inconclusive too, but not gated)", tc.new, f)
		}
	}
}

// TestInconclusiveText: the report prints the verdict and a line per
// inconclusive row with the runs a side that would decide it.
func TestInconclusiveText(t *testing.T) {
	rep, err := Compare(file("o", heap100, map[Unit][]float64{ObjectsPerEntry: {1}}),
		file("n", heap100, map[Unit][]float64{ObjectsPerEntry: {1.4}}), Options{Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"yes    inconclusive", "inconclusive: matrix/heap/100B objects/entry +40.0% (n=1: inconclusive, the U test needs 5 runs a side)",
		"-count 5 or more"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestSignificanceAndThreshold: a big change that is not significant
// (noisy samples that overlap) does not regress; a significant one that
// is within the threshold does not either.
func TestSignificanceAndThreshold(t *testing.T) {
	noisyOld := []float64{10, 30, 12, 28, 11, 29}
	noisyNew := []float64{13, 31, 14, 33, 12, 35}
	rep, err := Compare(file("o", heap100, map[Unit][]float64{PauseP99Ns: noisyOld}),
		file("n", heap100, map[Unit][]float64{PauseP99Ns: noisyNew}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Verdict != same || r.Regressed() {
		t.Errorf("noisy: %+v", r)
	}
	rep, err = Compare(file("o", heap100, map[Unit][]float64{PauseP99Ns: around(10, 8)}),
		file("n", heap100, map[Unit][]float64{PauseP99Ns: around(11.5, 8)}), Options{Threshold: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Verdict != same || !(r.P < 0.05) || math.IsInf(r.DeltaLo, 0) || !(r.DeltaLo <= r.Delta && r.Delta <= r.DeltaHi) {
		t.Errorf("within: %+v", r)
	}
}

// TestMissingEitherSide: a figure one side only has (a kind gone in NEW,
// one new in NEW) is a row with verdict missing, naming the side that has
// it; it passes, gated or not, and fails only under Strict.
func TestMissingEitherSide(t *testing.T) {
	arena := Key{Set: "matrix", Kind: "arena", Value: 100}
	old := file("o", heap100, map[Unit][]float64{MBps: {1}, ObjectsPerEntry: {1}})
	new := file("n", heap100, map[Unit][]float64{MBps: {1}})
	new.Series = append(new.Series, Series{Key: arena, Unit: MBps, Values: []float64{3}})
	rep, err := Compare(old, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Regressions()) != 0 || len(rep.Failures()) != 0 || len(rep.Rows) != 3 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	miss := rep.Missings()
	if len(miss) != 2 || miss[0].Only != "OLD" || miss[1].Only != "NEW" || !miss[0].Gated {
		t.Fatalf("missing rows %+v", miss)
	}
	for i, want := range []string{"matrix/heap/100B objects/entry: missing in NEW", "matrix/arena/100B MB/s: missing in OLD"} {
		if m := miss[i].Message(); !strings.HasPrefix(m, want) {
			t.Errorf("message %q, want %q...", m, want)
		}
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "missing: matrix/arena/100B MB/s: missing in OLD") ||
		!strings.Contains(b.String(), "kinds run: heap (OLD), arena, heap (NEW)") {
		t.Errorf("text (%v):\n%s", err, b.String())
	}
	rep, err = Compare(old, new, Options{Strict: true})
	if err != nil || len(rep.Failures()) != 2 {
		t.Fatalf("strict: %v %+v", err, rep.Failures())
	}
}

// TestAbsoluteFloor: near zero a ratio is noise: objects/entry 0.0012 to
// 0.0017 (+39%, every run apart) and 0 to 0.005 (+Inf%) are the same,
// under the unit's floor; 0 to 0.5 is not.
func TestAbsoluteFloor(t *testing.T) {
	for _, tc := range []struct {
		old, new float64
		want     benchgate.Verdict
	}{{0.0012, 0.0017, same}, {0, 0.005, same}, {0.0017, 0.0012, same}, {0, 0.5, regressed}, {0.5, 1, regressed}} {
		rep, err := Compare(file("o", heap100, map[Unit][]float64{ObjectsPerEntry: around(tc.old, 5)}),
			file("n", heap100, map[Unit][]float64{ObjectsPerEntry: around(tc.new, 5)}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Rows[0]; r.Verdict != tc.want {
			t.Errorf("%v -> %v: %s (delta %v, p %v)", tc.old, tc.new, Word(r.Verdict), r.Delta, r.P)
		}
	}
	// One run a side: under the floor is same, not inconclusive.
	rep, err := Compare(file("o", heap100, map[Unit][]float64{ObjectsPerEntry: {0.0012}}),
		file("n", heap100, map[Unit][]float64{ObjectsPerEntry: {0.0017}}), Options{Strict: true})
	if err != nil || rep.Rows[0].Verdict != same || len(rep.Failures()) > 0 {
		t.Errorf("one run under the floor: %v %+v", err, rep.Rows)
	}
}

// TestBadFigures: a NaN, infinite or negative value, or a row without
// values, is bad input naming the side, the row, the unit and the value;
// the statistics never see it.
func TestBadFigures(t *testing.T) {
	good := file("o", heap100, map[Unit][]float64{ObjectsPerEntry: {1, 1}})
	for _, tc := range []struct {
		v    []float64
		says string
	}{{[]float64{1, math.NaN()}, "value NaN"}, {[]float64{math.Inf(1)}, "value +Inf"}, {[]float64{-1}, "value -1"}, {[]float64{}, "no values"}} {
		bad := file("n", heap100, map[Unit][]float64{ObjectsPerEntry: tc.v})
		_, err := Compare(good, bad, Options{})
		if !errors.Is(err, ErrBadInput) || !errors.Is(err, ErrBadFigure) ||
			!strings.Contains(fmt.Sprint(err), "NEW n: matrix/heap/100B objects/entry: "+tc.says) {
			t.Errorf("%v: %v", tc.v, err)
		}
		if _, err := Compare(bad, good, Options{}); !errors.Is(err, ErrBadFigure) || !strings.Contains(fmt.Sprint(err), "OLD n: matrix/heap/100B objects/entry: "+tc.says) {
			t.Errorf("%v as OLD: %v", tc.v, err)
		}
	}
}

// TestExtraRuns: a row with more values than gcstress-count says the file
// holds (a repeated line) is bad input naming the row; as many or fewer
// pass; a gcstress-count that is not a count is refused.
func TestExtraRuns(t *testing.T) {
	good := file("o", heap100, map[Unit][]float64{ObjectsPerEntry: {1}})
	good.Config[CountKey] = "1"
	dup := file("n", heap100, map[Unit][]float64{ObjectsPerEntry: {1, 1}, MBps: {1}})
	dup.Config[CountKey] = "1"
	_, err := Compare(good, dup, Options{})
	if !errors.Is(err, ErrBadInput) || !errors.Is(err, ErrExtraRuns) ||
		!strings.Contains(fmt.Sprint(err), "NEW n: matrix/heap/100B objects/entry: 2 results, but gcstress-count says the file holds 1 round(s)") {
		t.Errorf("duplicated: %v", err)
	}
	dup.Config[CountKey] = "2"
	if _, err := Compare(good, dup, Options{}); err != nil {
		t.Errorf("count 2: %v", err)
	}
	for _, c := range []string{"0", "-1", "x", ""} {
		dup.Config[CountKey] = c
		if _, err := Compare(good, dup, Options{}); !errors.Is(err, ErrExtraRuns) {
			t.Errorf("gcstress-count %q: %v", c, err)
		}
	}
}

// TestBadInputAndOptions: nothing in common, options out of range, and
// folders that are not results folders are errors, not passes.
func TestBadInputAndOptions(t *testing.T) {
	a := file("o", heap100, map[Unit][]float64{MBps: {1}})
	b := file("n", Key{Set: "matrix", Kind: "arena", Value: 100}, map[Unit][]float64{MBps: {1}})
	if _, err := Compare(a, b, Options{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("nothing in common: %v", err)
	}
	for _, o := range []Options{{Alpha: 1}, {Alpha: -0.1}, {Alpha: math.NaN()}, {Threshold: -1}, {Threshold: 11}, {Threshold: math.Inf(1)}, {Gate: []Unit{"ns/op"}}} {
		if _, err := Compare(a, a, o); !errors.Is(err, ErrBadOption) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	dir := t.TempDir()
	good := testkit.Dir(t, dir, "good", map[string]string{FileName: heap100.Name() + " \t1\t2 MB/s\n"})
	garbage := testkit.Dir(t, dir, "garbage", map[string]string{FileName: "garbage\n"})
	empty := testkit.Dir(t, dir, "empty", nil)
	for _, tc := range [][2]string{{filepath.Join(dir, "nosuch"), good}, {good, empty}, {garbage, good}, {good, filepath.Join(good, FileName)}} {
		if _, err := Dirs(tc[0], tc[1], Options{}); !errors.Is(err, ErrBadInput) {
			t.Errorf("%v: %v", tc, err)
		}
	}
	if rep, err := Dirs(good, good, Options{}); err != nil || len(rep.Regressions()) != 0 {
		t.Errorf("a folder with itself: %v", err)
	}
}

// TestMinP: the U test's smallest p-values, from benchmath.
func TestMinP(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		want   float64
	}{{1, 1, 1}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {3, 5, 2.0 / 56}, {0, 5, 1}} {
		if got := MinP(tc.n1, tc.n2); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("MinP(%d, %d) = %v, want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
	if n := RunsFor(0.05); n != 4 {
		t.Errorf("RunsFor(0.05) = %d", n)
	}
	if n := RunsFor(0.01); n != 5 {
		t.Errorf("RunsFor(0.01) = %d", n)
	}
}

// TestMachineSetting: runs from different machines are compared, and the
// machine is named among the settings that differ, on every row.
func TestMachineSetting(t *testing.T) {
	a := file("o", heap100, map[Unit][]float64{MBps: {1}})
	b := file("n", heap100, map[Unit][]float64{MBps: {1}})
	a.Config["cpu"], b.Config["cpu"] = "A", "B"
	rep, err := Compare(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Settings) != 1 || rep.Settings[0].String() != "CPU model: A (OLD), B (NEW)" || rep.Settings[0].Rows != nil {
		t.Errorf("settings %+v", rep.Settings)
	}
	if d := rep.Rows[0].Differs; len(d) != 1 || d[0] != "CPU model" {
		t.Errorf("row differs %q", d)
	}
}

// TestDefaultGateIsObjectsPerEntry: by default only objects/entry fails a
// comparison; a timing figure that got worse is reported "worse (not
// gated)" and passes, unless asked for.
func TestDefaultGateIsObjectsPerEntry(t *testing.T) {
	old := file("o", heap100, map[Unit][]float64{MBps: around(40, 6), ObjectsPerEntry: around(3, 6)})
	slower := file("n", heap100, map[Unit][]float64{MBps: around(20, 6), ObjectsPerEntry: around(3, 6)})
	rep, err := Compare(old, slower, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Regressions()) > 0 {
		t.Errorf("MB/s halved failed the default gate: %+v", rep.Rows)
	}
	var b strings.Builder
	if r := row(t, rep, MBps); r.Verdict != worse || r.Gated || r.Regressed() {
		t.Errorf("MB/s halved: %+v", r)
	}
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "no     worse") {
		t.Errorf("the slower MB/s is not reported: %v\n%s", err, b.String())
	}
	doubled := file("n", heap100, map[Unit][]float64{MBps: around(40, 6), ObjectsPerEntry: around(6, 6)})
	if rep, err = Compare(old, doubled, Options{}); err != nil || len(rep.Regressions()) == 0 {
		t.Errorf("doubled objects/entry passed the default gate (%v)", err)
	}
}

// TestVerdictNames: the six verdicts print as the contract names them.
func TestVerdictNames(t *testing.T) {
	var got []string
	for _, v := range []benchgate.Verdict{same, better, worse, inconclusive, missingInNew, missingInOld, regressed} {
		got = append(got, Word(v))
	}
	if want := "same better worse inconclusive missing missing regressed"; strings.Join(got, " ") != want {
		t.Errorf("verdicts %q, want %q", got, want)
	}
}

// TestDirsNameBadLines: through a folder, a bench.txt line with a NaN,
// infinite or negative figure is bad input naming the file, line,
// scenario, unit and value; a repeated line against gcstress-count names
// the row.
func TestDirsNameBadLines(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, body string) string {
		return testkit.Dir(t, dir, name, map[string]string{FileName: body})
	}
	arena := Key{Set: "matrix", Kind: "arena", Value: 1000}
	good := mk("good", "gcstress-count: 1\n"+heap100.Name()+" \t1\t2 objects/entry\n")
	nan := mk("nan", heap100.Name()+" \t1\t2 objects/entry\n"+arena.Name()+" \t1\t3 MB/s\tNaN objects/entry\n")
	neg := mk("neg", arena.Name()+" \t1\t-2 pause-p99-ns\n")
	dup := mk("dup", "gcstress-count: 1\n"+heap100.Name()+" \t1\t2 objects/entry\n"+heap100.Name()+" \t1\t2 objects/entry\n")
	for _, tc := range []struct {
		dir, says string
		is        error
	}{
		{nan, filepath.Join(nan, FileName) + ":2: matrix/arena/1000B objects/entry value NaN: want a finite number", ErrBadFile},
		{neg, ":1: matrix/arena/1000B pause-p99-ns value -2: want a non-negative number", ErrBadFile},
		{dup, "matrix/heap/100B objects/entry: 2 results, but gcstress-count says the file holds 1 round(s)", ErrExtraRuns},
	} {
		_, err := Dirs(good, tc.dir, Options{})
		if !errors.Is(err, ErrBadInput) || !errors.Is(err, tc.is) || !strings.Contains(fmt.Sprint(err), tc.says) || strings.Contains(fmt.Sprint(err), "\n") {
			t.Errorf("%s: %v", filepath.Base(tc.dir), err)
		}
	}
}
