package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestSync(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(dir); err != nil {
		t.Fatalf("SyncDir(%s): %v", dir, err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); err == nil && runtime.GOOS == "linux" {
		t.Error("Sync of a missing folder: nil error")
	}
}
