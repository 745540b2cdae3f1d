package compare

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/writegc/writegc/gcstress/results"
)

// A mixed workload's line carries its operations' latency units under its
// own set (mix-b), declared with their direction; a write-only file
// declares none of them (its bytes are the golden's).
func TestReaderUnits(t *testing.T) {
	r := run(results.SetMatrix, "heap", 100, 0, 10, 2)
	r.Scenario.Mix = "b"
	r.End.Ops = map[string]results.OpLatency{"read": {N: 100, ILatP99: 2e6, ILatP999: 3e6}, "update": {N: 5, ILatP99: 1e6, ILatP999: 1e6}}
	r.End.ReadInMark = &results.ReadLatency{N: 10, ILatP99: 5e6}
	r.End.ReadOutsideMark = &results.ReadLatency{N: 90, ILatP99: 1e6}
	sum := &results.Summary{GOOS: "linux", Results: []results.Result{r}}
	out := write(t, sum)
	if !bytes.Contains(out, []byte("set=mix-b/kind=heap/value=100")) {
		t.Fatalf("no mix-b line:\n%s", out)
	}
	rd := benchfmt.NewReader(bytes.NewReader(out), FileName)
	var units []string
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok {
			for _, v := range res.Values {
				units = append(units, v.OrigUnit)
			}
		}
	}
	want := []Unit{ReadP99Ns, ReadP999Ns, UpdateP99Ns, UpdateP999Ns, ReadInMarkP99Ns, ReadOutsideMarkP99Ns}
	for _, u := range want {
		if !strings.Contains(strings.Join(units, " "), string(u)) || rd.Units().GetBetter(string(u)) != int(Lower) {
			t.Errorf("unit %s: not on the line or not declared lower (units %v)", u, units)
		}
	}
	if bytes.Contains(write(t, fixture()), []byte("read-p99-ns")) {
		t.Error("a write-only file declares the readers' units")
	}
	// A run whose measured phase completed one GC cycle has no in-mark
	// figure to compare; its other figures stay.
	r.Verdict = results.Health{Class: results.Inconclusive, Cause: results.CauseFewCycles}
	if few := write(t, &results.Summary{GOOS: "linux", Results: []results.Result{r}}); bytes.Contains(few, []byte(" "+string(ReadInMarkP99Ns))) ||
		!bytes.Contains(few, []byte(string(ReadOutsideMarkP99Ns))) {
		t.Errorf("few cycles: want read-outside-mark-p99-ns and no read-in-mark-p99-ns:\n%s", few)
	}
}
