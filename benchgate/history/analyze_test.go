package history

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
)

// TestAnalyzeFamilyNoise is the hostile review's case at the history level:
// 2,000 pure-noise series × 20 points, 4 runs, where the significance level
// applied per series failed 2 of the 4 (a regression within the latest 10
// commits: benchgate history's exit 1). Analyze holds the false-discovery
// rate across the report, so none may.
func TestAnalyzeFamilyNoise(t *testing.T) {
	for run := range uint64(4) {
		r := rand.New(rand.NewPCG(run, 77))
		ss := make([]Series, 2000)
		for i := range ss {
			ss[i] = Series{SeriesKey: SeriesKey{Benchmark: fmt.Sprintf("B%d", i), Unit: "sec/op"}, Direction: benchgate.LowerIsBetter}
			for j := range 20 {
				ss[i].Points = append(ss[i].Points, Point{Commit: fmt.Sprintf("c%02d", j), Summary: Summary{Median: 100 * (1 + 0.02*r.NormFloat64())}})
			}
		}
		as, err := Analyze(ss, changepoint.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range as {
			if cps := as[i].LatestRegressions(10); len(cps) > 0 {
				t.Errorf("run %d: %s: %+v in pure noise", run, as[i].Benchmark, cps)
			}
		}
	}
}

// TestStale: a series whose last point is older than the newest commit its
// machine and mode recorded is stale (a benchmark that stopped producing
// results); one at that commit, one on another machine and one without
// commit times are not.
func TestStale(t *testing.T) {
	at := func(d int) time.Time { return time.Date(2026, 1, 1+d, 0, 0, 0, 0, time.UTC) }
	pts := func(n int, times bool) []Point {
		var ps []Point
		for i := range n {
			p := Point{Commit: fmt.Sprintf("c%02d", i), Summary: Summary{Median: 100}}
			if times {
				p.CommitTime = at(i)
			}
			ps = append(ps, p)
		}
		return ps
	}
	ss := []Series{
		{SeriesKey: SeriesKey{Benchmark: "Live", Unit: "sec/op", Machine: "m1"}, Points: pts(12, true)},
		{SeriesKey: SeriesKey{Benchmark: "Gone", Unit: "sec/op", Machine: "m1"}, Points: pts(8, true)},
		{SeriesKey: SeriesKey{Benchmark: "Other", Unit: "sec/op", Machine: "m2"}, Points: pts(8, true)},
		{SeriesKey: SeriesKey{Benchmark: "NoTimes", Unit: "sec/op", Machine: "m1"}, Points: pts(5, false)},
	}
	as, err := Analyze(ss, changepoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Live": false, "Gone": true, "Other": false, "NoTimes": false}
	for _, a := range as {
		if a.Stale != want[a.Benchmark] {
			t.Errorf("%s: stale %v, want %v (latest %q, last %q)", a.Benchmark, a.Stale, want[a.Benchmark], a.Latest, a.LastCommit())
		}
	}
	if as[1].Latest != "c11" {
		t.Errorf("Gone: latest %q, want c11", as[1].Latest)
	}
}
