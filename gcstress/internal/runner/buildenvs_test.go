package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/usage"
)

func TestCheckPkg(t *testing.T) {
	for _, ok := range []string{"", "./cmd/mystore", "example.com/x/cmd/y", "../x", "/abs/path/cmd"} {
		if err := CheckPkg(ok); err != nil {
			t.Errorf("CheckPkg(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"-toolexec=/p", "-", "--", "./...", "x/...", "...", "std", "cmd", "all", "tool", "work", "main",
		"a b", "a\tb", "a\nb", "a\x00", "\xff", strings.Repeat("x", MaxPkg+1)} {
		err := CheckPkg(bad)
		if !errors.Is(err, usage.ErrUsage) || !strings.Contains(err.Error(), "-build-pkg") || strings.ContainsAny(err.Error(), "\n\t\x00") {
			t.Errorf("CheckPkg(%.20q) = %v; want one line of usage naming -build-pkg", bad, err)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "0", "greentea", "go1.26", "a_b-c.d", strings.Repeat("a", MaxName)} {
		if !validName(ok) {
			t.Errorf("validName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", ".", "..", "-a", "_a", ".a", "A", "a/b", "a b", "a\nb", strings.Repeat("a", MaxName+1)} {
		if validName(bad) {
			t.Errorf("validName(%q) = true", bad)
		}
	}
}
