package gcstress

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/buildenv"
	"github.com/writegc/writegc/internal/escape"
)

// BuildEnv is one build environment of Config.BuildEnvs (-build-envs): a
// name (what results, reports and bench.txt call it: Scenario.BuildEnv,
// `/env=NAME`) and the K=V pairs the command is built in and its children
// run with (internal/buildenv's form; none: the current environment). A
// plain value.
type BuildEnv struct {
	Name string
	Env  []string
}

// Limits of -build-envs, checked before anything is built.
const (
	// MaxBuildEnvs bounds Config.BuildEnvs: every scenario runs once per
	// environment.
	MaxBuildEnvs = 8
	// MaxBuildEnvName bounds an environment's name (a bench.txt name part).
	MaxBuildEnvName = 32
)

// scenarioEnvKeys are the variables a scenario sets in its child
// (Scenario.Env): a build environment may not set them too.
var scenarioEnvKeys = []string{"GOGC", "GOMEMLIMIT"}

// ParseBuildEnvs reads -build-envs: environments separated by ';', each
// NAME=K=V ... (NAME= alone: the current environment), as in
// 'greentea=;classic=GOEXPERIMENT=nogreenteagc'. "" is none. Errors wrap
// ErrUsage and name -build-envs and, when it has one, the environment.
func ParseBuildEnvs(s string) ([]BuildEnv, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	if len(s) > MaxBuildEnvs*buildenv.MaxBytes {
		return nil, usageErr("build-envs", "%d bytes, more than the limit of %d", len(s), MaxBuildEnvs*buildenv.MaxBytes)
	}
	parts := strings.Split(s, ";")
	if len(parts) > MaxBuildEnvs {
		return nil, usageErr("build-envs", "%d environments, more than the limit of %d", len(parts), MaxBuildEnvs)
	}
	var out []BuildEnv
	for _, p := range parts {
		name, rest, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return nil, usageErr("build-envs", "%q: want NAME=K=V ... (e.g. 'greentea=;classic=GOEXPERIMENT=nogreenteagc')", p)
		}
		env, err := buildenv.Parse(rest)
		if err != nil {
			return nil, usageErr("build-envs", "environment %q: %v", name, err)
		}
		out = append(out, BuildEnv{Name: name, Env: env})
	}
	if err := checkBuildEnvs(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkBuildEnvs checks Config.BuildEnvs: names of [a-z0-9._-], distinct;
// each environment within buildenv's limits and without the variables a
// scenario sets. Errors wrap ErrUsage and name -build-envs.
func checkBuildEnvs(envs []BuildEnv) error {
	if len(envs) > MaxBuildEnvs {
		return usageErr("build-envs", "%d environments, more than the limit of %d", len(envs), MaxBuildEnvs)
	}
	for i, e := range envs {
		if !validEnvName(e.Name) {
			return usageErr("build-envs", "environment name %q: want 1 to %d of a-z 0-9 . _ - (e.g. greentea)", e.Name, MaxBuildEnvName)
		}
		if slices.ContainsFunc(envs[:i], func(o BuildEnv) bool { return o.Name == e.Name }) {
			return usageErr("build-envs", "environment %s given twice: each name runs once", e.Name)
		}
		if err := buildenv.Check(e.Env); err != nil {
			return usageErr("build-envs", "environment %s: %v", e.Name, err)
		}
		for _, k := range scenarioEnvKeys {
			if buildenv.Value(e.Env, k) != "" || slices.Contains(e.Env, k+"=") {
				return usageErr("build-envs", "environment %s sets %s, which each scenario sets (-gogc, -memlimit)", e.Name, k)
			}
		}
	}
	return nil
}

func validEnvName(n string) bool {
	if n == "" || len(n) > MaxBuildEnvName {
		return false
	}
	for _, c := range []byte(n) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// perBuildEnv runs every scenario of a round under each environment,
// interleaved: scenario 1 in env A, in env B, then scenario 2. Without
// environments it is round as is.
func perBuildEnv(envs []BuildEnv, round []Scenario) []Scenario {
	if len(envs) == 0 {
		return round
	}
	out := make([]Scenario, 0, len(round)*len(envs))
	for _, s := range round {
		for _, e := range envs {
			t := s
			t.BuildEnv, t.Name = e.Name, s.Name+"/env="+e.Name
			out = append(out, t)
		}
	}
	return out
}

// capacityEnvs are the environments a capacity search runs in, in order:
// c.BuildEnvs' names, or one "" (the running binary) without any.
func capacityEnvs(c Config) []string {
	if len(c.BuildEnvs) == 0 {
		return []string{""}
	}
	out := make([]string, len(c.BuildEnvs))
	for i, e := range c.BuildEnvs {
		out[i] = e.Name
	}
	return out
}

// inBuildEnv is s run in build environment env, named as perBuildEnv
// names it ("/env=NAME" last) with its folder under out; s itself for "".
func inBuildEnv(s Scenario, env, out string) Scenario {
	if env == "" {
		return s
	}
	s.BuildEnv, s.Name = env, s.Name+"/env="+env
	s.Dir = filepath.Join(out, s.DirName())
	return s
}

// builds are the binaries of a run's build environments, in a temporary
// folder of their own; nil without -build-envs. Read-only once built.
type builds struct {
	dir  string
	bins map[string]builtEnv
	info []results.BuildEnv
}

type builtEnv struct {
	exe string
	env []string
}

// maxBuildOutput bounds what is kept of a failed go command's output.
const maxBuildOutput = 64 << 10

// buildEnvs builds cfg.BuildPkg (default: the running command's main
// package) once per environment of cfg.BuildEnvs, with `go build` in that
// environment (the go command fetches a GOTOOLCHAIN itself). A build that
// fails is an error wrapping ErrUsage: one line naming the environment and
// go's first error line; nothing is left behind.
func buildEnvs(ctx context.Context, cfg Config, notes io.Writer) (*builds, error) {
	if len(cfg.BuildEnvs) == 0 {
		return nil, nil
	}
	pkg, err := buildPkg(ctx, cfg.BuildPkg)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "gcstress-build-")
	if err != nil {
		return nil, fmt.Errorf("gcstress: -build-envs: %w", err)
	}
	b := &builds{dir: dir, bins: map[string]builtEnv{}}
	for _, e := range cfg.BuildEnvs {
		exe := filepath.Join(dir, e.Name, "gcstress-child")
		fmt.Fprintf(notes, "gcstress: building %s in environment %s\n", escape.Terminal(pkg), escape.Terminal(envLabel(e)))
		if _, err := goCommand(ctx, buildenv.ForBuild(e.Env), "build", "-o", exe, pkg); err != nil {
			b.remove()
			if ctx.Err() != nil { // Ctrl-C while building: nothing ran, nothing was written
				return nil, fmt.Errorf("%w: while building environment %s", ErrInterrupted, envLabel(e))
			}
			return nil, fmt.Errorf("%w: -build-envs: environment %s: go build %s: %v", ErrUsage, envLabel(e), pkg, err)
		}
		info := results.BuildEnv{Name: e.Name, Env: buildenv.Format(e.Env)}
		if bi, err := buildinfo.ReadFile(exe); err == nil {
			info.GoVersion = bi.GoVersion
			for _, st := range bi.Settings {
				if st.Key == "GOEXPERIMENT" {
					info.GOEXPERIMENT = st.Value
				}
			}
		}
		b.bins[e.Name] = builtEnv{exe: exe, env: e.Env}
		b.info = append(b.info, info)
	}
	return b, nil
}

// envLabel names an environment in a message: "classic (GOEXPERIMENT=...)".
func envLabel(e BuildEnv) string {
	return results.BuildEnv{Name: e.Name, Env: buildenv.Format(e.Env)}.Label()
}

// buildPkg is the package to build: pkg when given, else the running
// command's main package (debug.ReadBuildInfo), which must resolve from the
// working directory; a clear usage error otherwise.
func buildPkg(ctx context.Context, pkg string) (string, error) {
	if pkg == "" {
		bi, ok := debug.ReadBuildInfo()
		if !ok || bi.Path == "" || bi.Path == "command-line-arguments" || strings.HasSuffix(bi.Path, ".test") {
			return "", usageErr("build-pkg", "the running command's main package is not known: give it (e.g. -build-pkg ./cmd/gcstress)")
		}
		pkg = bi.Path
	}
	name, err := goCommand(ctx, nil, "list", "-f", "{{.Name}}", pkg)
	if err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("%w: while finding %s", ErrInterrupted, pkg)
	}
	if err != nil {
		return "", usageErr("build-pkg", "%s: %v (run from its module, or give -build-pkg ./path/to/your/command)", pkg, err)
	}
	if strings.TrimSpace(name) != "main" {
		return "", usageErr("build-pkg", "%s is package %s, not a command (package main)", pkg, strings.TrimSpace(name))
	}
	return pkg, nil
}

// goCommand runs the go command with env added, in the working directory,
// and returns its standard output; its error is go's first error line.
func goCommand(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout bytes.Buffer
	stderr := &capped{max: maxBuildOutput}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if l := buildenv.GoErrorLine(stderr.b.String()); l != "" {
			return "", errors.New(l)
		}
		return "", err
	}
	return stdout.String(), nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if n := c.max - c.b.Len(); n > 0 {
		c.b.Write(p[:min(n, len(p))])
	}
	return len(p), nil
}

// exeFor is Runner.ExeFor: the binary and environment of s's build
// environment.
func (b *builds) exeFor(s Scenario) (string, []string, bool) {
	if b == nil {
		return "", nil, false
	}
	be, ok := b.bins[s.BuildEnv]
	return be.exe, be.env, ok
}

// infos is what summary.json says of the environments; nil without any.
func (b *builds) infos() []results.BuildEnv {
	if b == nil {
		return nil
	}
	return b.info
}

// remove deletes the binaries.
func (b *builds) remove() {
	if b != nil {
		_ = os.RemoveAll(b.dir)
	}
}

// validateBuildEnvs checks BuildEnvs (checkBuildEnvs). Every set runs
// under them: the capacity search per kind (capacityEnvs), the frontier
// per grid point (frontierEnvs).
func (c *Config) validateBuildEnvs() error {
	if len(c.BuildEnvs) == 0 {
		if c.BuildPkg != "" {
			return usageErr("build-pkg", "%s: given without -build-envs (e.g. -build-envs 'greentea=;classic=GOEXPERIMENT=nogreenteagc')", c.BuildPkg)
		}
		return nil
	}
	if err := checkBuildEnvs(c.BuildEnvs); err != nil {
		return err
	}
	return nil
}

// validateAndBuild checks cfg and, with build environments, builds them
// before anything of the results folder is written (a build that fails
// leaves nothing). The builds are nil without environments.
func validateAndBuild(ctx context.Context, cfg Config, notes io.Writer) (*builds, error) {
	if len(cfg.BuildEnvs) == 0 {
		return nil, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return buildEnvs(ctx, cfg, notes)
}
