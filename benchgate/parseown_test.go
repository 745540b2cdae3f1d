package benchgate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A malformed line of a temporary output directory's file is named by the
// file's base name: the directory is removed at exit, so its path would
// name nothing. With -out (temp false) the path stays, for the user to open.
func TestParseOwnNamesTempFilesByBaseName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "head.txt")
	body := "BenchmarkA 10 5 ns/op\nBenchmarkA 10 five ns/op\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := parseOwn(path, true)
	if err == nil || !strings.Contains(err.Error(), "head.txt:2:") || strings.Contains(err.Error(), dir) {
		t.Errorf("temp: %v, want head.txt:2 and not %s", err, dir)
	}
	_, err = parseOwn(path, false)
	if err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("kept: %v, want %s:2", err, path)
	}
}
