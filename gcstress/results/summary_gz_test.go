package results

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/writegc/writegc/internal/inputfile"
)

func writeGzip(t *testing.T, path string, data []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An archived folder keeps summary.json.gz: it reads as summary.json does.
func TestReadSummaryCompressed(t *testing.T) {
	dir := t.TempDir()
	if HasSummary(dir) {
		t.Fatal("an empty folder has a summary")
	}
	writeGzip(t, filepath.Join(dir, ArchivedSummaryFile), []byte(`{"command":"gcstress matrix","rules":"r"}`))
	if !HasSummary(dir) {
		t.Fatal("summary.json.gz not seen")
	}
	sum, err := ReadSummary(dir)
	if err != nil || sum.Command != "gcstress matrix" || sum.Rules != "r" {
		t.Fatalf("%+v %v", sum, err)
	}
}

// A compressed stream over the limit stops there with ErrTooLarge,
// whatever its compressed size (ReadSummary's MaxSummaryBytes).
func TestReadSummaryCompressedBomb(t *testing.T) {
	path := filepath.Join(t.TempDir(), ArchivedSummaryFile)
	writeGzip(t, path, bytes.Repeat([]byte(" "), 64<<10))
	if _, err := readGzip(path, 1<<10); !errors.Is(err, inputfile.ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
}
