package buildenv

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"GOEXPERIMENT=nogreenteagc", []string{"GOEXPERIMENT=nogreenteagc"}},
		{`GOFLAGS="-tags=x -trimpath" A=1`, []string{"GOFLAGS=-tags=x -trimpath", "A=1"}},
	} {
		got, err := Parse(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		if again, err := Parse(Format(got)); err != nil || !slices.Equal(again, got) {
			t.Errorf("Format(%q) = %q does not read back", got, Format(got))
		}
	}
	for _, bad := range []string{"A", "=1", "A=1 A=2", `A="x`, strings.Repeat("A", MaxBytes+1)} {
		if _, err := Parse(bad); !errors.Is(err, ErrBadEnv) {
			t.Errorf("Parse(%.20q) = %v, want ErrBadEnv", bad, err)
		}
	}
	many := make([]string, MaxPairs+1)
	for i := range many {
		many[i] = "K" + strings.Repeat("x", i) + "=1"
	}
	if err := Check(many); !errors.Is(err, ErrBadEnv) {
		t.Errorf("Check of %d pairs = %v", len(many), err)
	}
}

func TestForBuildAndValue(t *testing.T) {
	env := []string{"GOEXPERIMENT=nogreenteagc", "GOGC=off", "GODEBUG=x=1", "GOTOOLCHAIN=go1.27.3"}
	if got, want := ForBuild(env), []string{"GOEXPERIMENT=nogreenteagc", "GOTOOLCHAIN=go1.27.3"}; !slices.Equal(got, want) {
		t.Errorf("ForBuild = %q, want %q", got, want)
	}
	if Value(env, "GODEBUG") != "x=1" || Value(env, "GOAMD64") != "" {
		t.Errorf("Value: %q %q", Value(env, "GODEBUG"), Value(env, "GOAMD64"))
	}
	if got := GoErrorLine("# pkg\ngo: downloading x\n\ngo: unknown GOEXPERIMENT nope\nmore"); got != "go: unknown GOEXPERIMENT nope" {
		t.Errorf("GoErrorLine = %q", got)
	}
}
