package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestOpeningParagraph: the report opens with one paragraph naming every
// kind, the user's too, against the one lightest, with the mechanism; a
// kind whose runs rest on too few GC cycles reads n/a, never 0; objects
// per entry below what a run resolves read ~0, with no ratio against them.
func TestOpeningParagraph(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	rs := []results.Result{
		conclusionResult(results.SetMatrix, "heap", 100, 5.0, 310, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "arena", 100, 0.002, 12, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "mystore", 100, 0.047, 20, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "offheap", 100, 0.003, 0, ok, results.Exit{}),
	}
	p := openingParagraph(&results.Summary{Results: rs}, noEscape)
	for _, want := range []string{
		"arena's layout is the lightest of 4 kinds: holds ~0 heap objects per entry, no Go pointers per entry",
		"heap holds 5 heap objects per entry, objects the collector marks every cycle and costs 2.5 GC CPU-s per GB written (26x more)",
		"mystore holds 0.047", "offheap holds ~0 heap objects per entry (both ~0)", "GC CPU n/a (fewer than 2 cycles)",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("opening paragraph lacks %q:\n%s", want, p)
		}
	}
	if strings.Count(p, "lightest") != 1 || strings.Contains(p, "0 GC CPU") || strings.Count(p, "\n") != 0 || strings.Contains(p, "2,500x") {
		t.Errorf("one paragraph, one lightest, no 0 GC CPU, no ratio against ~0:\n%s", p)
	}
	cs := conclusions(&results.Summary{Results: rs}, noEscape)
	if len(cs) != 1 || strings.Count(cs[0], "cheapest") > 0 || !strings.Contains(cs[0], "offheap GC CPU per Put n/a (fewer than 2 cycles)") {
		t.Errorf("conclusions: %q", cs)
	}
}

// offHeapResult is a run of a kind that keeps its data in mmap'd chunks:
// heapB Go heap bytes per entry over entries entries, and offHeap bytes
// off the heap in all, flagged by the run as impossible (as a record from
// before off-heap bytes counted was, or as an inflated count is).
func offHeapResult(kind string, value int64, entries int64, heapB float64, offHeap int64) results.Result {
	r := conclusionResult(results.SetMatrix, kind, value, 0.0001, 20, results.Health{Class: results.Healthy}, results.Exit{})
	r.End.Entries, r.End.BytesPerEntry, r.End.OffHeapBytes = entries, heapB, offHeap
	r.End.Impossible = results.Inflated(r.End.EntryFootprint(), value) || heapB < float64(results.KeySize+value)
	return r
}

// TestCostTableOffHeap: an engine whose heap plus off-heap bytes per entry
// cover key+value is not flagged (its cost table cell shows both); one
// whose entry count is inflated is flagged, and the opening names the
// entry count it doubts with the figures that show it.
func TestCostTableOffHeap(t *testing.T) {
	covered := offHeapResult("chunked", 100, 100_000, 12, 100_000*110)
	inflated := offHeapResult("chunked", 100, 1_000_000, 1.2, 100_000*10)
	for _, tc := range []struct {
		name    string
		r       results.Result
		cell    string
		flagged bool
	}{
		{"covered", covered, "12 + 110 off-heap", false},
		{"inflated", inflated, "1.2 + 1 off-heap (below key+value 116 B: entries inflated?)", true},
	} {
		h, rows := costTable([]results.Result{tc.r})
		for i, c := range h {
			if c == "Bytes/entry" && rows[0][i] != tc.cell {
				t.Errorf("%s: bytes cell %q, want %q", tc.name, rows[0][i], tc.cell)
			}
		}
		p := openingParagraph(&results.Summary{Results: []results.Result{tc.r}}, noEscape)
		doubt := "entries 1,000,000 (reported by the engine) looks inflated: heap+off-heap bytes per entry 2.2 B is below key+value 116 B"
		if got := strings.Contains(p, "looks inflated"); got != tc.flagged || tc.flagged && !strings.Contains(p, doubt) {
			t.Errorf("%s: opening flags %v, want %v (naming %q):\n%s", tc.name, got, tc.flagged, doubt, p)
		}
	}
}

// TestCostTableFlagsImpossible: Go heap bytes per entry below key+value
// from an engine with no off-heap bytes is flagged in the cost table, and
// the opening paragraph names the entry count, from the keys written when
// the engine reports none.
func TestCostTableFlagsImpossible(t *testing.T) {
	r := conclusionResult(results.SetMatrix, "mine", 1024, 0.4, 20, results.Health{Class: results.Healthy}, results.Exit{})
	r.End.BytesPerEntry, r.End.Impossible, r.End.EntriesFrom = 871, true, results.EntriesKeys
	h, rows := costTable([]results.Result{r})
	for i, c := range h {
		if c == "Bytes/entry" && rows[0][i] != "871 (below key+value 1040 B: entries inflated?)" {
			t.Errorf("bytes cell %q not flagged", rows[0][i])
		}
	}
	want := "entries 400,000 (the keys written: the engine reports none) looks inflated: heap+off-heap bytes per entry 871 B is below key+value 1040 B"
	if p := openingParagraph(&results.Summary{Results: []results.Result{r}}, noEscape); !strings.Contains(p, want) {
		t.Errorf("opening paragraph does not name the entry count: %s", p)
	}
}

// TestFewCyclesEverywhere: a run whose windows completed one GC cycle
// reads "n/a (fewer than 2 cycles)" in every GC cell of the cost table,
// the opening paragraph and the conclusions, and is not ranked by the
// headline; its 0.0003 objects per entry read ~0 wherever they appear.
func TestFewCyclesEverywhere(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	heap := conclusionResult(results.SetMatrix, "heap", 100, 5, 310, ok, results.Exit{})
	free := conclusionResult(results.SetMatrix, "chunked", 100, 0.0003, 2, ok, results.Exit{})
	e := *free.End
	e.Cycles, e.Cost = 1, e.Cost.WithCycles(1, 4e7)
	free.End = &e
	sum := &results.Summary{Results: []results.Result{heap, free}}
	h, rows := costTable(sum.Results)
	for i, c := range h {
		if strings.Contains(c, "GC") && rows[1][i] != fewCycles() {
			t.Errorf("%s: %q", c, rows[1][i])
		}
		if c == "Objects/entry" && rows[1][i] != "~0" {
			t.Errorf("objects: %q", rows[1][i])
		}
	}
	na := "n/a (fewer than 2 cycles)"
	if p := openingParagraph(sum, noEscape); !strings.Contains(p, "chunked's layout is the lightest of 2 kinds: holds ~0 heap objects per entry, no Go pointers per entry and GC CPU "+na) {
		t.Errorf("opening: %s", p)
	}
	if cs := conclusions(sum, noEscape); len(cs) != 1 || !strings.Contains(cs[0], "chunked GC CPU per Put "+na) || strings.Contains(cs[0], "x fewer") {
		t.Errorf("conclusions: %q", cs)
	}
	if hl := headline(sum, noEscape); !strings.HasPrefix(hl, "heap is the only kind measured") || !strings.Contains(hl, "chunked: GC CPU "+na+", not ranked") {
		t.Errorf("headline: %s", hl)
	}
}

// TestNoRatioOfUnresolved: kinds at ~0 objects per entry are "about the
// same (both ~0)", never 3x apart; a kind at ~0 against one at 5 gets no
// ratio (the 15,806x).
func TestNoRatioOfUnresolved(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	a := conclusionResult(results.SetMatrix, "a", 100, 0.0001, 12, ok, results.Exit{})
	b := conclusionResult(results.SetMatrix, "b", 100, 0.0003, 12.5, ok, results.Exit{})
	heap := conclusionResult(results.SetMatrix, "heap", 100, 5, 310, ok, results.Exit{})
	ratio := regexp.MustCompile(`[0-9,.]+x (fewer|more)`)
	cs := conclusions(&results.Summary{Results: []results.Result{a, b}}, noEscape)
	if len(cs) != 1 || !strings.Contains(cs[0], "a and b hold about the same heap objects per entry (both ~0)") || ratio.MatchString(cs[0]) {
		t.Errorf("two at ~0: %q", cs)
	}
	for _, s := range append(conclusions(&results.Summary{Results: []results.Result{heap, a}}, noEscape),
		openingParagraph(&results.Summary{Results: []results.Result{heap, a, b}}, noEscape)) {
		if strings.Contains(s, "heap objects per entry (") && ratio.MatchString(s[:strings.Index(s, "GC")]) {
			t.Errorf("a ratio of objects against ~0: %s", s)
		}
	}
}

// TestHeadline: the line every report opens with says which kind costs
// the collector least, by how much and why; names kinds it could not rank;
// and, when no kind rests on enough GC cycles, says the run is
// inconclusive and what to do.
func TestHeadline(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	heap := conclusionResult(results.SetMatrix, "heap", 100, 5, 310, ok, results.Exit{})
	arena := conclusionResult(results.SetMatrix, "arena", 100, 0.002, 12, ok, results.Exit{})
	shard := conclusionResult(results.SetMatrix, "shardmap", 100, 2.2, 250, ok, results.Exit{})
	twin := conclusionResult(results.SetMatrix, "twin", 100, 5.1, 320, ok, results.Exit{})
	idle := func(r results.Result) results.Result {
		e := *r.End
		e.Cycles, e.Cost = 0, results.Cost{CPUSPerGB: 3}.WithCycles(0, 4e7)
		r.End = &e
		return r
	}
	for _, tc := range []struct {
		name string
		rs   []results.Result
		want string
	}{
		{"pointer-free against pointerful", []results.Result{heap, arena},
			"arena costs the collector least: 0.0968 GC CPU-s per GB written against heap's 2.5 (about 26x), because its entries hold no Go pointers " +
				"(~0 heap objects per entry against heap's 5, which the collector marks every cycle)."},
		{"fewer objects, three kinds", []results.Result{heap, shard, twin},
			"shardmap costs the collector least: 2.02 GC CPU-s per GB written against twin's 2.58, the most (about 1.3x), " +
				"because it holds fewer heap objects per entry (2.2 heap objects per entry against twin's 5.1)."},
		{"about the same", []results.Result{heap, twin}, "heap and twin cost the collector about the same: 2.5 to 2.58 GC CPU-s per GB written."},
		{"one kind", []results.Result{heap},
			"heap costs the collector 2.5 GC CPU-s per GB written, holding 5 heap objects per entry, which the collector marks every cycle."},
		{"nothing resolved", []results.Result{idle(heap), idle(arena)},
			"Inconclusive: no kind completed enough GC cycles (at least 2 in its measured windows) to say what it costs the collector; run longer or with more keys."},
	} {
		if got := headline(&results.Summary{Results: tc.rs}, noEscape); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestHeadlineOpensReports: report.md's first line after its title and
// the terminal report's first line are the headline, and report.html's
// data carries it.
func TestHeadlineOpensReports(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	sum := &results.Summary{Results: []results.Result{
		conclusionResult(results.SetMatrix, "heap", 100, 5, 310, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "arena", 100, 0.002, 12, ok, results.Exit{}),
	}}
	hl := headline(sum, noEscape)
	var md, tbl bytes.Buffer
	if err := WriteMarkdown(&md, sum, nil); err != nil || !strings.HasPrefix(md.String(), "# gcstress report\n\n**"+hl+"**\n\n") {
		t.Errorf("report.md (%v):\n%s", err, md.String())
	}
	if err := WriteTable(&tbl, sum); err != nil || !strings.HasPrefix(tbl.String(), hl+"\n") {
		t.Errorf("terminal (%v):\n%s", err, tbl.String())
	}
	if d := newReportData(sum); d.Headline != hl {
		t.Errorf("report.html headline %q", d.Headline)
	}
}
