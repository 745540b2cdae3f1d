// Package testfs writes the small file trees writegc's tests build: a map of
// slash-separated relative names to contents, written under a folder.
//
// Invariants: every helper fails the test it is given rather than return an
// error; parent folders are made as needed (0o755), files are written 0o644
// and replace what was there; nothing outside the folder named is written.
// For tests only; safe to call from parallel tests that do not share a
// folder.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (relative, slash-separated name -> contents) under dir.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Dir makes the folder parent/name, which must not exist yet, writes files
// under it and returns its path. With no files the folder is left empty.
func Dir(t testing.TB, parent, name string, files map[string]string) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	Write(t, d, files)
	return d
}
