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

// A value reaches the go command's environment and line-oriented files
// (benchgate's base.txt, a configuration line): a newline, carriage
// return, tab, NUL, DEL, a C1 control, a Unicode line separator or invalid
// UTF-8 in a value or key is refused; printable text and blanks are not.
func TestCheckRefusesControlCharacters(t *testing.T) {
	for _, bad := range []string{
		"X=a\npkg: x", "X=a\rb", "X=a\tb", "X=a\x00b", "X=a\x7fb", "X=a\u0085b", "X=a\u2028b", "X=a\xffb",
		"X\xff=1", "X\u2028=1",
	} {
		if err := Check([]string{bad}); !errors.Is(err, ErrBadEnv) || strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("Check(%q) = %v, want one line of ErrBadEnv", bad, err)
		}
	}
	if _, err := Parse(`X="a` + "\n" + `BenchmarkAlloc-2 1000 100000 ns/op"`); !errors.Is(err, ErrBadEnv) {
		t.Errorf("Parse of a quoted newline = %v, want ErrBadEnv", err)
	}
	for _, good := range []string{"GOFLAGS=-tags=x -trimpath", "X=é ü 中", "X=", "X=a=b"} {
		if err := Check([]string{good}); err != nil {
			t.Errorf("Check(%q) = %v", good, err)
		}
	}
}
