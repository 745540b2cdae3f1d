package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/gcstress"

	"github.com/writegc/writegc/gcstress/compare"
	"github.com/writegc/writegc/internal/testkit"
)

// pairStoreDouble, set in a run's environment, makes the pairstore engine
// of its children hold two heap objects per entry instead of one: the
// "commit that doubles objects per entry" of the compare tests. Children
// inherit the parent's environment.
const pairStoreDouble = "WRITEGC_TEST_PAIRSTORE_DOUBLE"

// The engine is registered in every process of this test binary, the
// children included (they run TestMain's Main).
func init() {
	gcstress.RegisterEngine("pairstore", func(gcstress.Scenario) (gcstress.Engine, error) {
		return &pairStore{double: os.Getenv(pairStoreDouble) == "1"}, nil
	})
}

// pairStore keeps every entry: one allocation of key and value together,
// or (double) a copy of the key and one of the value. Safe for concurrent
// use.
type pairStore struct {
	double bool
	mu     sync.Mutex
	keep   [][]byte
}

func (s *pairStore) Put(key, value []byte) error {
	var add [][]byte
	if s.double {
		add = [][]byte{slices.Clone(key), slices.Clone(value)}
	} else {
		add = [][]byte{append(append(make([]byte, 0, len(key)+len(value)), key...), value...)}
	}
	s.mu.Lock()
	s.keep = append(s.keep, add...)
	s.mu.Unlock()
	return nil
}

func (s *pairStore) Stats() gcstress.EngineStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := int64(len(s.keep))
	if s.double {
		n /= 2
	}
	return gcstress.EngineStats{Entries: n}
}

func (s *pairStore) Close() error { return nil }

// compareRun runs a tiny matrix of heap and pairstore, -count 5 (the
// fewest runs a side at which the U test can reach p < 0.05 with room),
// into a new folder and returns it.
func compareRun(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	var stderr syncBuf
	args := []string{"-quick", "-scenario", "matrix", "-kinds", "heap,pairstore", "-values", "100", "-keys", "20K",
		"-memstore", "64MB", "-regions", "1", "-count", "5", "-out", out}
	if code := Main(context.Background(), args, io.Discard, &stderr); code != ExitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr.String())
	}
	return out
}

// TestCompareEndToEnd: compare of two runs of the
// same code passes (exit 0); a run whose engine holds twice the heap
// objects per entry fails it (exit 1), naming the scenario and
// objects/entry. The runs are real (children of this binary, 10 each).
// The same-code case gates objects/entry only: a machine shared with
// other builds moves MB/s, GC CPU and pauses between two runs made one
// after the other by more than 10% (the unit tests of package compare
// cover those figures' gating).
func TestCompareEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gcstress four times: make test-slow")
	}
	old, same := compareRun(t), compareRun(t)
	t.Setenv(pairStoreDouble, "1")
	doubled := compareRun(t)
	var sum gcstress.Summary
	b, err := os.ReadFile(filepath.Join(old, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) != 10 || sum.Results[0].Scenario.Name != "heap/100B" || sum.Results[0].Scenario.Repeat != 1 ||
		sum.Results[9].Scenario.Name != "pairstore/100B" || sum.Results[9].Scenario.Repeat != 5 {
		t.Fatalf("%d results, first %+v", len(sum.Results), sum.Results[0].Scenario)
	}
	if man, err := os.ReadFile(filepath.Join(old, gcstress.ManifestFile)); err != nil || !strings.Contains(string(man), `"`+compare.FileName+`"`) {
		t.Errorf("the manifest does not list %s: %v", compare.FileName, err)
	}
	var stdout, stderr syncBuf
	if code := Main(context.Background(), []string{"compare", "-gate", "objects/entry", old, same}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("same code: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout, stderr = syncBuf{}, syncBuf{}
	code := Main(context.Background(), []string{"compare", old, doubled}, &stdout, &stderr)
	// Two objects per entry against one, plus a few objects in all (the
	// store's slice, the harness): about +99% or +100%, every run of five
	// apart (p=0.008, the least p of 5+5 runs).
	want := regexp.MustCompile(`matrix/pairstore/100B objects/entry \+(99|100)(\.[0-9])?% \(p=0\.008\)`)
	if code != ExitFailure || !want.MatchString(stderr.String()) || !want.MatchString(stdout.String()) {
		t.Fatalf("doubled: exit %d, want 1 naming %s\n%s%s", code, want, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String(), "matrix/heap/100B objects/entry +") {
		t.Errorf("heap's objects/entry regressed too:\n%s", stdout.String())
	}
}

// TestCompareExitCodes: 0 no regression, 1 a gated figure regressed, 2 bad
// input or flags, on hand-written bench.txt files.
func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, body string) string {
		if body == "" {
			return testkit.Dir(t, dir, name, nil)
		}
		return mkFolder(t, dir, name, body)
	}
	line := func(objs string) string {
		return "BenchmarkGCStress/set=matrix/kind=heap/value=100 \t1000\t" + objs + " objects/entry\n"
	}
	one, two := mk("one", line("1")), mk("two", line("2"))
	garbage, none := mk("garbage", "not a benchmark file\n"), mk("none", "")
	huge := mk("huge", line("1")+strings.Repeat("9", 5<<10)+"\n")
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{one, one}, ExitOK, ""},
		{[]string{one, two}, ExitOK, ""}, // inconclusive: one run a side
		{[]string{"-strict", one, two}, ExitFailure, "matrix/heap/100B objects/entry +100% (n=1: inconclusive, the U test needs 4 runs a side)"},
		{[]string{two, one}, ExitOK, ""},
		{[]string{"-strict", "-threshold", "1.5", one, two}, ExitOK, ""},
		{[]string{"-strict", "-threshold", "150%", one, two}, ExitOK, ""},
		{[]string{"-gate", "MB/s", one, two}, ExitOK, ""},
		{[]string{one, filepath.Join(dir, "nosuch")}, ExitUsage, "nosuch is not a results folder"},
		{[]string{one, none}, ExitUsage, "has no bench.txt"},
		{[]string{garbage, one}, ExitUsage, "not a gcstress bench.txt"},
		{[]string{one, huge}, ExitUsage, "size limits"},
		{[]string{one}, ExitUsage, "want two results folders"},
		{[]string{"-alpha", "2", one, one}, ExitUsage, "-alpha"},
		{[]string{"-threshold", "10x", one, one}, ExitUsage, "-threshold"},
		{[]string{"-gate", "ns/op", one, one}, ExitUsage, "ns/op"},
		{[]string{"-nosuch", one, one}, ExitUsage, "nosuch"},
	} {
		var stdout, stderr syncBuf
		code := Main(context.Background(), append([]string{"compare"}, tc.args...), &stdout, &stderr)
		if code != tc.want || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("compare %v: exit %d, want %d saying %q\n%s%s", tc.args, code, tc.want, tc.says, stdout.String(), stderr.String())
		}
	}
}

// TestCountFlag: -count outside 1..100 is a usage error naming the flag;
// within it, every scenario runs that often, round by round.
func TestCountFlag(t *testing.T) {
	for _, n := range []string{"0", "-1", "101", "x"} {
		var stderr syncBuf
		if code := Main(context.Background(), []string{"-out", t.TempDir(), "-count", n}, io.Discard, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "-count") {
			t.Errorf("-count %s: exit %d, %q", n, code, stderr.String())
		}
	}
	c, err := ParseFlags([]string{"-count", "3", "-kinds", "heap,arena", "-values", "10,100", "-scenario", "matrix"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range gcstress.Expand(c) {
		got = append(got, s.Name+"#"+string(rune('0'+s.Repeat)))
	}
	round := []string{"heap/10B", "arena/10B", "heap/100B", "arena/100B"}
	var want []string
	for r := 1; r <= 3; r++ {
		for _, n := range round {
			want = append(want, n+"#"+string(rune('0'+r)))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// mkFolder makes a results folder under dir holding body as its bench.txt.
func mkFolder(t *testing.T, dir, name, body string) string {
	t.Helper()
	return testkit.Dir(t, dir, name, map[string]string{compare.FileName: body})
}

// benchLines is a bench.txt of count rounds of heap/100B and arena/100B,
// objects/entry of heap scaled by heapObjs (arena's stays put).
func benchLines(count int, heapObjs float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gcstress-count: %d\n", count)
	for i := range count {
		noise := 1 + 0.002*float64(i)
		fmt.Fprintf(&b, "BenchmarkGCStress/set=matrix/kind=heap/value=100 \t1000\t%g MB/s\t%g objects/entry\n", 40*noise, 3*heapObjs*noise)
		fmt.Fprintf(&b, "BenchmarkGCStress/set=matrix/kind=arena/value=100 \t1000\t%g MB/s\t%g objects/entry\n", 90*noise, 0.002*noise)
	}
	return b.String()
}

// TestCompareInconclusive: a compare that never
// cries wolf: two one-run folders whose objects/entry differ by 40% exit
// 0 saying inconclusive and how many runs a side would decide it; with
// -strict they exit 1 naming the row; five runs a side of a doubled
// objects/entry exit 1 naming it, -strict or not.
func TestCompareInconclusive(t *testing.T) {
	dir := t.TempDir()
	old1, new1 := mkFolder(t, dir, "old1", benchLines(1, 1)), mkFolder(t, dir, "new1", benchLines(1, 1.4))
	old5, new5 := mkFolder(t, dir, "old5", benchLines(5, 1)), mkFolder(t, dir, "new5", benchLines(5, 2))
	row := regexp.MustCompile(`matrix/heap/100B +objects/entry +3 ± ∞ +4\.2 ± ∞ +\+40\.0% +∞ +n/a +yes +inconclusive`)
	hint := "inconclusive: matrix/heap/100B objects/entry +40.0% (n=1: inconclusive, the U test needs 4 runs a side)"
	var stdout, stderr syncBuf
	if code := Main(context.Background(), []string{"compare", old1, new1}, &stdout, &stderr); code != ExitOK ||
		!row.MatchString(stdout.String()) || !strings.Contains(stdout.String(), hint) || !strings.Contains(stdout.String(), "-count 4 or more") {
		t.Errorf("one run a side: exit %d, want 0 with %q\n%s%s", code, hint, stdout.String(), stderr.String())
	}
	stdout, stderr = syncBuf{}, syncBuf{}
	if code := Main(context.Background(), []string{"compare", "-strict", old1, new1}, &stdout, &stderr); code != ExitFailure ||
		!strings.Contains(stderr.String(), "compare: inconclusive (-strict): matrix/heap/100B objects/entry +40.0% (n=1: inconclusive") {
		t.Errorf("-strict: exit %d, want 1 naming the row\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, strict := range [][]string{nil, {"-strict"}} {
		stdout, stderr = syncBuf{}, syncBuf{}
		args := append(append([]string{"compare"}, strict...), old5, new5)
		if code := Main(context.Background(), args, &stdout, &stderr); code != ExitFailure ||
			!strings.Contains(stderr.String(), "regressed: matrix/heap/100B objects/entry +100% (p=0.008)") ||
			strings.Contains(stderr.String(), "arena") {
			t.Errorf("%v: exit %d, want 1 naming heap's objects/entry only\n%s%s", args, code, stdout.String(), stderr.String())
		}
	}
}

// TestCompareThresholdSpellings: -threshold 10% and 0.1 are one value;
// a bad flag value is one line with an example, exit 2, without the usage;
// -h prints the usage, exit 0.
func TestCompareThresholdSpellings(t *testing.T) {
	dir := t.TempDir()
	old5, new5 := mkFolder(t, dir, "old5", benchLines(5, 1)), mkFolder(t, dir, "new5", benchLines(5, 1.2))
	for _, tc := range []struct {
		threshold string
		want      int
	}{{"10%", ExitFailure}, {"0.1", ExitFailure}, {"25%", ExitOK}, {"0.25", ExitOK}} {
		var stdout, stderr syncBuf
		if code := Main(context.Background(), []string{"compare", "-threshold", tc.threshold, old5, new5}, &stdout, &stderr); code != tc.want {
			t.Errorf("-threshold %s: exit %d, want %d\n%s%s", tc.threshold, code, tc.want, stdout.String(), stderr.String())
		}
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-threshold", "10x"}, "like 10%"},
		{[]string{"-threshold", "0%"}, "like 10%"},
		{[]string{"-threshold", "NaN"}, "like 10%"},
		{[]string{"-threshold"}, "e.g. gcstress compare -threshold 10%"},
		{[]string{"-alpha", "x"}, "like 0.05"},
		{[]string{"-alpha", "1"}, "like 0.05"},
		{[]string{"-nosuch"}, "e.g. gcstress compare -threshold 10%"},
	} {
		var stdout, stderr syncBuf
		code := Main(context.Background(), append([]string{"compare"}, tc.args...), &stdout, &stderr)
		if out := stderr.String(); code != ExitUsage || !strings.Contains(out, tc.says) || strings.Count(out, "\n") != 1 || strings.Contains(out, "usage: gcstress compare") {
			t.Errorf("%v: exit %d, want 2 and one line saying %q\n%s", tc.args, code, tc.says, out)
		}
	}
	var stdout, stderr syncBuf
	if code := Main(context.Background(), []string{"compare", "-h"}, &stdout, &stderr); code != ExitOK ||
		!strings.Contains(stderr.String(), "usage: gcstress compare") || !strings.Contains(stderr.String(), "-strict") ||
		!strings.Contains(stderr.String(), "(default 10%)") {
		t.Errorf("-h: exit %d\n%s", code, stderr.String())
	}
}

// TestCompareBadFigures: a NaN figure or a line repeated against
// gcstress-count is exit 2 naming the row.
func TestCompareBadFigures(t *testing.T) {
	dir := t.TempDir()
	good := mkFolder(t, dir, "good", benchLines(1, 1))
	nan := mkFolder(t, dir, "nan", strings.Replace(benchLines(1, 1), "3 objects/entry", "NaN objects/entry", 1))
	dup := mkFolder(t, dir, "dup", benchLines(1, 1)+strings.SplitAfter(benchLines(1, 1), "\n")[1])
	for _, tc := range []struct {
		dir, says string
	}{
		{nan, "bench.txt:2: matrix/heap/100B objects/entry value NaN"},
		{dup, "matrix/heap/100B MB/s: 2 results, but gcstress-count says the file holds 1 round(s)"},
	} {
		var stdout, stderr syncBuf
		if code := Main(context.Background(), []string{"compare", good, tc.dir}, &stdout, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("%s: exit %d, want 2 saying %q\n%s%s", filepath.Base(tc.dir), code, tc.says, stdout.String(), stderr.String())
		}
	}
}

// TestCompareFailureMessage: regressed rows come first and wrap
// errRegressed; -strict's inconclusive rows follow, or alone wrap
// errInconclusive; -strict's missing rows come last, or alone wrap
// errMissing.
func TestCompareFailureMessage(t *testing.T) {
	k := compare.Key{Set: "matrix", Kind: "heap", Value: 100}
	reg := compare.Row{Key: k, Unit: compare.ObjectsPerEntry, Tested: true, P: 0.008, Delta: 1, Verdict: benchgate.Regressed}
	inc := compare.Row{Key: k, Unit: compare.MBps, Old: compare.Centre{N: 1}, New: compare.Centre{N: 1}, Delta: -0.5,
		Verdict: benchgate.Underpowered, RunsNeeded: 4}
	err := failures([]compare.Row{inc, reg})
	want := "compare: regressed: matrix/heap/100B objects/entry +100% (p=0.008); inconclusive (-strict): " +
		"matrix/heap/100B MB/s -50.0% (n=1: inconclusive, the U test needs 4 runs a side)"
	if !errors.Is(err, errRegressed) || fmt.Sprint(err) != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if err := failures([]compare.Row{inc}); !errors.Is(err, errInconclusive) || errors.Is(err, errRegressed) {
		t.Errorf("inconclusive alone: %v", err)
	}
	miss := compare.Row{Key: k, Unit: compare.MBps, Missing: true, Only: "OLD", Verdict: benchgate.Missing}
	if err := failures([]compare.Row{miss, inc}); !errors.Is(err, errInconclusive) || errors.Is(err, errMissing) ||
		!strings.HasSuffix(fmt.Sprint(err), "; missing (-strict): matrix/heap/100B MB/s: missing in NEW (only OLD has it: the scenario did not run or failed in NEW)") {
		t.Errorf("inconclusive and missing: %v", err)
	}
	if err := failures([]compare.Row{miss}); !errors.Is(err, errMissing) || errors.Is(err, errRegressed) {
		t.Errorf("missing alone: %v", err)
	}
	if err := failures(nil); err != nil {
		t.Errorf("none: %v", err)
	}
}

// settingsFolder is a results folder of one run of each kind at 100 B
// values and GOGC gogc: bench.txt and the summary.json that records the
// scenarios' settings.
func settingsFolder(t *testing.T, dir, name string, gogc int, kinds ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("goversion: go1.26.0\ngcstress-count: 1\n")
	sum := gcstress.Summary{GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64"}
	for _, k := range kinds {
		s := gcstress.Scenario{Name: k + "/100B", Group: "matrix", Kind: k, Value: 100, Keys: 400_000, GOGC: gogc, Writers: 2}
		fmt.Fprintf(&b, "%s \t1000\t40 MB/s\t2 objects/entry\n", compare.KeyOf(s).Name())
		sum.Results = append(sum.Results, gcstress.Result{Scenario: s})
	}
	j, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.Dir(t, dir, name, map[string]string{compare.FileName: b.String(), "summary.json": string(j)})
}

// TestCompareSettingsAndMissing: compare of a GOGC 100 run with a GOGC 25
// run names the difference before the table and on the rows across it;
// the kind only OLD ran is missing, exit 0, and with -strict exit 1
// naming it.
func TestCompareSettingsAndMissing(t *testing.T) {
	dir := t.TempDir()
	old, new := settingsFolder(t, dir, "gogc100", 100, "heap", "arena"), settingsFolder(t, dir, "gogc25", 25, "heap")
	var stdout, stderr syncBuf
	code := Main(context.Background(), []string{"compare", old, new}, &stdout, &stderr)
	out := stdout.String()
	row := regexp.MustCompile(`matrix/arena/100B +objects/entry +2 ± ∞ +- .* missing`)
	if code != ExitOK || !strings.Contains(out, "GOGC: 100 (OLD), 25 (NEW)  [matrix/heap/100B]") ||
		strings.Index(out, "GOGC: 100") > strings.Index(out, "scenario ") || !strings.Contains(out, "differ: GOGC") || !row.MatchString(out) {
		t.Errorf("exit %d, want 0 naming GOGC and the missing arena\n%s%s", code, out, stderr.String())
	}
	stdout, stderr = syncBuf{}, syncBuf{}
	code = Main(context.Background(), []string{"compare", "-strict", old, new}, &stdout, &stderr)
	if code != ExitFailure || !strings.Contains(stderr.String(), "compare: missing (-strict): matrix/arena/100B MB/s: missing in NEW") {
		t.Errorf("-strict: exit %d, want 1 naming arena\n%s%s", code, stdout.String(), stderr.String())
	}
}
