package flagval

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParseFraction: the two spellings of one value agree; what is not a
// finite number is refused with an example.
func TestParseFraction(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{{"10%", 0.1}, {"0.1", 0.1}, {"12.5%", 0.125}, {"0.125", 0.125}, {"0%", 0}, {"150%", 1.5}, {"10", 10}, {"-5%", -0.05}} {
		got, err := ParseFraction(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseFraction(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "%", "ten", "10 %", " 10%", "10%%", "NaN", "NaN%", "Inf", "-Inf%", "1e999", "0x%"} {
		_, err := ParseFraction(in)
		if !errors.Is(err, ErrBadValue) || !strings.Contains(err.Error(), "like 10%") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseFraction(%q): %v", in, err)
		}
	}
}

// TestFractionFlag: as a flag, both spellings set the variable, the range
// is (0, Max], and the error of a bad value is one line with an example.
func TestFractionFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{{"10%", 0.1, true}, {"0.1", 0.1, true}, {"1000%", 10, true}, {"0", 0, false}, {"0%", 0, false}, {"-1%", 0, false}, {"1001%", 0, false}, {"x", 0, false}} {
		v := 0.5
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(Fraction{P: &v, Max: 10}, "threshold", "")
		err := fs.Parse([]string{"-threshold", tc.in})
		switch {
		case tc.ok && (err != nil || v != tc.want):
			t.Errorf("-threshold %s: %v, %v", tc.in, v, err)
		case !tc.ok && (err == nil || v != 0.5 || !strings.Contains(err.Error(), "like 10%") || strings.Contains(err.Error(), "\n")):
			t.Errorf("-threshold %s: %v, %v", tc.in, v, err)
		}
	}
	v := 0.125
	if s := (Fraction{P: &v}).String(); s != "12.5%" {
		t.Errorf("String %q", s)
	}
	if s := (Fraction{}).String(); s != "" {
		t.Errorf("zero String %q", s)
	}
}

// TestList: items are trimmed, empty ones dropped, and no items is nil.
func TestList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{{"", nil}, {" , ,", nil}, {"a", []string{"a"}}, {"heap, arena,,btree ", []string{"heap", "arena", "btree"}}} {
		if got := List(tc.in); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("List(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
