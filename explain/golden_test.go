package explain

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// checkGolden compares got with testdata/name (go test -update rewrites it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.CheckGolden(t, filepath.Join("testdata", name), got)
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
	var b bytes.Buffer
	if err := WriteDiff(&b, a, f, false); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "diff.golden.txt", b.Bytes())
}
