package explain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGenerateTestdata -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenText(t *testing.T) {
	a, err := Explain(filepath.Join("testdata", "heap"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := a.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "heap.golden.txt", b.Bytes())
	b.Reset()
	if err := a.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "heap.golden.md", b.Bytes())
}

func TestGoldenDiff(t *testing.T) {
	a, err := Explain(filepath.Join("testdata", "heap"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Explain(filepath.Join("testdata", "flat"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "diff.golden.txt", []byte(Diff(a, f)))
}
