// Package stat holds the few summary numbers and their printed forms that
// several writegc packages share: a median, a share or change as a
// percentage. It is a leaf: it imports nothing of writegc, so that
// benchgate, its changepoint leaf, explain and gcstress may all use it.
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
