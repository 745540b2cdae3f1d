package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: a write lands whole with mode 0644 and leaves no temporary
// file; a failing write function or a missing folder leaves the earlier
// file as it was and nothing beside it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteBytes(p, []byte("first\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("stat %v, mode %v; want 0644", err, fi.Mode())
	}
	boom := errors.New("boom")
	err = Write(p, func(w io.Writer) error {
		if _, err := w.Write([]byte("half of a second")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failing write: %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first\n" {
		t.Errorf("after a failed write: %q, want the first file", b)
	}
	if err := WriteBytes(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Error("a missing folder: nil error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %d entries, want only out.json", len(ents))
	}
}
