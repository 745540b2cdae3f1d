package runner

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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

// Check checks a list of environments: names that start with a-z or 0-9
// and go on in a-z 0-9 . _ - (never "." or ".."; a name is a bench.txt
// name part, not a path), distinct; each environment within buildenv's
// limits (no control character in a value) and without the variables a
// scenario sets. Errors wrap usage.ErrUsage and name -build-envs.
func Check(envs []Env) error {
	if len(envs) > MaxEnvs {
		return usage.Errorf("build-envs", "%d environments, more than the limit of %d", len(envs), MaxEnvs)
	}
	for i, e := range envs {
		if !validName(e.Name) {
			return usage.Errorf("build-envs", "environment name %q: want 1 to %d of a-z 0-9 . _ -, starting with a-z or 0-9 (e.g. greentea)", e.Name, MaxName)
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

// validName: 1 to MaxName bytes of a-z 0-9 . _ -, the first a-z or 0-9
// (so never ".", ".." or an option-like "-x").
func validName(n string) bool {
	if n == "" || len(n) > MaxName || !alnum(n[0]) {
		return false
	}
	for _, c := range []byte(n) {
		if !(alnum(c) || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// MaxPkg bounds -build-pkg (an import path or a directory).
const MaxPkg = 1024

// metaPackages are the go command's reserved package names (go help
// packages): std, cmd, all, tool and work stand for many packages.
var metaPackages = []string{"all", "std", "cmd", "tool", "work", "main"}

// CheckPkg checks -build-pkg before the go command sees it: "" (the
// running command's package) or one package, never an option (a leading
// '-' would be a go flag such as -toolexec), a pattern ("..."), one of the
// go command's reserved names (std, cmd, all, ...) or text holding a blank
// or a control character. Errors wrap usage.ErrUsage and name -build-pkg.
func CheckPkg(pkg string) error {
	switch {
	case pkg == "":
		return nil
	case len(pkg) > MaxPkg:
		return usage.Errorf("build-pkg", "%d bytes, more than the limit of %d", len(pkg), MaxPkg)
	case strings.HasPrefix(pkg, "-"):
		return usage.Errorf("build-pkg", "%q starts with '-': want a package such as ./cmd/mystore, not a go flag", pkg)
	case strings.Contains(pkg, "..."):
		return usage.Errorf("build-pkg", "%q is a pattern: want one command's package such as ./cmd/mystore", pkg)
	case slices.Contains(metaPackages, pkg):
		return usage.Errorf("build-pkg", "%q is a name the go command reserves (std, cmd, all, ...): want one command's package such as ./cmd/mystore", pkg)
	case !utf8.ValidString(pkg) || strings.ContainsFunc(pkg, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
		return usage.Errorf("build-pkg", "%q holds a blank or a control character: want a package such as ./cmd/mystore", pkg)
	}
	return nil
}
