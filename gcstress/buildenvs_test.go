package gcstress

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/compare"
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
		".=", "..=", "a=;..=X=1",                // a path, not a name
		"-a=", "_a=", ".a=", // must start with a-z or 0-9
		"a\nb=", "a\x00=", // control characters in a name
		"a=X=\"1\n2\"", "a=X=\"1\t2\"", "a=X=1\x7f", // and in a value
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
		if k := compare.KeyOf(s); k.Env != s.BuildEnv || !strings.HasSuffix(k.Name(), "/env="+s.BuildEnv) {
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
		{"not a command", "ok=", "./internal/child", []string{"-build-pkg", "not a command"}},
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
	f, err := compare.Read(filepath.Join(cfg.Out, compare.FileName))
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

// A build environment's name is never a path: "..", "." and names that do
// not start with a letter or digit are refused by Validate too (a Config
// built without ParseBuildEnvs), before anything is built.
func TestBuildEnvNameNotAPath(t *testing.T) {
	for _, name := range []string{"..", ".", "-x", "_x", "a/b", "a\nb"} {
		cfg := quickConfig(t)
		cfg.BuildEnvs = []BuildEnv{{Name: name}}
		err := cfg.Validate()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-build-envs") || strings.Contains(err.Error(), "\n") {
			t.Errorf("name %q: Validate = %v; want one line of usage naming -build-envs", name, err)
		}
	}
}

// -build-pkg is one package, never a go flag, a pattern or one of the go
// command's reserved names: each is one line of usage naming -build-pkg
// and the value, from Validate and before any go command runs.
func TestBuildPkgRefused(t *testing.T) {
	for _, pkg := range []string{"-toolexec=/path/prog", "-n", "./...", "example.com/x/...", "std", "cmd", "all", "tool", "work",
		"./a b", "./a\nb", strings.Repeat("a", 2000)} {
		cfg := quickConfig(t)
		cfg.BuildEnvs, cfg.BuildPkg = []BuildEnv{{Name: "a"}}, pkg
		err := cfg.Validate()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-build-pkg") || strings.Contains(err.Error(), "\n") {
			t.Errorf("-build-pkg %.30q: Validate = %v; want one line of usage naming -build-pkg", pkg, err)
			continue
		}
		if len(pkg) < 100 && !strings.ContainsAny(pkg, "\n") && !strings.Contains(err.Error(), pkg) {
			t.Errorf("-build-pkg %q: %v does not name the value", pkg, err)
		}
	}
}

// A -build-pkg that is a go flag is never passed to the go command: run
// from a main package's folder, -toolexec would have run the program for
// every compile step of `go build`.
func TestBuildPkgNotAGoFlag(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+ran+"'\nexec \"$@\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("testdata/brokenmain")
	if err != nil {
		t.Fatal(err)
	}
	cfg := quickConfig(t)
	cfg.Out = filepath.Join(dir, "out")
	cfg.BuildEnvs, cfg.BuildPkg = []BuildEnv{{Name: "a"}}, "-toolexec="+prog
	t.Chdir(abs) // a main package: `go list` of no package lists this one
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = Run(ctx, cfg, Options{})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-build-pkg") || !strings.Contains(err.Error(), "-toolexec=") {
		t.Errorf("Run = %v; want usage naming -build-pkg and its value", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("the -toolexec program ran")
	}
}

// A run whose stdout is a closed pipe (gcstress ... | head) fails the
// report's write instead of dying of SIGPIPE, so its build folder is
// removed: the command (testdata/envmain, cli.Main) runs under one build
// environment with TMPDIR a folder of the test's.
func TestBuildFolderRemovedOnClosedStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a gcstress command twice and runs it")
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "envmain")
	if out, err := exec.Command("go", "build", "-o", exe, "--", "./testdata/envmain").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	var stderr strings.Builder
	cmd := exec.Command(exe, "-out", filepath.Join(dir, "out"), "-quick", "-kinds", "arena", "-values", "100", "-keys", "1K",
		"-scenario", "matrix", "-memstore", "1MB", "-regions", "1", "-build-envs", "a=", "-build-pkg", "./testdata/envmain")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() == -1 {
		t.Fatalf("the command was killed (%v); want a write error\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "gcstress: building") {
		t.Fatalf("nothing was built: %v\n%s", err, stderr.String())
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "gcstress-build-*"))
	if len(left) != 0 {
		t.Errorf("build folders left in TMPDIR: %q (exit %v)", left, err)
	}
}
