package benchgate

import (
	"fmt"
	"strings"
	"unicode"
)

// The values of a RunConfig that Run writes into its outputs' header lines
// (base.txt and head.txt are line-oriented: a newline in a value is a line
// of its own, a result line included) or hands to git and the go command
// (a value starting with '-' would be read as a flag) are checked before
// anything runs:
//
//   - Tags, HeadTags, Pkgs, Bench, the Targets' Pkg and Bench, Base, Head
//     and every environment value hold no control character (CheckText:
//     newline, carriage return, tab, NUL, DEL, C1 controls);
//   - a package pattern (Pkgs, Target.Pkg) and a revision (Base, Head) do
//     not start with '-' (CheckPackage, CheckRev);
//   - an environment variable's name is an identifier (a letter or '_',
//     then letters, digits, '_') and its value holds no control character
//     nor double quote (CheckEnv);
//   - the Preamble holds `Unit` lines, # comments and blank lines only
//     (CheckPreamble).
//
// Every go command Run starts separates its flags from its packages: `go
// list ... -- PATTERN`; `go test -c`, which takes no `--` before its
// packages, gets import paths `go list` printed, and one starting with '-'
// is refused.

// CheckText returns an error wrapping errBadOption when v holds a control
// character; the value is quoted in the message.
func CheckText(v string) error {
	if strings.ContainsFunc(v, unicode.IsControl) {
		return fmt.Errorf("%w: %q holds a control character", errBadOption, v)
	}
	return nil
}

// CheckPackage checks a package pattern given to `go list`: no control
// character, not empty, no leading '-' (errBadOption).
func CheckPackage(p string) error {
	if err := CheckText(p); err != nil {
		return err
	}
	if p == "" || strings.HasPrefix(p, "-") {
		return fmt.Errorf("%w: package %q: want a package path or pattern, not a flag", errBadOption, p)
	}
	return nil
}

// CheckRev checks a git revision: no control character, no leading '-'
// (errBadOption). "" (the working tree, for Head) passes.
func CheckRev(rev string) error {
	if err := CheckText(rev); err != nil {
		return err
	}
	if strings.HasPrefix(rev, "-") {
		return fmt.Errorf("%w: revision %q: want a revision, not a flag", errBadOption, rev)
	}
	return nil
}

// checkEnvValues is what CheckEnv adds to internal/buildenv's Check (which
// refuses control characters): names are identifiers, values hold no
// double quote (FormatEnv's output must read back).
func checkEnvValues(env []string) error {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !isIdentifier(k) {
			return fmt.Errorf("%w: %q: a variable name is a letter or '_', then letters, digits or '_'", errBadEnv, kv)
		}
		if strings.ContainsRune(v, '"') {
			return fmt.Errorf("%w: %q: the value holds a double quote", errBadEnv, kv)
		}
	}
	return nil
}

// isIdentifier reports whether s is [A-Za-z_][A-Za-z0-9_]*.
func isIdentifier(s string) bool {
	for i, c := range []byte(s) {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// CheckPreamble checks RunConfig.Preamble (benchgate run -units): each line
// is a `Unit NAME key=value ...` line, a # comment or blank, without control
// characters but tabs (errBadOption, naming the line). A result or
// configuration line there would be written into both outputs.
func CheckPreamble(p string) error {
	for i, line := range strings.Split(strings.TrimSuffix(p, "\n"), "\n") {
		if strings.ContainsFunc(line, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) {
			return fmt.Errorf("%w: line %d %q holds a control character", errBadOption, i+1, line)
		}
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") || f[0] == "Unit" && len(f) >= 3 {
			continue
		}
		return fmt.Errorf("%w: line %d %q: want a `Unit NAME key=value` line, a # comment or a blank line", errBadOption, i+1, line)
	}
	return nil
}

// checkText checks the values of c that reach a header line, git or the go
// command (see CheckText).
func (c RunConfig) checkText() error {
	for _, f := range []struct{ name, v string }{
		{"Tags", c.Tags}, {"HeadTags", c.HeadTags}, {"Bench", c.Bench},
	} {
		if err := CheckText(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	for _, f := range []struct{ name, v string }{{"Base", c.Base}, {"Head", c.Head}} {
		if err := CheckRev(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	for _, p := range c.Pkgs {
		if err := CheckPackage(p); err != nil {
			return fmt.Errorf("pkgs: %w", err)
		}
	}
	for _, t := range c.Targets {
		if err := CheckPackage(t.Pkg); err != nil {
			return fmt.Errorf("target: %w", err)
		}
		if err := CheckText(t.Bench); err != nil {
			return fmt.Errorf("target %s: Bench: %w", t.Pkg, err)
		}
		if err := CheckEnv(t.HeadEnv); err != nil {
			return fmt.Errorf("%w: target %s:%s: HeadEnv: %w", errBadOption, t.Pkg, t.Bench, err)
		}
	}
	if err := CheckPreamble(c.Preamble); err != nil {
		return fmt.Errorf("preamble: %w", err)
	}
	return nil
}

// configLine is a `key: value` header line with any control character of
// value (a tool's output: go env, uname, valgrind) replaced by a blank, so
// that it stays one line.
func configLine(key, value string) string {
	return key + ": " + strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, value) + "\n"
}
