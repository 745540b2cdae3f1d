package history

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
