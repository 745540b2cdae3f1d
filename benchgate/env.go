package benchgate

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/writegc/writegc/internal/buildenv"
)

// Configuration keys Run writes into both outputs besides the machine's.
const (
	// ConfigEnv is the `env:` line of a side whose environment was given
	// (RunConfig.BaseEnv, HeadEnv), in ParseEnv's form. A side in the
	// current environment has none, so its file reads as before.
	ConfigEnv = "env"
	// ConfigGoExperiment is the `goexperiment:` line: `go env GOEXPERIMENT`
	// in the side's environment, when it names any experiment (a side at
	// the toolchain's defaults has none).
	ConfigGoExperiment = "goexperiment"
)

// Limits of one side's environment, checked before it is parsed or stored:
// it becomes an env: line and part of a history series key. They are
// internal/buildenv's, which gcstress's -build-envs shares.
const (
	// MaxEnvBytes bounds an environment string (ParseEnv) and the sum of a
	// side's K=V entries (CheckEnv).
	MaxEnvBytes = buildenv.MaxBytes
	// MaxEnvPairs bounds a side's K=V entries.
	MaxEnvPairs = buildenv.MaxPairs
)

// CurrentEnv is how a report names a side run in the current environment.
const CurrentEnv = "(current)"

// envMachineKeys maps each strict machine key that an environment variable
// of the build or run sets to that variable: when the variable's value is
// what the two sides compare (their env: lines differ in it), the key may
// differ too (see CheckMachines' use in Compare).
var envMachineKeys = map[string]string{
	"goversion":  "GOTOOLCHAIN",
	"goamd64":    "GOAMD64",
	"goarch":     "GOARCH",
	"gomaxprocs": "GOMAXPROCS",
}

// ParseEnv reads an environment string: K=V pairs separated by blanks, as
// `benchgate run -base-env 'GOEXPERIMENT=nogreenteagc GOAMD64=v3'` takes
// them. Quotes are not needed; a value holding blanks is written in double
// quotes (GOFLAGS="-tags=x -trimpath"), which are removed. "" (or only
// blanks) is the current environment: no pairs. Each pair must pass
// CheckEnv. Errors wrap errBadEnv.
func ParseEnv(s string) ([]string, error) {
	env, err := buildenv.Parse(s)
	if err != nil {
		return nil, err
	}
	if err := checkEnvValues(env); err != nil {
		return nil, err
	}
	return env, nil
}

// CheckEnv checks a side's environment additions: each entry K=V with a
// key that is an identifier (a letter or '_', then letters, digits or
// '_'), a value without control characters (a newline would inject lines
// into the env: line of base.txt or head.txt) nor double quotes, and no
// key given twice (which of two values was meant cannot be told, and the
// report and the history series must name one). Errors wrap errBadEnv.
func CheckEnv(env []string) error {
	if err := buildenv.Check(env); err != nil {
		return err
	}
	return checkEnvValues(env)
}

// FormatEnv writes env (K=V entries) in ParseEnv's form: blank-separated,
// a value holding blanks in double quotes. nil or empty gives "".
func FormatEnv(env []string) string { return buildenv.Format(env) }

// EnvLabel names an environment in a report: FormatEnv's form, or
// CurrentEnv when it adds nothing.
func EnvLabel(env []string) string {
	if len(env) == 0 {
		return CurrentEnv
	}
	return FormatEnv(env)
}

// EnvInfo returns the report lines naming the environment of each side
// (`base env: GOEXPERIMENT=nogreenteagc`, `head env: (current)`) from their
// env: configuration lines, or nil when neither side states one.
func EnvInfo(base, head *Set) []string {
	b, h := setEnv(base), setEnv(head)
	if b == "" && h == "" {
		return nil
	}
	return []string{"base env: " + cmp.Or(b, CurrentEnv), "head env: " + cmp.Or(h, CurrentEnv)}
}

// setEnv is the env: line of s ("" when none; several distinct values are
// joined by " | ", a file concatenated from runs in different
// environments).
func setEnv(s *Set) string {
	if s == nil {
		return ""
	}
	if vs := s.Configs[ConfigEnv]; len(vs) > 0 {
		return strings.Join(vs, " | ")
	}
	return strings.TrimSpace(s.Config[ConfigEnv])
}

// envValue is the value of variable key in an env: line ("" when unset or
// the line does not parse).
func envValue(line, key string) string {
	env, err := ParseEnv(line)
	if err != nil {
		return ""
	}
	return buildenv.Value(env, key)
}

// comparedEnvKeys returns the strict machine keys whose variable (see
// envMachineKeys) base and head set differently, each with a note saying
// why the key may differ.
func comparedEnvKeys(base, head *Set) map[string]string {
	b, h := setEnv(base), setEnv(head)
	if b == h {
		return nil
	}
	out := map[string]string{}
	for key, v := range envMachineKeys {
		bv, hv := envValue(b, v), envValue(h, v)
		if bv != hv {
			out[key] = fmt.Sprintf("%s may differ: %s is what is compared (base %s, head %s)",
				key, v, cmp.Or(bv, CurrentEnv), cmp.Or(hv, CurrentEnv))
		}
	}
	return out
}

// buildEnv is the part of a side's environment the go command gets: all
// but buildenv.RuntimeOnly.
func buildEnv(env []string) []string { return buildenv.ForBuild(env) }
