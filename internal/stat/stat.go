// Package stat holds the few summary numbers and their readings that
// several writegc packages share: a median, a share or change as a
// percentage, and the Direction of better a unit of measure has (benchgate's
// units, gcstress's bench.txt units, the history database's better column
// and changepoint's series all use it). It is a leaf: it imports nothing of
// writegc, so that benchgate, its changepoint leaf, explain and gcstress may
// all use it. A Direction's integer values are stored: they do not change.
package stat

import (
	"fmt"
	"math"
	"slices"
)

// Median is the median of xs (the mean of the two middle values for an even
// count), NaN for none; xs is not modified.
func Median(xs []float64) float64 {
	return MedianOr(xs, math.NaN())
}

// MedianOr is Median with none's value given (0 where a table wants a
// number, not NaN).
func MedianOr(xs []float64, none float64) float64 {
	if len(xs) == 0 {
		return none
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MeanVar is the mean of xs and their sample variance (over n-1); NaN
// variance for fewer than two values, both NaN for none.
func MeanVar(xs []float64) (mean, variance float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range xs {
		mean += v
	}
	mean /= float64(len(xs))
	for _, v := range xs {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// Mean is MeanVar's mean alone: NaN for none.
func Mean(xs []float64) float64 {
	m, _ := MeanVar(xs)
	return m
}

// Percent prints the share f (0.123) as a percentage with prec decimals
// ("12.3%").
func Percent(f float64, prec int) string {
	return fmt.Sprintf("%.*f%%", prec, 100*f)
}

// SignedPercent prints the relative change f (0.123) as a signed percentage
// with prec decimals ("+12.3%", "-4.0%").
func SignedPercent(f float64, prec int) string {
	return fmt.Sprintf("%+.*f%%", prec, 100*f)
}

// Quantile is the q-quantile (0..1) of xs, linearly interpolated between
// the order statistics (the definition R and NumPy default to), NaN for
// none; xs is not modified.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q = min(1, max(0, q))
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}
