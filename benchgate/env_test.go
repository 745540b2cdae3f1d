package benchgate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

func TestParseEnv(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" \t ", nil},
		{"GOEXPERIMENT=nogreenteagc", []string{"GOEXPERIMENT=nogreenteagc"}},
		{"  A=1   B=2 ", []string{"A=1", "B=2"}},
		{"A= B=x=y", []string{"A=", "B=x=y"}},
		{`GOFLAGS="-tags=x -trimpath" A=1`, []string{"GOFLAGS=-tags=x -trimpath", "A=1"}},
	} {
		got, err := ParseEnv(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseEnv(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if again, err := ParseEnv(FormatEnv(got)); err != nil || !slices.Equal(again, got) {
			t.Errorf("FormatEnv(%q) = %q does not read back: %q, %v", got, FormatEnv(got), again, err)
		}
	}
	for _, bad := range []string{"A", "A=1 B", "=1", "A=1 =2", "A=1 A=2", `A="x`, "A\x01=1"} {
		if got, err := ParseEnv(bad); !errors.Is(err, errBadEnv) {
			t.Errorf("ParseEnv(%q) = %q, %v; want errBadEnv", bad, got, err)
		}
	}
	if got := EnvLabel(nil); got != CurrentEnv {
		t.Errorf("EnvLabel(nil) = %q", got)
	}
	if err := (RunConfig{Base: "HEAD", HeadEnv: []string{"A=1", "A=2"}}).validate(); !errors.Is(err, errBadOption) || !errors.Is(err, errBadEnv) {
		t.Errorf("duplicate HeadEnv: %v, want errBadOption and errBadEnv", err)
	}
}

// The go command's own variables reach the build; the runtime's stay with
// the benchmark binaries.
func TestBuildEnv(t *testing.T) {
	got := buildEnv([]string{"GOEXPERIMENT=nogreenteagc", "GOGC=off", "GOMAXPROCS=1", "GOFLAGS=-trimpath", "GODEBUG=x=1", "MARK=1"})
	if want := []string{"GOEXPERIMENT=nogreenteagc", "GOFLAGS=-trimpath", "MARK=1"}; !slices.Equal(got, want) {
		t.Errorf("buildEnv = %q, want %q", got, want)
	}
}

// A Go version that differs because GOTOOLCHAIN is what the sides compare
// is allowed, with a note; the same difference without it, or with the same
// GOTOOLCHAIN on both sides, is a cross-machine comparison.
func TestCompareAllowsComparedEnv(t *testing.T) {
	file := func(env, goversion, amd64 string) *Set {
		t.Helper()
		var b strings.Builder
		if env != "" {
			b.WriteString("env: " + env + "\n")
		}
		b.WriteString("goos: linux\ngoarch: amd64\ngoamd64: " + amd64 + "\ncpu: Test CPU\ngoversion: " + goversion + "\n")
		for range 6 {
			b.WriteString("BenchmarkX-2 100 100 ns/op\n")
		}
		s, err := Parse(strings.NewReader(b.String()), "f")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rep, err := Compare(file("GOTOOLCHAIN=go1.27.3", "go1.27.3", "v1"), file("", "go1.26.8", "v1"), Options{})
	if err != nil {
		t.Fatalf("GOTOOLCHAIN compared: %v", err)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, `goversion: base "go1.27.3" vs head "go1.26.8"`) && strings.Contains(n, "GOTOOLCHAIN is what is compared (base go1.27.3, head (current))")
	}) {
		t.Errorf("notes %q: want one saying goversion differs since GOTOOLCHAIN is compared", rep.Notes)
	}
	if _, err := Compare(file("GOAMD64=v3", "go1.26.8", "v3"), file("GOAMD64=v1", "go1.26.8", "v1"), Options{}); err != nil {
		t.Errorf("GOAMD64 compared: %v", err)
	}
	for name, c := range map[string][2]*Set{
		"no env":                 {file("", "go1.27.3", "v1"), file("", "go1.26.8", "v1")},
		"same GOTOOLCHAIN":       {file("GOTOOLCHAIN=go1.27.3", "go1.27.3", "v1"), file("GOTOOLCHAIN=go1.27.3 A=1", "go1.26.8", "v1")},
		"GOTOOLCHAIN, not amd64": {file("GOTOOLCHAIN=go1.27.3", "go1.27.3", "v3"), file("", "go1.26.8", "v1")},
	} {
		if _, err := Compare(c[0], c[1], Options{}); !errors.Is(err, ErrCrossMachine) {
			t.Errorf("%s: %v, want ErrCrossMachine", name, err)
		}
	}
	if got, want := EnvInfo(file("GOEXPERIMENT=nogreenteagc", "go1.26.8", "v1"), file("", "go1.26.8", "v1")),
		[]string{"base env: GOEXPERIMENT=nogreenteagc", "head env: (current)"}; !slices.Equal(got, want) {
		t.Errorf("EnvInfo = %q, want %q", got, want)
	}
	if got := EnvInfo(file("", "go1.26.8", "v1"), file("", "go1.26.8", "v1")); got != nil {
		t.Errorf("EnvInfo without env lines = %q, want none", got)
	}
}

// envModule commits a module whose benchmark reports, as the metric
// "greentea", whether it was built with the Green Tea collector (the
// goexperiment.greenteagc build tag), and which does not compile with the
// build tag envbroken. It returns the repository.
func envModule(t *testing.T) string {
	t.Helper()
	dir := gitModuleDir(t)
	files := map[string]string{
		"go.mod":     "module example.com/envs\n\ngo 1.26\n",
		"gt_on.go":   "//go:build goexperiment.greenteagc\n\npackage envs\n\nconst GreenTea = 1\n",
		"gt_off.go":  "//go:build !goexperiment.greenteagc\n\npackage envs\n\nconst GreenTea = 0\n",
		"broken.go":  "//go:build envbroken\n\npackage envs\n\nvar broken int = \"not an int\"\n",
		"gt_test.go": "package envs\n\nimport \"testing\"\n\nfunc BenchmarkGC(b *testing.B) {\n\tfor b.Loop() {\n\t}\n\tb.ReportMetric(GreenTea, \"greentea\")\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testkit.CommitAll(t, dir, "envs")
	return dir
}

func readT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// envConfig is one round of dir's benchmarks at HEAD on both sides, the
// base built and run in baseEnv, the head in headEnv, into out.
func envConfig(dir, out string, baseEnv, headEnv []string) RunConfig {
	return RunConfig{Dir: dir, Base: "HEAD", Count: 1, Benchtime: "1x", OutDir: out, BaseEnv: baseEnv, HeadEnv: headEnv}
}

// runEnvs runs envConfig within limit, failing the test on an error.
func runEnvs(t *testing.T, dir string, limit time.Duration, baseEnv, headEnv []string) *RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := Run(ctx, envConfig(dir, t.TempDir(), baseEnv, headEnv))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// One commit built in two environments: the base with the classic
// collector, the head (the clean working tree) in the current environment.
// Each binary is what its environment builds, and the outputs say so.
func TestRunEnvBuildsEachSide(t *testing.T) {
	res := runEnvs(t, envModule(t), 4*time.Minute, []string{"GOEXPERIMENT=nogreenteagc"}, nil)
	if res.BaseCommit != strings.TrimSuffix(res.HeadCommit, "+worktree") || strings.HasSuffix(res.HeadCommit, "+worktree") {
		t.Errorf("base %s, head %s: want the same commit, a clean tree", res.BaseCommit, res.HeadCommit)
	}
	base, head := readT(t, res.BaseFile), readT(t, res.HeadFile)
	for _, want := range []string{"\nenv: GOEXPERIMENT=nogreenteagc\n", "\ngoexperiment: nogreenteagc\n", " 0 greentea"} {
		if !strings.Contains(base, want) {
			t.Errorf("base.txt lacks %q:\n%s", want, base)
		}
	}
	if !strings.Contains(head, " 1.000 greentea") || strings.Contains(head, "env:") || strings.Contains(head, "goexperiment:") {
		t.Errorf("head.txt: want Green Tea, no env: nor goexperiment: line:\n%s", head)
	}
	if _, err := Compare(res.Base, res.Head, Options{}); errors.Is(err, ErrCrossMachine) {
		t.Errorf("Compare: %v; the environments are what is compared", err)
	}
	if got := EnvInfo(res.Base, res.Head); !slices.Equal(got, []string{"base env: GOEXPERIMENT=nogreenteagc", "head env: (current)"}) {
		t.Errorf("EnvInfo = %q", got)
	}
}

// An environment the go command refuses, a toolchain it cannot fetch and a
// build that fails in one environment: ErrBuild in one line naming the
// side and its environment, and no output file.
func TestRunEnvFailures(t *testing.T) {
	dir := envModule(t)
	t.Setenv("GOPROXY", "off") // no toolchain can be fetched: no network needed
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for _, c := range []struct {
		name       string
		base, head []string
		want       string
	}{
		{"unknown GOEXPERIMENT", []string{"GOEXPERIMENT=bogus"}, nil, "base env GOEXPERIMENT=bogus: the go command refuses it: go: unknown GOEXPERIMENT bogus"},
		{"toolchain not fetched", nil, []string{"GOTOOLCHAIN=go1.99.0"}, "head env GOTOOLCHAIN=go1.99.0: the go command refuses it: go: download go1.99.0"},
		{"build fails in one env", []string{"GOFLAGS=-buildvcs=false -tags=envbroken"}, nil, `base env GOFLAGS="-buildvcs=false -tags=envbroken": go test -c example.com/envs: `},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			res, err := Run(ctx, envConfig(dir, out, c.base, c.head))
			if !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v; want one line of ErrBuild holding %q", err, c.want)
			}
			if res != nil {
				t.Errorf("a RunResult came with the error: %+v", res)
			}
			if left, _ := filepath.Glob(filepath.Join(out, "*")); len(left) > 0 {
				t.Errorf("left in the output folder: %q", left)
			}
		})
	}
}

// The toolchain compared with the current one: it downloads one (about 70
// MB), so it runs only when asked (WRITEGC_TEST_TOOLCHAIN=1) and not in
// -short mode.
func TestRunEnvToolchain(t *testing.T) {
	if testing.Short() || os.Getenv("WRITEGC_TEST_TOOLCHAIN") != "1" {
		t.Skip("downloads go1.27.3: set WRITEGC_TEST_TOOLCHAIN=1 (not with -short)")
	}
	res := runEnvs(t, envModule(t), 8*time.Minute, nil, []string{"GOTOOLCHAIN=go1.27.3"})
	if head := readT(t, res.HeadFile); !strings.Contains(head, "\ngoversion: go1.27.3\n") || !strings.Contains(head, "\nenv: GOTOOLCHAIN=go1.27.3\n") {
		t.Errorf("head.txt: want go1.27.3 and its env: line:\n%s", head)
	}
	rep, err := Compare(res.Base, res.Head, Options{})
	if rep == nil {
		t.Fatalf("Compare: %v", err)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "GOTOOLCHAIN is what is compared") }) {
		t.Errorf("notes %q: want the goversion difference explained", rep.Notes)
	}
}

// Instruction mode builds and measures each side in its environment too
// (the fake valgrind of TestRunInstructionsFake): the outputs name it and
// the sides still compare.
func TestRunInstructionsEnv(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := gitModuleDir(t)
	vg := filepath.Join(t.TempDir(), "valgrind")
	if err := os.WriteFile(vg, []byte(fakeValgrind), 0o755); err != nil {
		t.Fatal(err)
	}
	writeWorkModule(t, dir, 1000)
	testkit.CommitAll(t, dir, "one")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := Run(ctx, RunConfig{Dir: dir, Base: "HEAD", Count: DefaultInstructionCount, Measure: MeasureInstructions,
		Valgrind: vg, Jobs: 2, OutDir: t.TempDir(), BaseEnv: []string{"GOEXPERIMENT=nogreenteagc"},
		Targets: []Target{{Pkg: ".", Bench: "BenchmarkW", Benchtime: "40x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if base := readT(t, res.BaseFile); !strings.Contains(base, "\nenv: GOEXPERIMENT=nogreenteagc\n") || !strings.Contains(base, "\ngoexperiment: nogreenteagc\n") {
		t.Errorf("base.txt lacks its env: and goexperiment: lines:\n%s", base)
	}
	rep, err := Compare(res.Base, res.Head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Regressed() {
		t.Errorf("the same counts regressed: %+v", rep.Rows)
	}
}

// An environment over the limits is refused before it is parsed or stored.
func TestEnvLimits(t *testing.T) {
	long := "GOFLAGS=" + strings.Repeat("x", MaxEnvBytes)
	if _, err := ParseEnv(long); !errors.Is(err, errBadEnv) {
		t.Errorf("ParseEnv of %d bytes: %v, want errBadEnv", len(long), err)
	}
	var many []string
	for i := range MaxEnvPairs + 1 {
		many = append(many, "K"+strconv.Itoa(i)+"=v")
	}
	if err := CheckEnv(many); !errors.Is(err, errBadEnv) {
		t.Errorf("CheckEnv of %d pairs: %v, want errBadEnv", len(many), err)
	}
	if err := CheckEnv([]string{long}); !errors.Is(err, errBadEnv) {
		t.Errorf("CheckEnv of one %d-byte pair: %v, want errBadEnv", len(long), err)
	}
	if _, err := ParseEnv("GOEXPERIMENT=nogreenteagc GOFLAGS=-trimpath"); err != nil {
		t.Errorf("an ordinary env: %v", err)
	}
}
