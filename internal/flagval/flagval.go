// Package flagval parses the values of writegc's command-line flags that
// more than one command takes, so that a value written for one command
// means the same to the others.
//
// Invariants:
//   - A fraction is written either as a percentage with a trailing "%"
//     ("10%", "12.5%") or as a bare fraction ("0.1"): both spellings of one
//     value parse to the same float64. A bare "10" is the fraction 10
//     (1000%), never 10%: a caller's range check refuses it rather than
//     this package guessing.
//   - NaN and infinities are refused in either spelling, and so are empty
//     strings, spaces and anything strconv.ParseFloat refuses.
//   - Every error wraps ErrBadValue and is one line that shows an example
//     of a value that is accepted, so a command can print it as is.
//   - A list flag ("-kinds heap,arena") is split at commas by List: spaces
//     around an item and empty items are dropped, so "a, b,," is [a b].
//
// The package holds no state; its functions are safe for concurrent use. A
// Fraction is a flag.Value bound to one variable: use it from one
// goroutine, as package flag does.
package flagval

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrBadValue is wrapped by every error of the package.
var ErrBadValue = errors.New("bad flag value")

// ParseFraction reads "10%" (a percentage) or "0.1" (a fraction) as the
// fraction 0.1. The result is finite; its range is the caller's to check.
func ParseFraction(s string) (float64, error) {
	v, err := parseFraction(s)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	return v, nil
}

// parseFraction is ParseFraction with an error that does not repeat s
// (package flag names the value already).
func parseFraction(s string) (float64, error) {
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, badValue("want a percentage like 10% or a fraction like 0.1")
	}
	if pct {
		v /= 100
	}
	return v, nil
}

// List splits a comma-separated list flag into its items, each trimmed of
// spaces; empty items are dropped, and a list without items is nil.
func List(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// badValue is an error that says why and wraps ErrBadValue.
type badValue string

func (e badValue) Error() string { return string(e) }
func (e badValue) Unwrap() error { return ErrBadValue }

// FormatFraction writes f as ParseFraction reads it back: a percentage
// ("10%").
func FormatFraction(f float64) string {
	return strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}

// Fraction is a flag.Value for a fraction above 0 and at most Max, written
// as ParseFraction reads it. Set stores into *P; String shows *P as a
// percentage. A nil P is a programming error (Set panics).
type Fraction struct {
	P   *float64
	Max float64
}

// String is the current value as a percentage ("10%"); "" without P, as
// package flag expects of a zero Value.
func (f Fraction) String() string {
	if f.P == nil {
		return ""
	}
	return FormatFraction(*f.P)
}

// Set parses s as ParseFraction does and checks that it is in (0, Max];
// its errors do not repeat s (package flag shows it).
func (f Fraction) Set(s string) error {
	v, err := parseFraction(s)
	if err != nil {
		return err
	}
	if !(v > 0 && v <= f.Max) {
		return badValue(fmt.Sprintf("want a percentage above 0%% and at most %s like 10%%, or a fraction like 0.1", FormatFraction(f.Max)))
	}
	*f.P = v
	return nil
}
