package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/inputfile"
)

// writeArchived writes dir/samples.jsonl.gz from stream.
func writeArchived(t *testing.T, dir string, stream []Sample) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	enc := json.NewEncoder(zw)
	for _, s := range stream {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.jsonl.gz"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadArchived replays a folder's gzipped samples; a missing or
// uncompressed file, or a directory in its place, is an error naming it;
// a stream past its limit is ErrTooLarge.
func TestReadArchived(t *testing.T) {
	dir := t.TempDir()
	s := Scenario{Name: "heap/100B", Kind: "heap", Value: 100}
	writeArchived(t, dir, []Sample{{Type: SampleStart, Scenario: s.Name, Spec: &s}, {Type: SampleWindow, Scenario: s.Name, T: 1},
		{Type: SampleEnd, Scenario: s.Name, Reason: StopKeys}})
	sum, rs, skipped, err := ReadArchived(dir)
	if err != nil || sum == nil || len(rs) != 1 || len(rs[0].Windows) != 1 || len(skipped) != 0 {
		t.Fatalf("ReadArchived: %v, %d results, skipped %v", err, len(rs), skipped)
	}

	bad := t.TempDir()
	if _, _, _, err := ReadArchived(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no samples: %v, want not exist", err)
	}
	if err := os.WriteFile(filepath.Join(bad, "samples.jsonl.gz"), []byte("{\"type\":\"start\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := ReadArchived(bad); err == nil || !strings.Contains(err.Error(), "samples.jsonl.gz") {
		t.Errorf("not gzip: %v, want an error naming the file", err)
	}
	dirAsFile := t.TempDir()
	if err := os.Mkdir(filepath.Join(dirAsFile, "samples.jsonl.gz"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := ReadArchived(dirAsFile); !errors.Is(err, inputfile.ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}

	lr := &limitedReader{r: strings.NewReader(strings.Repeat("x", 100)), left: 10, limit: 10, path: "p"}
	if _, err := io.ReadAll(lr); !errors.Is(err, inputfile.ErrTooLarge) || !strings.Contains(err.Error(), "limit 10 bytes") {
		t.Errorf("past the limit: %v, want ErrTooLarge naming it", err)
	}
}
