package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
)

// TestEngineNotesSection: an engine's notes (end.engine_notes) are listed
// after the GC table in the terminal report (golden), while a report
// without notes has no such section.
func TestEngineNotesSection(t *testing.T) {
	notes := map[string]float64{"accepted_writes": 19_000, "budget_bytes": 268435456, "hit_ratio": 0.41254}
	sum := fixedSummary(t)
	var plain bytes.Buffer
	if err := WriteTable(&plain, sum); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain.Bytes(), []byte("Engine notes")) {
		t.Fatal("a report without engine notes has an Engine notes section")
	}
	for i := range sum.Results {
		if r := &sum.Results[i]; r.End != nil && r.Scenario.Group == results.SetMatrix {
			e := *r.End
			e.Notes = notes
			r.End = &e
			break
		}
	}
	var got bytes.Buffer
	if err := WriteTable(&got, sum); err != nil {
		t.Fatal(err)
	}
	testkit.CheckGolden(t, filepath.Join("testdata", "report_notes.golden.txt"), got.Bytes())
}
