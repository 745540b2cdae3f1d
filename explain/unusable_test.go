package explain

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTestdata copies testdata/heap/name into dir.
func copyTestdata(t *testing.T, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "heap", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKilledCaptureKeepsTheTrace: the folder of a child killed while
// profiling holds a 0-byte cpu.pprof, a truncated allocs.pprof and an
// empty metrics.json beside a usable trace. The account is built from the
// trace and lists each left-out file with its reason.
func TestKilledCaptureKeepsTheTrace(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, "trace.out")
	allocs, err := os.ReadFile(filepath.Join("testdata", "heap", "allocs.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"cpu.pprof":    nil,
		"allocs.pprof": allocs[:len(allocs)/2],
		MetricsFile:    nil,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Explain(dir)
	if err != nil {
		t.Fatalf("whole explanation dropped: %v", err)
	}
	if len(a.Traces) != 1 || a.CPU != nil || a.Allocs != nil || len(a.Files) != 1 {
		t.Fatalf("account: files %+v traces %d", a.Files, len(a.Traces))
	}
	want := map[string]error{"cpu.pprof": ErrEmpty, "allocs.pprof": ErrCorrupt, MetricsFile: ErrEmpty}
	if len(a.Unusable) != len(want) {
		t.Fatalf("unusable %+v, want %d files", a.Unusable, len(want))
	}
	for _, u := range a.Unusable {
		if w := want[filepath.Base(u.Path)]; !errors.Is(u.Err, w) {
			t.Errorf("%s: %v, want %v", u.Path, u.Err, w)
		}
	}
	var b bytes.Buffer
	if err := a.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"not used: cpu.pprof: empty profile", "not used: allocs.pprof: corrupt profile", "GC cycles"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, b.String())
		}
	}
}

// TestNoUsableFile: when every file is unusable the error carries every
// reason.
func TestNoUsableFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cpu.pprof"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "trace.out"), []byte("go 1.2"), 0o644)
	_, err := Explain(dir)
	if !errors.Is(err, ErrEmpty) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err %v, want both empty and corrupt", err)
	}
}

// TestTruncatedIsCorrupt: profiles cut short are corrupt, not unsupported,
// whether gzipped (cut inside the magic) or plain protobuf.
func TestTruncatedIsCorrupt(t *testing.T) {
	gz, err := os.ReadFile(filepath.Join("testdata", "heap", "cpu.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"gzip-1-byte.pprof": gz[:1],
		"raw-half.pprof":    raw[:len(raw)/2],
		"raw-cut.pprof":     raw[:len(raw)-1],
		"trace-2-bytes.out": []byte("go"),
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Explain(p); !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want corrupt", name, err)
		}
	}
	// A complete plain-protobuf profile still parses.
	p := filepath.Join(dir, "raw.pprof")
	os.WriteFile(p, raw, 0o644)
	if a, err := Explain(p); err != nil || a.CPU == nil {
		t.Fatalf("plain protobuf profile: %v", err)
	}
}
