package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.failed = append(r.failed, fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	if UpdateGolden() {
		t.Skip("compares on purpose; meaningless under -update")
	}
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	CheckGolden(r, path, []byte("a\nb\nc\n"))
	if len(r.failed) != 0 {
		t.Fatalf("equal bytes failed: %q", r.failed)
	}
	CheckGolden(r, path, []byte("a\nB\nc\n"))
	want := "--- " + path + "\n+++ got\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n \n"
	if len(r.failed) != 1 || !strings.HasSuffix(r.failed[0], want) {
		t.Fatalf("mismatch reported as %q, want a message ending in the diff %q", r.failed, want)
	}
	r.failed = nil
	CheckGolden(r, filepath.Join(t.TempDir(), "missing.golden"), nil)
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "-update") {
		t.Fatalf("missing file reported as %q", r.failed)
	}
}

func TestDiffCarriageReturn(t *testing.T) {
	if d := Diff("f", []byte("a\n"), []byte("a\r\n")); !strings.Contains(d, "-a") || !strings.Contains(d, "+a\r") {
		t.Fatalf("diff %q does not show the changed line ending", d)
	}
	if d := Diff("f", []byte("a\n"), []byte("a\n")); d != "" {
		t.Fatalf("diff of equal inputs: %q", d)
	}
}
