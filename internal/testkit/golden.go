package testkit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

var update = flag.Bool("update", false, "rewrite golden files from the tests' output instead of comparing")

// UpdateGolden reports whether the tests run with -update, for tests that
// regenerate other test data along with their golden files.
func UpdateGolden() bool { return *update }

// CheckGolden compares got with the golden file at path. With -update it writes
// got to path (creating its directory) and passes; otherwise a missing or
// unreadable file, or any difference, fails t, the latter with a unified
// diff (--- path, +++ got).
func CheckGolden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test with -update if the change is intended):\n%s",
			path, Diff(path, want, got))
	}
}

// Diff returns a unified diff from want (named path) to got, with three
// lines of context.
func Diff(path string, want, got []byte) string {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(want)),
		B:        difflib.SplitLines(string(got)),
		FromFile: path,
		ToFile:   "got",
		Context:  3,
	})
	if err != nil {
		return fmt.Sprintf("(no diff: %v)", err)
	}
	if d == "" && !bytes.Equal(want, got) {
		return fmt.Sprintf("(the bytes differ where a line diff does not show it: file %d bytes, output %d bytes)", len(want), len(got))
	}
	return d
}
