package explain

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
)

// TestBadFiles: an empty, corrupt or wrong-type file is an error that names
// the file and wraps the right sentinel.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	cpu, err := os.ReadFile(filepath.Join("testdata", "heap", "cpu.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := os.ReadFile(filepath.Join("testdata", "heap", "trace.out"))
	if err != nil {
		t.Fatal(err)
	}
	var gor bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&gor, 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty.pprof", nil, ErrEmpty},
		{"truncated.pprof", cpu[:len(cpu)/2], ErrCorrupt},
		{"flipped.pprof", append(append([]byte{}, cpu[:20]...), bytes.Repeat([]byte{0xff}, 200)...), ErrCorrupt},
		{"truncated.out", tr[:len(tr)/3], ErrCorrupt},
		{"header-only.out", tr[:16], ErrEmpty},
		{"results.json", []byte(`{"kind":"heap"}`), ErrUnsupported},
		{"notes.txt", []byte("hello, profile\n"), ErrUnsupported},
		{"goroutine.pprof", gor.Bytes(), ErrUnsupported},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Explain(p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", c.name, err)
		}
	}
	if _, err := Explain(filepath.Join(dir, "missing.pprof")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Explain(t.TempDir()); !errors.Is(err, ErrNoProfiles) {
		t.Errorf("empty dir: %v", err)
	}
}

func TestParseKinds(t *testing.T) {
	k, err := ParseProfiles("cpu, heap,allocs,fgprof,trace,mutex,block,cpu")
	if err != nil || k != ProfileAll || k.String() != "cpu,heap,allocs,fgprof,trace,mutex,block" {
		t.Errorf("ParseProfiles = %v (%s), %v", k, k, err)
	}
	if k, err := ParseProfiles(""); err != nil || k != 0 {
		t.Errorf("empty: %v %v", k, err)
	}
	if k, _ := ParseProfiles("ALL"); k != ProfileAll {
		t.Errorf("all = %v", k)
	}
	if got := (ProfileCPU | ProfileTrace).Files(); strings.Join(got, " ") != "cpu.pprof trace.out" {
		t.Errorf("Files = %v", got)
	}
	_, err = ParseProfiles("cpu,goroutine")
	if !errors.Is(err, ErrUnknownProfile) || !strings.Contains(err.Error(), `"goroutine"`) || !strings.Contains(err.Error(), "block") {
		t.Errorf("unknown kind error = %v", err)
	}
}
