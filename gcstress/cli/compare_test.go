package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/benchtxt"
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

// TestCompareEndToEnd is the "done": compare of two runs of the
// same code passes (exit 0); a run whose engine holds twice the heap
// objects per entry fails it (exit 1), naming the scenario and
// objects/entry. The runs are real (children of this binary, 10 each).
// The same-code case gates objects/entry only: a machine shared with
// other builds moves MB/s, GC CPU and pauses between two runs made one
// after the other by more than 10% (the unit tests of package compare
// cover those figures' gating).
func TestCompareEndToEnd(t *testing.T) {
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
	if man, err := os.ReadFile(filepath.Join(old, gcstress.ManifestFile)); err != nil || !strings.Contains(string(man), `"`+benchtxt.FileName+`"`) {
		t.Errorf("the manifest does not list %s: %v", benchtxt.FileName, err)
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
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "" {
			if err := os.WriteFile(filepath.Join(d, benchtxt.FileName), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
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
		{[]string{one, two}, ExitFailure, "matrix/heap/100B objects/entry +100% (n=1, no significance)"},
		{[]string{two, one}, ExitOK, ""},
		{[]string{"-threshold", "1.5", one, two}, ExitOK, ""},
		{[]string{"-gate", "MB/s", one, two}, ExitOK, ""},
		{[]string{one, filepath.Join(dir, "nosuch")}, ExitUsage, "nosuch is not a results folder"},
		{[]string{one, none}, ExitUsage, "has no bench.txt"},
		{[]string{garbage, one}, ExitUsage, "not a gcstress bench.txt"},
		{[]string{one, huge}, ExitUsage, "size limits"},
		{[]string{one}, ExitUsage, "want two results folders"},
		{[]string{"-alpha", "2", one, one}, ExitUsage, "-alpha"},
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
