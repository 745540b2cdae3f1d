package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// TestUnboundedKeysAreWords: a duration-first scenario's key count
// (results.UnboundedKeys) reads "unbounded" in every table and sentence,
// never as the number.
func TestUnboundedKeysAreWords(t *testing.T) {
	sum := conclusionSummary()
	for i := range sum.Results {
		if sum.Results[i].Scenario.Group == results.SetMatrix {
			sum.Results[i].Scenario.Keys, sum.Results[i].Scenario.Duration = results.UnboundedKeys, 10*time.Second
		}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, sum); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&b, sum, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	n := strconv.FormatInt(results.UnboundedKeys, 10)
	if strings.Contains(out, n) || strings.Contains(out, commas(results.UnboundedKeys)) {
		t.Errorf("the unbounded key count printed as a number:\n%s", out)
	}
	if !strings.Contains(out, "| 100B       | unbounded |") || !strings.Contains(out, "At 100B values (keys unbounded)") {
		t.Errorf("no \"unbounded\" in the addendum table or the conclusion:\n%s", out)
	}
}

// TestLatencyCellsHaveUnits: every latency a table shows goes through
// view.NS: 5,000 ns reads "5.0µs", never "0.005" of some unit.
func TestLatencyCellsHaveUnits(t *testing.T) {
	r := conclusionResult(results.SetFailure, "heap", 100, 1, 1, results.Health{Class: results.Healthy}, results.Exit{})
	r.Scenario.Rate = 1000
	e := *r.End
	e.LatP50, e.LatP99, e.LatP999, e.LatMax = 5000, 5000, 5000, 5000
	e.ILatP50, e.ILatP99, e.ILatP999, e.ILatMax = 5000, 5000, 5000, 5000
	r.End = &e
	rs := []results.Result{r}
	for name, tbl := range map[string]func([]results.Result) ([]string, [][]string){
		"failure": failureTable, "gc": gcTable, "open loop": openLoopTable} {
		h, rows := tbl(rs)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows", name, len(rows))
		}
		found := false
		for i, c := range rows[0] {
			if strings.Contains(h[i], "p99") || strings.Contains(h[i], "Put") {
				found = found || strings.Contains(c, "5.0µs")
				if strings.Contains(c, "0.005") {
					t.Errorf("%s: %s = %q", name, h[i], c)
				}
			}
		}
		if !found {
			t.Errorf("%s: no 5.0µs cell in %v", name, rows[0])
		}
	}
}
