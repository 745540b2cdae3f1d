package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
)

// conclusionResult is one scenario with the figures the sentences read;
// objects < 0 leaves the footprint out, gcNs < 0 the cost.
func conclusionResult(group, kind string, value int64, objects, gcNs float64, v results.Health, exit results.Exit) results.Result {
	s := results.Scenario{Name: group + "/" + kind, Group: group, Kind: kind, Value: value, Keys: 400_000, Writers: 2}
	end := &results.Sample{Type: results.SampleEnd, Scenario: s.Name, T: 5, Keys: 400_000, Bytes: 400_000 * (value + 24)}
	if objects >= 0 {
		end.Footprint = results.Footprint{ObjectsPerEntry: objects, BytesPerEntry: 100, Entries: 400_000, EntriesFrom: results.EntriesEngine}
	}
	if gcNs >= 0 {
		end.Cost = results.Cost{GCCPUNsPerPut: gcNs, CPUSPerGB: 10, GCCPUSPerGB: gcNs / float64(value+24)}
		if gcNs > 0 {
			end.Cycles = 10 // a figure of 0 is a run that completed no cycle
		}
	}
	return results.Result{Scenario: s, End: end, Last: *end, Verdict: v, Exit: exit}
}

// conclusionSummary is the fixture of the conclusion tests: a matrix pair
// 750x apart, three kinds with one lacking figures and a tie, a failure
// group where heap hit its RSS cap, a group of one kind (no sentence), a
// kind name with Markdown and HTML specials, and two capacity searches.
func conclusionSummary() *results.Summary {
	ok := results.Health{Class: results.Healthy}
	elev := results.Health{Class: results.Elevated}
	rss := results.Health{Class: results.Failed, FailedAt: 0.65}
	rs := []results.Result{
		conclusionResult(results.SetMatrix, "heap", 100, 3.1, 310, elev, results.Exit{}),
		conclusionResult(results.SetMatrix, "arena", 100, 0.002, 12, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "heap", 1024, 2.5, 400, elev, results.Exit{}),
		conclusionResult(results.SetMatrix, "offheap", 1024, -1, -1, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "my|kind<b>*", 1024, 2.4, 20, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "arena", 1024, 0.01, 21, ok, results.Exit{}),
		conclusionResult(results.SetFailure, "heap", 10, -1, 900, rss, results.Exit{RSSCap: true}),
		conclusionResult(results.SetFailure, "arena", 10, -1, 30, ok, results.Exit{}),
		conclusionResult(results.SetStall, "heap", 10, 2, 100, elev, results.Exit{}),
	}
	for i := range rs {
		if rs[i].Scenario.Group == results.SetMatrix {
			rs[i].Scenario.Name = rs[i].Scenario.Kind + "/" + rs[i].Scenario.Name
		}
	}
	th := results.DefaultThresholds()
	return &results.Summary{Command: "gcstress (conclusion test)", Thresholds: th, Rules: th.String(), SpanNote: results.SpanNote, Results: rs,
		Capacity: []results.Capacity{
			{Kind: "heap", Value: 100, SustainableMBps: 12, FirstUnhealthyMBps: 14, Limit: results.LimitGCCPU, ProbeMBps: 80},
			{Kind: "arena", Value: 100, SustainableMBps: 42, FirstUnhealthyMBps: 48, Limit: results.LimitLatency, ProbeMBps: 90},
		}}
}

// section is the text of out from from up to the first blank line after
// the heading.
func section(t *testing.T, out, from string) string {
	t.Helper()
	i := strings.Index(out, from)
	if i < 0 {
		t.Fatalf("no %q in the output", from)
	}
	rest := out[i:]
	if j := strings.Index(rest[len(from)+1:], "\n\n"); j >= 0 {
		rest = rest[:len(from)+1+j+1]
	}
	return rest
}

// TestConclusionGolden: the conclusion sentences as the terminal,
// Markdown and HTML reports print them (testdata/conclusion.golden.txt).
func TestConclusionGolden(t *testing.T) {
	sum := conclusionSummary()
	var out bytes.Buffer
	var b bytes.Buffer
	if err := WriteTable(&b, sum); err != nil {
		t.Fatal(err)
	}
	out.WriteString("== terminal\n" + section(t, b.String(), "Conclusions:"))
	b.Reset()
	if err := WriteMarkdown(&b, sum, nil); err != nil {
		t.Fatal(err)
	}
	out.WriteString("== report.md\n" + section(t, b.String(), "## Conclusions\n"))
	tbl, err := json.MarshalIndent(newReportData(sum).Tables[0], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("== report.html (data)\n" + string(tbl) + "\n")
	testkit.CheckGolden(t, filepath.Join("testdata", "conclusion.golden.txt"), out.Bytes())
}

// TestConclusionNamesTheCheaper: two engines whose objects per entry and
// GC CPU-ns per Put are 100x apart; the sentence names the cheaper one
// first, with both figures and the ratio, whichever order they ran in.
func TestConclusionNamesTheCheaper(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	shard := conclusionResult(results.SetMatrix, "shardmap", 100, 2.31, 950, ok, results.Exit{})
	seg := conclusionResult(results.SetMatrix, "segments", 100, 0.0231, 9.5, ok, results.Exit{})
	for _, rs := range [][]results.Result{{shard, seg}, {seg, shard}} {
		got := conclusions(&results.Summary{Results: rs}, noEscape)
		want := "At 100B values (400K keys), segments holds 0.0231 heap objects per entry against shardmap's 2.31 (100x fewer) " +
			"and costs 9.5 GC CPU-ns per Put against 950 (100x less); all 2 were healthy."
		if len(got) != 1 || got[0] != want {
			t.Errorf("conclusions:\n got %q\nwant %q", got, want)
		}
	}
}

// TestConclusionEdges: one kind has no sentence; figures within 10% read
// "about the same"; a kind without figures leaves their clauses out.
func TestConclusionEdges(t *testing.T) {
	ok := results.Health{Class: results.Healthy}
	one := []results.Result{conclusionResult(results.SetMatrix, "heap", 100, 2, 300, ok, results.Exit{})}
	if got := conclusions(&results.Summary{Results: one}, noEscape); len(got) != 0 {
		t.Errorf("one kind: %q", got)
	}
	tie := []results.Result{conclusionResult(results.SetMatrix, "a", 100, 2, 300, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "b", 100, 2.1, 310, ok, results.Exit{})}
	got := conclusions(&results.Summary{Results: tie}, noEscape)
	if len(got) != 1 || !strings.Contains(got[0], "a and b hold about the same heap objects per entry (2 to 2.1)") ||
		!strings.Contains(got[0], "a and b cost about the same GC CPU-ns per Put") {
		t.Errorf("tie: %q", got)
	}
	bare := []results.Result{conclusionResult(results.SetMatrix, "a", 100, -1, -1, ok, results.Exit{}),
		conclusionResult(results.SetMatrix, "b", 100, 2, 300, results.Health{Class: results.Degraded}, results.Exit{})}
	got = conclusions(&results.Summary{Results: bare}, noEscape)
	if len(got) != 1 || got[0] != "At 100B values (400K keys), b was degraded, a healthy." {
		t.Errorf("no figures: %q", got)
	}
}
