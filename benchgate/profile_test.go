package benchgate

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// synthProfile builds a CPU profile whose samples are the given stacks
// (leaf first, function names) with the given nanosecond values.
func synthProfile(stacks map[string]int64) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     1, // a sample's worth is far below the values here

	}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for stack, ns := range stacks {
		var s profile.Sample
		for _, name := range strings.Split(stack, ";") {
			if funcs[name] == nil {
				funcs[name] = &profile.Function{ID: uint64(len(funcs) + 1), Name: name}
				p.Function = append(p.Function, funcs[name])
				locs[name] = &profile.Location{ID: uint64(len(locs) + 1), Line: []profile.Line{{Function: funcs[name]}}}
				p.Location = append(p.Location, locs[name])
			}
			s.Location = append(s.Location, locs[name])
		}
		s.Value = []int64{ns / p.Period, ns}
		p.Sample = append(p.Sample, &s)
	}
	return p
}

// writeProfile writes p into dir and returns its path.
func writeProfile(t *testing.T, dir, name string, p *profile.Profile) string {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The case profiles are for: one function gets 30% slower alone (its share of the
// profile stays about the same), while the profiler's and the scheduler's
// bookkeeping grows in share. Ranked by the growth of absolute cost per op,
// the slowed function comes first and the bookkeeping is left out.
func TestDiffProfilesNamesTheCulprit(t *testing.T) {
	const ops = 1000
	// Values are totals over the run's 1000 ops: Slowed costs 700 ns/op in
	// the base and 910 ns/op (+30%) in the head.
	base := synthProfile(map[string]int64{
		"example.com/m.Slowed;example.com/m.BenchmarkX;testing.(*B).runN": 700 * ops,
		"example.com/m.Steady;example.com/m.BenchmarkX;testing.(*B).runN": 300 * ops,
		"runtime.(*gQueue).pop;runtime.findRunnable;runtime.schedule":     1 * ops,
		"compress/flate.NewWriter;runtime/pprof.profileWriter":            1 * ops,
		"testing.(*B).runN": 1 * ops,
	})
	head := synthProfile(map[string]int64{
		"example.com/m.Slowed;example.com/m.BenchmarkX;testing.(*B).runN": 910 * ops,
		"example.com/m.Steady;example.com/m.BenchmarkX;testing.(*B).runN": 300 * ops,
		"runtime.(*gQueue).pop;runtime.findRunnable;runtime.schedule":     200 * ops,
		"compress/flate.NewWriter;runtime/pprof.profileWriter":            300 * ops,
		"testing.(*B).runN": 50 * ops,
	})
	got, err := DiffProfiles(base, head, SampleCPU, ops, ops, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Func != "example.com/m.Slowed" {
		t.Fatalf("got %+v, want example.com/m.Slowed first", got)
	}
	if f := got[0]; f.BaseFlat != 700 || f.HeadFlat != 910 || f.BaseCum != 700 || f.HeadCum != 910 {
		t.Errorf("Slowed %+v, want flat and cum 700 -> 910 ns/op", f)
	}
	for _, f := range got {
		if isBookkeeping(f.Func) || strings.Contains(f.Func, "pprof") {
			t.Errorf("%s listed: bookkeeping both sides have is left out", f.Func)
		}
		if f.Func == "example.com/m.Steady" {
			t.Errorf("Steady listed: its cost per op did not change")
		}
	}
	// The caller's cum grew (it calls Slowed) and follows, after Slowed.
	if len(got) != 2 || got[1].Func != "example.com/m.BenchmarkX" || got[1].CumGrowth() != 210 {
		t.Errorf("got %+v, want Slowed then BenchmarkX (cum +210 ns/op)", got)
	}

	// Shares would have missed it: Slowed's share is 70% -> 75% while the
	// bookkeeping's grew from 0.3% to 40%. A head that ran fewer ops does
	// not change the per-op view either.
	half := synthProfile(map[string]int64{
		"example.com/m.Slowed;example.com/m.BenchmarkX;testing.(*B).runN": 910 * ops / 2,
		"example.com/m.Steady;example.com/m.BenchmarkX;testing.(*B).runN": 300 * ops / 2,
	})
	got, err = DiffProfiles(base, half, SampleCPU, ops, ops/2, 5)
	if err != nil || len(got) == 0 || got[0].Func != "example.com/m.Slowed" || got[0].HeadFlat != 910 {
		t.Errorf("half the ops: %+v, %v; want Slowed first at 910 ns/op", got, err)
	}
	if _, err := DiffProfiles(base, head, SampleAllocSpace, ops, ops, 5); err == nil {
		t.Error("a CPU profile has no alloc_space: want an error")
	}
	if _, err := DiffProfiles(base, head, SampleCPU, 0, ops, 5); err == nil {
		t.Error("no op count: want an error")
	}
}

// Compression new in the head is listed (only compression both sides have
// is the profiler's), scheduler functions never are, and allocation rises
// below the floor are left out.
func TestDiffProfilesNewAndFloor(t *testing.T) {
	base := synthProfile(map[string]int64{"m.Put;m.Bench": 1000})
	head := synthProfile(map[string]int64{"m.Put;m.Bench": 1000, "compress/flate.(*compressor).deflate;m.Put;m.Bench": 5000, "runtime.futex;runtime.notesleep": 9000})
	got, err := DiffProfiles(base, head, SampleCPU, 10, 10, 5)
	if err != nil || len(got) != 3 || got[0].Func != "compress/flate.(*compressor).deflate" || got[1].Func != "m.Bench" || got[2].Func != "m.Put" {
		t.Errorf("got %+v, %v; want the head's new compress/flate call first, then its callers, no scheduler", got, err)
	}
	// With 10 ms CPU samples, one sample more is noise; three are listed.
	const ms = 10_000_000
	b, h := synthProfile(map[string]int64{"m.Put": 50 * ms}), synthProfile(map[string]int64{"m.Put": 53 * ms, "runtime.checkTimersNoP": ms})
	b.Period, h.Period = ms, ms
	if got, err := DiffProfiles(b, h, SampleCPU, 1000, 1000, 5); err != nil || len(got) != 1 || got[0].Func != "m.Put" {
		t.Errorf("got %+v, %v; want m.Put (3 samples more) only", got, err)
	}
	for _, st := range []string{SampleAllocSpace, SampleAllocObjects} {
		b, h := synthProfile(map[string]int64{"m.Setup": 100}), synthProfile(map[string]int64{"m.Setup": 150})
		b.SampleType[1].Type, h.SampleType[1].Type = st, st
		got, err := DiffProfiles(b, h, st, 1e6, 1e6, 5)
		if err != nil || len(got) != 0 {
			t.Errorf("%s: a rise of 50 per million ops: got %+v, %v; want none listed", st, got, err)
		}
	}
}

func TestDiffProfileFilesAndReports(t *testing.T) {
	base := synthProfile(map[string]int64{
		"memtable.put;bench.Loop":                  600,
		"runtime.mallocgc;memtable.put;bench.Loop": 300,
		"hash;bench.Loop":                          100,
	})
	head := synthProfile(map[string]int64{
		"memtable.put;bench.Loop":                  400,
		"runtime.mallocgc;memtable.put;bench.Loop": 500,
		"hash;bench.Loop":                          100,
	})
	dir := t.TempDir()
	files := []ProfileFiles{{Benchmark: "BenchmarkPut-2", BaseCPU: writeProfile(t, dir, "b.cpu", base), HeadCPU: writeProfile(t, dir, "h.cpu", head), BaseOps: 10, HeadOps: 10}}
	diffs := DiffProfileFiles(files, DefaultProfileTop)
	if len(diffs) != 3 || diffs[0].Err != "" || len(diffs[0].Funcs) != 1 || diffs[0].Funcs[0].Func != "runtime.mallocgc" ||
		diffs[1].Err != "not captured" || diffs[2].SampleType != SampleAllocObjects {
		t.Fatalf("diffs %+v, want a CPU diff naming mallocgc and uncaptured allocation profiles", diffs)
	}
	rep := &Report{Profiles: diffs}
	var text, md bytes.Buffer
	rep.WriteText(&text)
	rep.WriteMarkdown(&md)
	for _, want := range []string{"BenchmarkPut-2", "got slower (CPU time per op", "got slower (bytes allocated per op", "objects allocated per op",
		"runtime.mallocgc", "30ns", "50ns", "+20ns", "no profile comparison: not captured"} {
		if !strings.Contains(text.String(), want) || !strings.Contains(md.String(), want) {
			t.Errorf("reports lack %q:\n%s\n%s", want, text.String(), md.String())
		}
	}
	// An unreadable profile is named by its base name only.
	files[0].HeadCPU = filepath.Join(dir, "missing.cpu")
	if d := DiffProfileFiles(files, 3); d[0].Err != "missing.cpu: cannot open" {
		t.Errorf("Err %q, want the base name only", d[0].Err)
	}
}

func TestBenchRegexp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs int
		want  string
	}{
		{"BenchmarkPut/kind=heap/value=100B-2", 2, `^BenchmarkPut$/^kind=heap$/^value=100B$`},
		{"BenchmarkA/n-10", 1, `^BenchmarkA$/^n-10$`},
		{"BenchmarkA/x(1)-4", 4, `^BenchmarkA$/^x\(1\)$`},
	} {
		if got := benchRegexp(tc.name, tc.procs); got != tc.want {
			t.Errorf("benchRegexp(%q, %d) = %q, want %q", tc.name, tc.procs, got, tc.want)
		}
	}
}

// A benchmark whose B/op row did not move gets no "got slower (bytes
// allocated)" section, however the sampled allocation profiles differ;
// one whose B/op grew keeps it; CPU is always kept, and so is an
// allocation comparison of a benchmark without a B/op row.
func TestAddProfilesOnlyWhereRowMoved(t *testing.T) {
	rep := &Report{Options: Options{Alpha: 0.01}, Rows: []Row{
		{Key: Key{"BenchmarkA-2", "ns/op"}, Base: 100, Head: 130, P: 0.0001, Verdict: Regressed},
		{Key: Key{"BenchmarkA-2", "B/op"}, Base: 0, Head: 0, Exact: true, Verdict: Unchanged},
		{Key: Key{"BenchmarkA-2", "allocs/op"}, Base: 2, Head: 3, Exact: true, Verdict: Regressed},
		{Key: Key{"BenchmarkB-2", "ns/op"}, Base: 100, Head: 130, P: 0.0001, Verdict: Regressed},
		{Key: Key{"BenchmarkB-2", "B/op"}, Base: 100, Head: 101, P: 0.4, Verdict: Unchanged},
	}}
	diff := func(name, typ string) ProfileDiff {
		return ProfileDiff{Benchmark: name, SampleType: typ, Funcs: []FuncCost{{Func: "runtime.mallocgc", HeadFlat: 8.3}}}
	}
	rep.AddProfiles(diff("BenchmarkA-2", SampleCPU), diff("BenchmarkA-2", SampleAllocSpace), diff("BenchmarkA-2", SampleAllocObjects),
		diff("BenchmarkB-2", SampleAllocSpace), diff("BenchmarkC-2", SampleAllocSpace))
	var got []string
	for _, d := range rep.Profiles {
		got = append(got, d.Benchmark+" "+d.SampleType)
	}
	want := []string{"BenchmarkA-2 cpu", "BenchmarkA-2 alloc_objects", "BenchmarkC-2 alloc_space"}
	if !slices.Equal(got, want) {
		t.Errorf("profiles kept %q, want %q", got, want)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "where BenchmarkA-2 got slower (bytes allocated per op") {
		t.Errorf("bytes section for a B/op row of 0 -> 0:\n%s", b.String())
	}
}
