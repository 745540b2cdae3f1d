package buildenvs

import (
	"slices"
	"strings"

	"github.com/writegc/writegc/internal/buildenv"
	"github.com/writegc/writegc/internal/usage"
)

// Env is one build environment: a name (what results, reports and
// bench.txt call it) and the K=V pairs the command is built in and its
// children run with (internal/buildenv's form; none: the current
// environment). A plain value.
type Env struct {
	Name string
	Env  []string
}

// Limits of -build-envs, checked before anything is built.
const (
	// MaxEnvs bounds a list of environments: every scenario runs once per
	// environment.
	MaxEnvs = 8
	// MaxName bounds an environment's name (a bench.txt name part).
	MaxName = 32
)

// scenarioEnvKeys are the variables a scenario sets in its child
// (Scenario.Env): a build environment may not set them too.
var scenarioEnvKeys = []string{"GOGC", "GOMEMLIMIT"}

// Parse reads -build-envs: environments separated by ';', each
// NAME=K=V ... (NAME= alone: the current environment), as in
// 'greentea=;classic=GOEXPERIMENT=nogreenteagc'. "" is none. Errors wrap
// usage.ErrUsage and name -build-envs and, when it has one, the
// environment.
func Parse(s string) ([]Env, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	if len(s) > MaxEnvs*buildenv.MaxBytes {
		return nil, usage.Errorf("build-envs", "%d bytes, more than the limit of %d", len(s), MaxEnvs*buildenv.MaxBytes)
	}
	parts := strings.Split(s, ";")
	if len(parts) > MaxEnvs {
		return nil, usage.Errorf("build-envs", "%d environments, more than the limit of %d", len(parts), MaxEnvs)
	}
	var out []Env
	for _, p := range parts {
		name, rest, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return nil, usage.Errorf("build-envs", "%q: want NAME=K=V ... (e.g. 'greentea=;classic=GOEXPERIMENT=nogreenteagc')", p)
		}
		env, err := buildenv.Parse(rest)
		if err != nil {
			return nil, usage.Errorf("build-envs", "environment %q: %v", name, err)
		}
		out = append(out, Env{Name: name, Env: env})
	}
	if err := Check(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Check checks a list of environments: names of [a-z0-9._-], distinct;
// each environment within buildenv's limits and without the variables a
// scenario sets. Errors wrap usage.ErrUsage and name -build-envs.
func Check(envs []Env) error {
	if len(envs) > MaxEnvs {
		return usage.Errorf("build-envs", "%d environments, more than the limit of %d", len(envs), MaxEnvs)
	}
	for i, e := range envs {
		if !validName(e.Name) {
			return usage.Errorf("build-envs", "environment name %q: want 1 to %d of a-z 0-9 . _ - (e.g. greentea)", e.Name, MaxName)
		}
		if slices.ContainsFunc(envs[:i], func(o Env) bool { return o.Name == e.Name }) {
			return usage.Errorf("build-envs", "environment %s given twice: each name runs once", e.Name)
		}
		if err := buildenv.Check(e.Env); err != nil {
			return usage.Errorf("build-envs", "environment %s: %v", e.Name, err)
		}
		for _, k := range scenarioEnvKeys {
			if buildenv.Value(e.Env, k) != "" || slices.Contains(e.Env, k+"=") {
				return usage.Errorf("build-envs", "environment %s sets %s, which each scenario sets (-gogc, -memlimit)", e.Name, k)
			}
		}
	}
	return nil
}

func validName(n string) bool {
	if n == "" || len(n) > MaxName {
		return false
	}
	for _, c := range []byte(n) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
