package history

import (
	"errors"
	"fmt"

	"github.com/writegc/writegc/benchgate/changepoint"
)

// Analysis is one series with its change points, as Analyze returns it: a
// plain value, safe to read from several goroutines; report writers
// (packages histreport and trendpage) only read it.
type Analysis struct {
	Series
	Result *changepoint.Result
}

// Analyze runs change-point detection over the series (one value per
// point: its median), in the order given, as one family: the false-discovery
// rate across all of them is held at o.P (changepoint.DetectAll), so that a
// report over many series raises no more false alarms than one over a few.
// Errors wrap changepoint's and name the series.
func Analyze(series []Series, o changepoint.Options) ([]Analysis, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cs := make([]changepoint.Series, len(series))
	for i, s := range series {
		cs[i] = changepoint.Series{Direction: s.Direction, Points: make([]changepoint.Point, len(s.Points))}
		for j, p := range s.Points {
			cs[i].Points[j] = changepoint.Point{Commit: p.Commit, Value: p.Median}
		}
	}
	res, err := changepoint.DetectAll(cs, o)
	if err != nil {
		var se *changepoint.SeriesError
		if errors.As(err, &se) && se.Index < len(series) {
			s := series[se.Index]
			return nil, fmt.Errorf("%s %s (%s): %w", s.Benchmark, s.Unit, s.Machine, se.Err)
		}
		return nil, err
	}
	out := make([]Analysis, len(series))
	for i, s := range series {
		out[i] = Analysis{Series: s, Result: res[i]}
	}
	return out, nil
}

// LatestRegressions returns the regression change points among the latest
// n points of the series (index >= len(Points)-n); n <= 0 gives none.
func (a *Analysis) LatestRegressions(n int) []changepoint.ChangePoint {
	var out []changepoint.ChangePoint
	if n <= 0 {
		return nil
	}
	for _, cp := range a.Result.ChangePoints {
		if cp.Direction == changepoint.Regression && cp.Index >= len(a.Points)-n {
			out = append(out, cp)
		}
	}
	return out
}
