package compare

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/benchtxt"
)

var heap100 = benchtxt.Key{Set: "matrix", Kind: "heap", Value: 100}

// file builds a File of one scenario's figures.
func file(path string, k benchtxt.Key, series map[benchtxt.Unit][]float64) *benchtxt.File {
	f := &benchtxt.File{Path: path, Config: map[string]string{}}
	for _, u := range benchtxt.Units() {
		if vs, ok := series[u]; ok {
			f.Series = append(f.Series, benchtxt.Series{Key: k, Unit: u, Values: vs})
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

func row(t *testing.T, rep *Report, u benchtxt.Unit) Row {
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
	s := map[benchtxt.Unit][]float64{benchtxt.MBps: around(40, 5), benchtxt.ObjectsPerEntry: around(2, 5), benchtxt.GCCPUNsPerPut: around(400, 5)}
	rep, err := Compare(file("old", heap100, s), file("new", heap100, s), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if regs := rep.Regressions(); len(regs) > 0 || len(rep.Rows) != 3 {
		t.Fatalf("%d rows, regressions %v", len(rep.Rows), regs)
	}
	if r := row(t, rep, benchtxt.ObjectsPerEntry); r.Verdict != Same || !r.Tested || r.P < 0.05 {
		t.Errorf("row %+v", r)
	}
}

// TestDoubledObjectsRegress: objects/entry twice as many in every run is a
// regression named with its scenario, figure, change and p-value.
func TestDoubledObjectsRegress(t *testing.T) {
	old := file("old", heap100, map[benchtxt.Unit][]float64{benchtxt.ObjectsPerEntry: around(1, 5), benchtxt.MBps: around(40, 5)})
	new := file("new", heap100, map[benchtxt.Unit][]float64{benchtxt.ObjectsPerEntry: around(2, 5), benchtxt.MBps: around(40, 5)})
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
	if !strings.Contains(b.String(), "REGRESSED") || !strings.Contains(b.String(), "regressed: matrix/heap/100B objects/entry +100% (p=0.008)") {
		t.Errorf("text:\n%s", b.String())
	}
}

// TestDirections: a drop of a higher-is-better figure regresses, a rise
// of it is better, and the same for lower-is-better the other way round
// (every unit gated).
func TestDirections(t *testing.T) {
	for _, tc := range []struct {
		unit     benchtxt.Unit
		old, new float64
		want     Verdict
	}{
		{benchtxt.MBps, 40, 20, Worse},
		{benchtxt.MBps, 40, 80, Better},
		{benchtxt.SustainableMBps, 40, 30, Worse},
		{benchtxt.PauseP99Ns, 1e6, 2e6, Worse},
		{benchtxt.GCCPUNsPerPut, 400, 200, Better},
		{benchtxt.GCCPUNsPerPut, 400, 420, Within}, // significant, within 10%
		{benchtxt.GCCPUNsPerPut, 0, 100, Worse},    // from nothing: +Inf
	} {
		rep, err := Compare(file("o", heap100, map[benchtxt.Unit][]float64{tc.unit: around(tc.old, 6)}),
			file("n", heap100, map[benchtxt.Unit][]float64{tc.unit: around(tc.new, 6)}), Options{Gate: benchtxt.Units()})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Rows[0]; r.Verdict != tc.want || r.Regressed() != (tc.want == Worse) {
			t.Errorf("%s %v -> %v: verdict %s (delta %v, p %v)", tc.unit, tc.old, tc.new, r.Verdict, r.Delta, r.P)
		}
	}
}

// TestSingleRunThresholdOnly: with one run a side no p-value is possible:
// the threshold alone decides, and the row says so.
func TestSingleRunThresholdOnly(t *testing.T) {
	for _, tc := range []struct {
		new  float64
		want Verdict
	}{{2, Worse}, {1.05, Within}, {0.5, Better}} {
		rep, err := Compare(file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.ObjectsPerEntry: {1}}),
			file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.ObjectsPerEntry: {tc.new}}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Rows[0]
		if r.Verdict != tc.want || r.Tested || !math.IsNaN(r.P) {
			t.Errorf("new %v: %+v", tc.new, r)
		}
		if !strings.Contains(r.Message(), "(n=1, no significance)") {
			t.Errorf("message %q", r.Message())
		}
		if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "-count 4") {
			t.Errorf("notes %q", rep.Notes)
		}
	}
}

// TestSignificanceAndThreshold: a big change that is not significant
// (noisy samples that overlap) does not regress; a significant one that
// is within the threshold does not either.
func TestSignificanceAndThreshold(t *testing.T) {
	noisyOld := []float64{10, 30, 12, 28, 11, 29}
	noisyNew := []float64{13, 31, 14, 33, 12, 35}
	rep, err := Compare(file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.PauseP99Ns: noisyOld}),
		file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.PauseP99Ns: noisyNew}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Verdict != Same || r.Regressed() {
		t.Errorf("noisy: %+v", r)
	}
	rep, err = Compare(file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.PauseP99Ns: around(10, 8)}),
		file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.PauseP99Ns: around(11.5, 8)}), Options{Threshold: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Verdict != Within || !(r.P < 0.05) || math.IsInf(r.DeltaLo, 0) || !(r.DeltaLo <= r.Delta && r.Delta <= r.DeltaHi) {
		t.Errorf("within: %+v", r)
	}
}

// TestMissingFailsAddedDoesNot: a figure gone in NEW fails a gated row; one
// only NEW has is reported; -gate narrows what fails.
func TestMissingFailsAddedDoesNot(t *testing.T) {
	arena := benchtxt.Key{Set: "matrix", Kind: "arena", Value: 100}
	old := file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: {1}, benchtxt.ObjectsPerEntry: {1}})
	new := file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: {1}})
	new.Series = append(new.Series, benchtxt.Series{Key: arena, Unit: benchtxt.MBps, Values: []float64{3}})
	rep, err := Compare(old, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	regs := rep.Regressions()
	if len(regs) != 1 || regs[0].Verdict != Missing || !strings.Contains(regs[0].Message(), "missing in NEW") {
		t.Fatalf("regressions %+v", regs)
	}
	if r := rep.Rows[len(rep.Rows)-1]; r.Verdict != Added || r.Key != arena || r.Regressed() {
		t.Errorf("added row %+v", r)
	}
	rep, err = Compare(old, new, Options{Gate: []benchtxt.Unit{benchtxt.MBps}})
	if err != nil || len(rep.Regressions()) != 0 {
		t.Fatalf("-gate MB/s: %v %+v", err, rep.Regressions())
	}
}

// TestBadInputAndOptions: nothing in common, options out of range, and
// folders that are not results folders are errors, not passes.
func TestBadInputAndOptions(t *testing.T) {
	a := file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: {1}})
	b := file("n", benchtxt.Key{Set: "matrix", Kind: "arena", Value: 100}, map[benchtxt.Unit][]float64{benchtxt.MBps: {1}})
	if _, err := Compare(a, b, Options{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("nothing in common: %v", err)
	}
	for _, o := range []Options{{Alpha: 1}, {Alpha: -0.1}, {Alpha: math.NaN()}, {Threshold: -1}, {Threshold: 11}, {Threshold: math.Inf(1)}, {Gate: []benchtxt.Unit{"ns/op"}}} {
		if _, err := Compare(a, a, o); !errors.Is(err, ErrBadOption) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	garbage := filepath.Join(dir, "garbage")
	empty := filepath.Join(dir, "empty")
	for _, d := range []string{good, garbage, empty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(d, s string) {
		if err := os.WriteFile(filepath.Join(d, benchtxt.FileName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good, heap100.Name()+" \t1\t2 MB/s\n")
	write(garbage, "garbage\n")
	for _, tc := range [][2]string{{filepath.Join(dir, "nosuch"), good}, {good, empty}, {garbage, good}, {good, filepath.Join(good, benchtxt.FileName)}} {
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

// TestMachineNote: runs from different machines are compared, with a note.
func TestMachineNote(t *testing.T) {
	a := file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: {1}})
	b := file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: {1}})
	a.Config["cpu"], b.Config["cpu"] = "A", "B"
	rep, err := Compare(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(rep.Notes), `cpu differs: "A" (OLD) and "B" (NEW)`) {
		t.Errorf("notes %q", rep.Notes)
	}
}

// TestDefaultGateIsObjectsPerEntry: by default only objects/entry fails a
// comparison; a timing figure that got worse is reported "worse (not
// gated)" and passes, unless asked for.
func TestDefaultGateIsObjectsPerEntry(t *testing.T) {
	old := file("o", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: around(40, 6), benchtxt.ObjectsPerEntry: around(3, 6)})
	slower := file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: around(20, 6), benchtxt.ObjectsPerEntry: around(3, 6)})
	rep, err := Compare(old, slower, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Regressions()) > 0 {
		t.Errorf("MB/s halved failed the default gate: %+v", rep.Rows)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "worse (not gated)") {
		t.Errorf("the slower MB/s is not reported: %v\n%s", err, b.String())
	}
	doubled := file("n", heap100, map[benchtxt.Unit][]float64{benchtxt.MBps: around(40, 6), benchtxt.ObjectsPerEntry: around(6, 6)})
	if rep, err = Compare(old, doubled, Options{}); err != nil || len(rep.Regressions()) == 0 {
		t.Errorf("doubled objects/entry passed the default gate (%v)", err)
	}
}
