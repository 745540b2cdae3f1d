package gcstress

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// panicEngine panics in Put: what a broken engine does to its child.
type panicEngine struct{ nopEngine }

func (panicEngine) Put(key, value []byte) error { panic("test-panic engine: Put is broken") }

func init() {
	RegisterEngine("test-panic", func(Scenario) (Engine, error) { return panicEngine{}, nil })
}

// TestPanicIsShown: a child whose engine panics fails, and its "panic:" line,
// which the old code kept only in summary.json's stderr tail, is also printed
// on the progress writer (stderr) and listed in report.md's notes.
func TestPanicIsShown(t *testing.T) {
	out := t.TempDir()
	c := tinyConfig(out)
	c.Kinds = []string{"test-panic"}
	var progress syncBuf
	sum, err := Run(context.Background(), c, Options{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) != 1 || sum.Results[0].Verdict.Class != results.Failed {
		t.Fatalf("results %+v, want one failed run", sum.Results)
	}
	const want = "panic: test-panic engine: Put is broken"
	if !strings.Contains(progress.String(), "the child panicked: "+want) {
		t.Errorf("progress lacks the panic line:\n%s", progress.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(md, []byte("## Notes")); i < 0 || !bytes.Contains(md[i:], []byte(want)) {
		t.Errorf("report.md has no note with %q", want)
	}
}
