package report

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestOpeningParagraph: the report opens with one paragraph naming every
// kind, the user's too, against the one cheapest, with the mechanism; a
// kind whose runs completed no GC cycle reads n/a, never 0.
func TestOpeningParagraph(t *testing.T) {
	ok := results.Verdict{Class: results.Healthy}
	rs := []results.Result{
		conclusionResult(results.SetMatrix, "heap", 100, 5.0, 310, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "arena", 100, 0.002, 12, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "mystore", 100, 0.047, 20, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "offheap", 100, 0.003, 0, ok, results.Exit{}),
	}
	p := openingParagraph(&results.Summary{Results: rs}, noEscape)
	for _, want := range []string{
		"arena is the cheapest of 4 kinds: holds 0.002 heap objects per entry, no Go pointers per entry",
		"heap holds 5 heap objects per entry (2,500x more), objects the collector marks every cycle",
		"mystore holds 0.047", "offheap holds 0.003", "GC CPU n/a: no GC cycle completed",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("opening paragraph lacks %q:\n%s", want, p)
		}
	}
	if strings.Count(p, "cheapest") != 1 || strings.Contains(p, "0 GC CPU") || strings.Count(p, "\n") != 0 {
		t.Errorf("one paragraph, one cheapest, no 0 GC CPU:\n%s", p)
	}
	cs := conclusions(&results.Summary{Results: rs}, noEscape)
	if len(cs) != 1 || strings.Count(cs[0], "cheapest") > 0 || !strings.Contains(cs[0], "offheap GC CPU per Put n/a: no GC cycle completed") {
		t.Errorf("conclusions: %q", cs)
	}
}

// TestCostTableFlagsImpossible: bytes per entry below key+value reads as
// impossible in the cost table, and the opening paragraph says so.
func TestCostTableFlagsImpossible(t *testing.T) {
	r := conclusionResult(results.SetMatrix, "mine", 1024, 0.4, 20, results.Verdict{Class: results.Healthy}, results.Exit{})
	r.End.BytesPerEntry, r.End.Impossible = 871, true
	h, rows := costTable([]results.Result{r})
	for i, c := range h {
		if c == "Bytes/entry" && !strings.Contains(rows[0][i], "impossible") {
			t.Errorf("bytes cell %q not flagged", rows[0][i])
		}
	}
	if p := openingParagraph(&results.Summary{Results: []results.Result{r}}, noEscape); !strings.Contains(p, "below key+value") {
		t.Errorf("opening paragraph does not flag it: %s", p)
	}
}
