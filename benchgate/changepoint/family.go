package changepoint

import (
	"cmp"
	"fmt"
	"slices"
)

// DetectAll finds the change points of every series of a family (the series
// of one report) with the false-discovery rate across the family held at
// Options.P, by the Benjamini-Hochberg step-up procedure over the series'
// strongest change points (see the package doc). results[i] is the result of
// series[i]; each Result.Level is the cutoff its change points passed. For a
// single series it is Detect. Errors wrap ErrBadOption, or ErrBadSeries in a
// *SeriesError naming the series.
func DetectAll(series []Series, o Options) ([]*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	xs := make([][]float64, len(series))
	out := make([]*Result, len(series))
	strongest := make([]float64, len(series))
	for i, s := range series {
		x, err := values(s)
		if err != nil {
			return nil, &SeriesError{Index: i, Err: err}
		}
		xs[i], out[i] = x, detectAt(s, x, o, o.P)
		strongest[i] = 1
		for _, cp := range out[i].ChangePoints {
			strongest[i] = min(strongest[i], cp.P)
		}
	}
	cut := bhCutoff(strongest, o.P)
	for i, s := range series {
		switch {
		case len(out[i].ChangePoints) == 0:
			out[i].Level = cut
		case cut < o.P:
			out[i] = detectAt(s, xs[i], o, cut)
		}
	}
	return out, nil
}

// bhCutoff is the Benjamini-Hochberg cutoff for p-values ps at false-discovery
// rate q: k·q/m for the largest k whose k-th smallest p-value is below it,
// and q/m (the Bonferroni level) when there is none.
func bhCutoff(ps []float64, q float64) float64 {
	m := len(ps)
	if m <= 1 {
		return q
	}
	sorted := slices.Clone(ps)
	slices.SortFunc(sorted, cmp.Compare[float64])
	for k := m; k >= 1; k-- {
		if t := float64(k) * q / float64(m); sorted[k-1] < t {
			return t
		}
	}
	return q / float64(m)
}

// SeriesError is DetectAll's error for one unusable series; it wraps
// ErrBadSeries.
type SeriesError struct {
	Index int // the series' position in DetectAll's argument
	Err   error
}

func (e *SeriesError) Error() string { return fmt.Sprintf("series %d: %v", e.Index, e.Err) }

// Unwrap returns the error about the series.
func (e *SeriesError) Unwrap() error { return e.Err }
