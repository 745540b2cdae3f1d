package benchgate

import (
	"bytes"
	"os"
	"path/filepath"
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
		Period:     10_000_000,
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

func TestDiffProfiles(t *testing.T) {
	base := synthProfile(map[string]int64{
		"memtable.put;bench.Loop":                  600,
		"runtime.mallocgc;memtable.put;bench.Loop": 300,
		"hash;bench.Loop":                          100,
	})
	// head: mallocgc went from 30% to 50% of the samples, put's own work shrank.
	head := synthProfile(map[string]int64{
		"memtable.put;bench.Loop":                  400,
		"runtime.mallocgc;memtable.put;bench.Loop": 500,
		"hash;bench.Loop":                          100,
	})
	got, err := DiffProfiles(base, head, "cpu", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Func != "runtime.mallocgc" {
		t.Fatalf("got %+v, want only runtime.mallocgc (the one flat share that grew)", got)
	}
	f := got[0]
	if f.BaseFlat != 0.3 || f.HeadFlat != 0.5 || f.BaseCum != 0.3 || f.HeadCum != 0.5 {
		t.Errorf("mallocgc %+v, want flat and cum 30%% -> 50%%", f)
	}
	if _, err := DiffProfiles(base, head, "alloc_space", 5); err == nil {
		t.Error("a CPU profile has no alloc_space: want an error")
	}

	// Through files and into both reports.
	dir := t.TempDir()
	write := func(name string, p *profile.Profile) string {
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
	files := []ProfileFiles{{Benchmark: "BenchmarkPut-2", BaseCPU: write("b.cpu", base), HeadCPU: write("h.cpu", head)}}
	diffs := DiffProfileFiles(files, DefaultProfileTop)
	if len(diffs) != 2 || diffs[0].Err != "" || len(diffs[0].Funcs) != 1 || diffs[1].Err != "not captured" {
		t.Fatalf("diffs %+v, want a CPU diff and an uncaptured allocation profile", diffs)
	}
	rep := &Report{Profiles: diffs}
	var text, md bytes.Buffer
	rep.WriteText(&text)
	rep.WriteMarkdown(&md)
	for _, want := range []string{"BenchmarkPut-2", "got slower (CPU time", "got slower (bytes allocated", "runtime.mallocgc", "30.0%", "50.0%", "no profile comparison: not captured"} {
		if !strings.Contains(text.String(), want) || !strings.Contains(md.String(), want) {
			t.Errorf("reports lack %q:\n%s\n%s", want, text.String(), md.String())
		}
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
