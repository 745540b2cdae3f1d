// Package buildenv is writegc's one reading of a build environment: the
// blank-separated K=V pairs (`GOEXPERIMENT=nogreenteagc GOTOOLCHAIN=go1.27.3`)
// that benchgate's -base-env and -head-env and gcstress's -build-envs
// take, their limits, their written form, the part of them the go command
// gets, and the one line of a go command's failure a message quotes.
//
// Invariants:
//   - Parse and Check check the limits (MaxBytes, MaxPairs) before they
//     allocate for the input; every error wraps ErrBadEnv.
//   - A parsed environment has distinct, non-empty keys of printable
//     characters without blanks, and values of valid UTF-8 holding no
//     control or other unprintable character but the plain blank (a value
//     reaches a toolchain's environment and line-oriented files: a
//     configuration line, base.txt); Format writes it so that Parse reads
//     it back unchanged.
//   - Everything here is a plain function of its arguments: no process is
//     started, nothing is printed.
package buildenv

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of one environment, checked before it is parsed or stored (it
// becomes a configuration line and part of a history series key).
const (
	// MaxBytes bounds an environment string (Parse) and the sum of an
	// environment's K=V entries (Check).
	MaxBytes = 4 << 10
	// MaxPairs bounds an environment's K=V entries.
	MaxPairs = 64
)

// ErrBadEnv: an environment is not a list of K=V pairs with distinct,
// non-empty keys, or is over the limits.
var ErrBadEnv = errors.New("bad environment")

// errQuote: a double quote of an environment string is not closed.
var errQuote = errors.New("unterminated double quote")

// RuntimeOnly are the variables of an environment that tune the Go runtime
// of the process that reads them: they go to the programs built, not to
// the go command, whose compiler would otherwise run with GOGC=off or
// GOMAXPROCS=1 (GODEBUG set when building changes nothing in the binary).
var RuntimeOnly = []string{"GOGC", "GOMEMLIMIT", "GOMAXPROCS", "GODEBUG", "GOTRACEBACK"}

// Parse reads an environment string: K=V pairs separated by blanks. Quotes
// are not needed; a value holding blanks is written in double quotes
// (GOFLAGS="-tags=x -trimpath"), which are removed. "" (or only blanks) is
// the current environment: no pairs. Each pair must pass Check.
func Parse(s string) ([]string, error) {
	if len(s) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrBadEnv, len(s), MaxBytes)
	}
	var out []string
	var cur strings.Builder
	inQuote, inField := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote, inField = !inQuote, true
		case !inQuote && unicode.IsSpace(r):
			if inField {
				out, inField = append(out, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			inField = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadEnv, s, errQuote)
	}
	if inField {
		out = append(out, cur.String())
	}
	if err := Check(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Check checks an environment's entries: each K=V with a non-empty key of
// printable characters without blanks, a value of printable characters
// and plain blanks (no newline, tab, NUL or other control character, no
// invalid UTF-8), and no key given twice
// (which of two values was meant cannot be told, and a report must name
// one), within MaxPairs and MaxBytes.
func Check(env []string) error {
	if len(env) > MaxPairs {
		return fmt.Errorf("%w: %d K=V pairs, more than the limit of %d", ErrBadEnv, len(env), MaxPairs)
	}
	total := 0
	for _, kv := range env {
		total += len(kv) + 1
	}
	if total > MaxBytes {
		return fmt.Errorf("%w: %d bytes of K=V pairs, more than the limit of %d", ErrBadEnv, total, MaxBytes)
	}
	seen := map[string]bool{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return fmt.Errorf("%w: %q: want K=V", ErrBadEnv, kv)
		case k == "":
			return fmt.Errorf("%w: %q: empty variable name", ErrBadEnv, kv)
		case !utf8.ValidString(k) || strings.ContainsFunc(k, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
			return fmt.Errorf("%w: %q: a variable name of printable characters without blanks is wanted", ErrBadEnv, kv)
		case !printableValue(v):
			return fmt.Errorf("%w: %q: the value holds a control or unprintable character (only printable characters and blanks)", ErrBadEnv, kv)
		case seen[k]:
			return fmt.Errorf("%w: %s given twice", ErrBadEnv, k)
		}
		seen[k] = true
	}
	return nil
}

// printableValue: v is valid UTF-8 of printable characters and plain
// blanks, so it cannot start a line of its own in a file it is written to.
func printableValue(v string) bool {
	return utf8.ValidString(v) && !strings.ContainsFunc(v, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) })
}

// Format writes env (K=V entries) in Parse's form: blank-separated, a
// value holding blanks in double quotes. nil or empty gives "".
func Format(env []string) string {
	parts := make([]string, len(env))
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.ContainsFunc(v, unicode.IsSpace) {
			v = `"` + v + `"`
		}
		parts[i] = k + "=" + v
	}
	return strings.Join(parts, " ")
}

// Value is the value of variable key in env ("" when unset).
func Value(env []string, key string) string {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// ForBuild is the part of env the go command gets: all but RuntimeOnly.
func ForBuild(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(RuntimeOnly, k)
	})
}

// GoErrorLine is the line of a failed go command's standard error that a
// one-line message quotes: the first that is not blank, a package header
// ("# pkg") or a download note; "" when there is none.
func GoErrorLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "go: downloading ") {
			return l
		}
	}
	return ""
}
