package testkit

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDir: Dir makes the folder and its subfolders and writes each file's
// contents under its name; a folder that exists already fails the test.
func TestDir(t *testing.T) {
	parent := t.TempDir()
	d := Dir(t, parent, "tree", map[string]string{"a.txt": "A", "sub/b.txt": "B"})
	for name, want := range map[string]string{"a.txt": "A", "sub/b.txt": "B"} {
		got, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	ft := &fatalTB{TB: t}
	func() {
		defer func() { recover() }()
		Dir(ft, parent, "tree", nil)
	}()
	if !ft.failed {
		t.Error("Dir of an existing folder did not fail the test")
	}
}

// fatalTB records a Fatal instead of stopping the test.
type fatalTB struct {
	testing.TB
	failed bool
}

func (f *fatalTB) Fatal(args ...any) { f.failed = true; panic("fatal") }
func (f *fatalTB) Helper()           {}

// TestTreeReadsWhatWriteWrote: Tree gives back Write's files, and each
// folder on the way with a trailing slash.
func TestTreeReadsWhatWriteWrote(t *testing.T) {
	dir := t.TempDir()
	Write(t, dir, map[string]string{"a.txt": "A", "sub/b.txt": "B"})
	got := Tree(t, dir)
	want := map[string]string{"a.txt": "A", "sub/": "", "sub/b.txt": "B"}
	if names := Names(t, dir); !slices.Equal(names, []string{"a.txt", "sub"}) {
		t.Errorf("Names = %q", names)
	}
	if !maps.Equal(got, want) {
		t.Fatalf("Tree = %q, want %q", got, want)
	}
}
