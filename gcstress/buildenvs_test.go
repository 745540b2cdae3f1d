package gcstress

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/benchtxt"
	"github.com/writegc/writegc/memtable"
)

func TestParseBuildEnvs(t *testing.T) {
	got, err := ParseBuildEnvs("greentea=; classic=GOEXPERIMENT=nogreenteagc GOAMD64=v1")
	want := []BuildEnv{{Name: "greentea"}, {Name: "classic", Env: []string{"GOEXPERIMENT=nogreenteagc", "GOAMD64=v1"}}}
	if err != nil || len(got) != 2 || got[0].Name != want[0].Name || len(got[0].Env) != 0 ||
		got[1].Name != want[1].Name || !slices.Equal(got[1].Env, want[1].Env) {
		t.Fatalf("ParseBuildEnvs = %+v, %v; want %+v", got, err, want)
	}
	if got, err := ParseBuildEnvs(" "); got != nil || err != nil {
		t.Errorf("blank: %+v, %v", got, err)
	}
	for _, bad := range []string{
		"a=;a=X=1",                              // duplicate name
		"=X=1",                                  // empty name
		"a=;",                                   // empty entry
		"greentea",                              // no '='
		"a=X",                                   // bad K=V
		"a=X=1 X=2",                             // a key twice
		"Classic=",                              // not a bench.txt name part
		"a=GOGC=50",                             // the scenario's variable
		"a=GOMEMLIMIT=1GiB",                     // likewise
		strings.Repeat("a=;", 9),                // too many
		"a=" + strings.Repeat("K", 5000) + "=1", // over buildenv's limit
	} {
		_, err := ParseBuildEnvs(bad)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-build-envs") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseBuildEnvs(%.30q) = %v; want one line of usage naming -build-envs", bad, err)
		}
	}
}

// Every scenario runs under each environment in turn, named apart.
func TestExpandPerBuildEnv(t *testing.T) {
	c := DefaultConfig()
	c.Kinds, c.Values, c.Sets = []string{memtable.KindHeap, memtable.KindArena}, []int64{100}, []string{SetMatrix, SetFailure}
	c.BuildEnvs = []BuildEnv{{Name: "greentea"}, {Name: "classic", Env: []string{"GOEXPERIMENT=nogreenteagc"}}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range Expand(c) {
		got = append(got, s.Name+" "+s.BuildEnv)
		if k := benchtxt.KeyOf(s); k.Env != s.BuildEnv || !strings.HasSuffix(k.Name(), "/env="+s.BuildEnv) {
			t.Errorf("%s: bench.txt key %v", s.Name, k.Name())
		}
	}
	want := []string{"heap/100B/env=greentea greentea", "heap/100B/env=classic classic", "arena/100B/env=greentea greentea",
		"arena/100B/env=classic classic", "failure/heap/env=greentea greentea", "failure/heap/env=classic classic",
		"failure/arena/env=greentea greentea", "failure/arena/env=classic classic"}
	if !slices.Equal(got, want) {
		t.Errorf("Expand = %q\nwant %q", got, want)
	}
	c.BuildEnvs = nil
	if s := Expand(c)[0]; s.Name != "heap/100B" || s.BuildEnv != "" {
		t.Errorf("without -build-envs: %+v", s)
	}
	c.BuildEnvs, c.Sets = []BuildEnv{{Name: "a"}}, []string{SetAll}
	if err := c.Validate(); err != nil {
		t.Errorf("with the capacity search: %v, want it run per environment", err)
	}
	c.Sets, c.Frontier.Container = []string{SetFrontier}, 512<<20
	if err := c.Validate(); err != nil {
		t.Errorf("with the frontier: %v, want it run per environment", err)
	}
	c.BuildEnvs, c.Sets, c.BuildPkg = nil, []string{SetMatrix}, "./cmd/x"
	if err := c.Validate(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-build-pkg") {
		t.Errorf("-build-pkg without -build-envs: %v", err)
	}
}

// An environment the go command refuses, a toolchain it cannot fetch and a
// build that fails in one environment are each one line naming the
// environment, a usage error (exit 2), and nothing is written.
func TestBuildEnvFailures(t *testing.T) {
	for _, c := range []struct {
		name, envs, pkg string
		want            []string
	}{
		{"unknown experiment", "ok=;odd=GOEXPERIMENT=nosuchexperiment", "./testdata/brokenmain", []string{"odd", "nosuchexperiment"}},
		{"toolchain", "ok=;future=GOTOOLCHAIN=go1.99.1", "./testdata/brokenmain", []string{"future", "go1.99.1"}},
		{"fails in one", "ok=;broken=GOFLAGS=-tags=breakme", "./testdata/brokenmain", []string{"broken", "broken.go"}},
		{"not a command", "ok=", "./internal/sampler", []string{"-build-pkg", "not a command"}},
		{"no such package", "ok=", "./testdata/nosuch", []string{"-build-pkg", "nosuch"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := quickConfig(t)
			cfg.Out = filepath.Join(t.TempDir(), "out")
			var err error
			if cfg.BuildEnvs, err = ParseBuildEnvs(c.envs); err != nil {
				t.Fatal(err)
			}
			cfg.BuildPkg = c.pkg
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err = Run(ctx, cfg, Options{})
			if !errors.Is(err, ErrUsage) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Run = %v; want one line of usage", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if _, serr := os.Stat(cfg.Out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("the results folder was created: %v", serr)
			}
		})
	}
}

// quickConfig is a tiny matrix of one kind and value.
func quickConfig(t *testing.T) Config {
	t.Helper()
	c := DefaultConfig()
	c.Kinds, c.Values, c.Keys, c.NoMinRun = []string{memtable.KindArena}, []int64{100}, []int64{20_000}, true
	c.Sets, c.Duration, c.Memstore, c.Regions, c.Window = []string{SetMatrix}, 0, 1<<20, 1, 250*time.Millisecond
	return c
}

// A run under two environments builds a user's command (testdata/envmain:
// cli.Main, as examples/mystore) per environment and runs each scenario
// in each, its results, bench.txt and report naming the environment.
func TestRunUnderBuildEnvs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a gcstress command")
	}
	cfg := quickConfig(t)
	cfg.Kinds = []string{memtable.KindHeap, memtable.KindArena}
	cfg.Out = filepath.Join(t.TempDir(), "out")
	// The two differ only in a runtime variable: one build, cached.
	cfg.BuildEnvs = []BuildEnv{{Name: "plain"}, {Name: "madv", Env: []string{"GODEBUG=madvdontneed=1"}}}
	cfg.BuildPkg = "./testdata/envmain"
	sum, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range sum.Results {
		names = append(names, r.Scenario.Name)
		if r.End == nil || r.End.Shape == nil || r.End.Shape.HeapLive == 0 {
			t.Errorf("%s: no heap shape in %+v", r.Scenario.Name, r.End)
		}
	}
	if want := []string{"heap/100B/env=plain", "heap/100B/env=madv", "arena/100B/env=plain", "arena/100B/env=madv"}; !slices.Equal(names, want) {
		t.Errorf("ran %q, want %q", names, want)
	}
	if len(sum.BuildEnvs) != 2 || sum.BuildEnvs[1].Env != "GODEBUG=madvdontneed=1" || sum.BuildEnvs[0].GoVersion == "" {
		t.Errorf("summary's environments %+v", sum.BuildEnvs)
	}
	f, err := benchtxt.Read(filepath.Join(cfg.Out, benchtxt.FileName))
	if err != nil {
		t.Fatal(err)
	}
	envs := map[string]bool{}
	for _, s := range f.Series {
		envs[s.Key.Env] = true
	}
	if !envs["plain"] || !envs["madv"] || envs[""] {
		t.Errorf("bench.txt environments %v", envs)
	}
	reportHas(t, cfg.Out, "## Build environments", "heap 100B: madv ", "arena 100B: madv ")
}

// Interrupted while building: ErrInterrupted (exit 130), nothing written.
func TestBuildEnvInterrupted(t *testing.T) {
	cfg := quickConfig(t)
	cfg.Out = filepath.Join(t.TempDir(), "out")
	cfg.BuildEnvs, cfg.BuildPkg = []BuildEnv{{Name: "a"}}, "./testdata/brokenmain"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cfg, Options{}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want interrupted", err)
	}
	if _, err := os.Stat(cfg.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the results folder was created: %v", err)
	}
}

// A capacity search under two environments (a tiny one: short steps, one
// kind) runs its steps in each environment's binary, interleaved, and
// summary.json's capacity rows, bench.txt and the report name and compare
// the environments.
func TestCapacityUnderBuildEnvs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a gcstress command and runs two capacity searches")
	}
	cfg := quickConfig(t)
	cfg.Out = filepath.Join(t.TempDir(), "out")
	cfg.Sets, cfg.CapacityValues = []string{SetCapacity}, []int64{100}
	cfg.Thresholds.Warmup, cfg.StepDuration = 250*time.Millisecond, 1500*time.Millisecond
	// The two differ only in a runtime variable: one build, cached.
	cfg.BuildEnvs = []BuildEnv{{Name: "plain"}, {Name: "madv", Env: []string{"GODEBUG=madvdontneed=1"}}}
	cfg.BuildPkg = "./testdata/envmain"
	sum, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Capacity) != 2 || sum.Capacity[0].Env != "plain" || sum.Capacity[1].Env != "madv" {
		t.Fatalf("capacity rows %+v", sum.Capacity)
	}
	for _, r := range sum.Results {
		if r.Scenario.Group != SetCapacity || r.Scenario.BuildEnv == "" || !strings.HasSuffix(r.Scenario.Name, "/env="+r.Scenario.BuildEnv) {
			t.Errorf("step %s in environment %q", r.Scenario.Name, r.Scenario.BuildEnv)
		}
	}
	js, err := os.ReadFile(filepath.Join(cfg.Out, "summary.json"))
	if err != nil || !strings.Contains(string(js), `"env": "madv"`) && !strings.Contains(string(js), `"env":"madv"`) {
		t.Errorf("summary.json lacks the capacity row's environment: %v", err)
	}
	// The sentence's wording depends on the figures (the same, higher, not
	// compared when a search was contended): that there is one is the point.
	reportHas(t, cfg.Out, "arena env=plain", "arena env=madv", "Capacity of arena 100B: ")
}

// reportHas checks that the report.md of results folder out has each of
// wants.
func reportHas(t *testing.T, out string, wants ...string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
}
