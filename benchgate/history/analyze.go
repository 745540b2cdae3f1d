package history

import (
	"errors"
	"fmt"
	"time"

	"github.com/writegc/writegc/benchgate/changepoint"
)

// Analysis is one series with its change points, as Analyze returns it: a
// plain value, safe to read from several goroutines; report writers
// (WriteReport, WriteTrendPage) only read it.
type Analysis struct {
	Series
	Result *changepoint.Result
	// Stale: the series has no point at the latest commit recorded for
	// its machine and mode (Latest), which is newer than its own last
	// point: the benchmark stopped producing results (renamed, removed, or
	// broken on that builder), and its change points say nothing of the
	// commits since.
	Stale bool
	// Latest is the newest commit recorded for the series' machine and
	// mode, by commit time ("" when no point of the group has a time).
	Latest string
	// Stability is Assess of the series: its recent noise and verdict
	// flips, and whether they make it unstable.
	Stability Stability
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
		out[i] = Analysis{Series: s, Result: res[i], Stability: Assess(s)}
	}
	markStale(out)
	return out, nil
}

// groupKey is the part of a series' key its commits are shared by: one
// builder's runs in one mode.
type groupKey struct {
	machine string
	mode    Mode
}

// markStale sets Latest and Stale: per machine and mode, the newest
// commit (by commit time) any series has a point at, and which series'
// last point is older. Points without a commit time are never judged.
func markStale(as []Analysis) {
	type newest struct {
		commit string
		at     time.Time
	}
	latest := map[groupKey]newest{}
	for _, a := range as {
		k := groupKey{a.Machine, a.Mode}
		for _, p := range a.Points {
			if n := latest[k]; !p.CommitTime.IsZero() && p.CommitTime.After(n.at) {
				latest[k] = newest{p.Commit, p.CommitTime}
			}
		}
	}
	for i := range as {
		a := &as[i]
		n := latest[groupKey{a.Machine, a.Mode}]
		a.Latest = n.commit
		if len(a.Points) == 0 {
			continue
		}
		last := a.Points[len(a.Points)-1]
		a.Stale = !last.CommitTime.IsZero() && last.CommitTime.Before(n.at) && last.Commit != n.commit
	}
}

// LastCommit is the commit of the series' last point ("" for none).
func (a *Analysis) LastCommit() string {
	if len(a.Points) == 0 {
		return ""
	}
	return a.Points[len(a.Points)-1].Commit
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
