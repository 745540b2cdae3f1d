package gcstress

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/internal/escape"
)

// BuildEnv is one build environment of Config.BuildEnvs (-build-envs): a
// name (what results, reports and bench.txt call it: Scenario.BuildEnv,
// `/env=NAME`) and the K=V pairs the command is built in and its children
// run with (internal/buildenv's form; none: the current environment). A
// plain value.
type BuildEnv = runner.Env

// Limits of -build-envs, checked before anything is built.
const (
	// MaxBuildEnvs bounds Config.BuildEnvs: every scenario runs once per
	// environment.
	MaxBuildEnvs = runner.MaxEnvs
	// MaxBuildEnvName bounds an environment's name (a bench.txt name part).
	MaxBuildEnvName = runner.MaxName
)

// ParseBuildEnvs reads -build-envs: environments separated by ';', each
// NAME=K=V ... (NAME= alone: the current environment), as in
// 'greentea=;classic=GOEXPERIMENT=nogreenteagc'. "" is none. Errors wrap
// ErrUsage and name -build-envs and, when it has one, the environment.
func ParseBuildEnvs(s string) ([]BuildEnv, error) { return runner.Parse(s) }

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

// validateBuildEnvs checks BuildEnvs (runner.Check) and BuildPkg
// (runner.CheckPkg: one package, never a go flag or a pattern). Every
// set runs under them: the capacity search per kind (capacityEnvs), the
// frontier per grid point (frontierEnvs).
func (c *Config) validateBuildEnvs() error {
	if err := runner.CheckPkg(c.BuildPkg); err != nil {
		return err
	}
	if len(c.BuildEnvs) == 0 {
		if c.BuildPkg != "" {
			return usageErr("build-pkg", "%s: given without -build-envs (e.g. -build-envs 'greentea=;classic=GOEXPERIMENT=nogreenteagc')", c.BuildPkg)
		}
		return nil
	}
	return runner.Check(c.BuildEnvs)
}

// validateAndBuild checks cfg and, with build environments, builds them
// before anything of the results folder is written (a build that fails
// leaves nothing). The builds are nil without environments. Every run
// first removes the build folders that killed runs left in TMPDIR
// (runner.SweepStale), noting how many.
func validateAndBuild(ctx context.Context, cfg Config, notes io.Writer) (*runner.Builds, error) {
	if n := runner.SweepStale(os.TempDir()); n > 0 {
		fmt.Fprintf(notes, "gcstress: note: removed %d build folder(s) (%s*) that runs which died left in %s\n", n, runner.DirPrefix, escape.Terminal(os.TempDir()))
	}
	if len(cfg.BuildEnvs) == 0 {
		return nil, nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return runner.Build(ctx, cfg.BuildPkg, cfg.BuildEnvs, notes, ErrInterrupted)
}
