package benchgate

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Noise. The gate knows how noisy each benchmark was from its own rounds:
// every round runs each benchmark once per side, so a side's values are as
// many independent measurements of the same code. What decides whether a
// change of the threshold's size can be seen is not one run's scatter but
// how well the rounds pin down each side's median: a row's noise is the
// larger of the two sides' MedianUncertainty, the half-width of the
// median's 95% interval relative to it (1.57 IQR/√n over the median, the
// notch of McGill, Tukey and Larsen's box plots; the IQR is not moved by a
// single outlier round). When that exceeds the row's threshold, a
// regression of the threshold's size could hide in it, so a row that would
// pass is Noisy instead: too noisy to judge, neither pass nor regression.
// More rounds shrink it by √n: 30 rounds of runs that scatter by 20%
// resolve a 10% change, 10 rounds do not.
//
// The unpaired spread is used, not that of round-by-round differences,
// because the U test that judges the row is unpaired: its power depends on
// how much each side's values scatter, whatever their order.

// medianNotch is the factor of the median's 95% interval half-width in
// units of IQR/√n (McGill, Tukey and Larsen 1978).
const medianNotch = 1.57

// MedianUncertainty returns the half-width of the 95% interval of xs's
// median relative to it: medianNotch × IQR / √len(xs) / |median|. It is NaN
// for no values, 0 when the middle half is one value, and +Inf when the
// median is 0 but the spread is not.
func MedianUncertainty(xs []float64) float64 {
	return RelativeSpread(xs) * medianNotch / math.Sqrt(float64(len(xs)))
}

// medianUncertaintyAbs is MedianUncertainty in the unit's own terms (not
// relative), for absolute thresholds and floors.
func medianUncertaintyAbs(xs []float64) float64 {
	return iqr(xs) * medianNotch / math.Sqrt(float64(len(xs)))
}

// RelativeSpread returns the interquartile range of xs (quartiles by linear
// interpolation between order statistics) divided by the absolute value of
// its median: 0.1 when the middle half of the values spans 10% of the
// median. It is NaN for no values, 0 when the middle half is one value,
// and +Inf when the median is 0 but the spread is not.
func RelativeSpread(xs []float64) float64 {
	spread := iqr(xs)
	m := median(xs)
	switch {
	case math.IsNaN(spread):
		return math.NaN()
	case spread == 0:
		return 0
	case m == 0:
		return math.Inf(1)
	}
	return spread / math.Abs(m)
}

// iqr returns the interquartile range of xs (NaN for no values).
func iqr(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantile(s, 0.75) - quantile(s, 0.25)
}

// quantile returns the q-quantile of the sorted, non-empty s, interpolating
// linearly between the order statistics around (len(s)-1)*q.
func quantile(s []float64, q float64) float64 {
	pos := float64(len(s)-1) * q
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// tooNoisy reports whether the row's noise exceeds its threshold, in the
// threshold's own terms: the relative noise above a relative threshold (and
// the absolute uncertainty above its floor, when it has one, as a
// regression must exceed both), or the absolute uncertainty of the median
// above an absolute threshold. A zero threshold is never exceeded: with one, the
// U test alone judges the row.
func (row *Row) tooNoisy(b, h []float64) bool {
	if !(row.Threshold > 0) {
		return false
	}
	abs := max(medianUncertaintyAbs(b), medianUncertaintyAbs(h))
	if row.ThresholdAbs {
		return abs > row.Threshold
	}
	return row.Noise > row.Threshold && abs > row.ThresholdFloor
}

// noiseNote says why a row is Noisy.
func (row *Row) noiseNote() string {
	th := formatPct(round4(row.Threshold))
	if row.ThresholdAbs {
		th = fmt.Sprintf("+%gpt", row.Threshold)
	}
	return fmt.Sprintf("noise %s > threshold %s: too noisy to judge", formatNoise(row.Noise), th)
}

// formatNoise prints a relative spread as a percentage with one decimal.
func formatNoise(f float64) string {
	switch {
	case math.IsNaN(f):
		return "-"
	case math.IsInf(f, 1):
		return "inf"
	}
	return fmt.Sprintf("%.1f%%", f*100)
}

// NoisyRows returns the rows whose verdict is Noisy, in report order.
func (r *Report) NoisyRows() []Row {
	var rows []Row
	for _, row := range r.Rows {
		if row.Verdict == Noisy {
			rows = append(rows, row)
		}
	}
	return rows
}

// Inconclusive reports whether the comparison cannot be judged: some row is
// Noisy and none regressed. (A regression decides the gate whatever the
// noise of other rows; an error, see Compare, decides it before both.)
func (r *Report) Inconclusive() bool { return !r.Regressed() && r.Count(Noisy) > 0 }

// NoiseAdvice names the noisy rows with their noise and says what would
// make them judgeable: instruction mode (`-measure instructions`, counts
// that do not depend on timing) for timed units, more rounds (`-count`)
// for all. It is "" when no row is Noisy.
func (r *Report) NoiseAdvice() string {
	rows := r.NoisyRows()
	if len(rows) == 0 {
		return ""
	}
	names := make([]string, len(rows))
	timed := false
	for i, row := range rows {
		names[i] = fmt.Sprintf("%s %s (noise %s)", row.Name, row.Unit, formatNoise(row.Noise))
		timed = timed || !isInstructionUnit(row.Unit)
	}
	fix := "more rounds (-count)"
	if timed {
		fix = "instruction mode (-measure instructions: counts instead of time) or more rounds (-count)"
	}
	return fmt.Sprintf("too noisy to judge (noise above the threshold): %s; rerun with %s", strings.Join(names, ", "), fix)
}

// isInstructionUnit reports whether unit is one of instruction mode's units.
func isInstructionUnit(unit string) bool {
	for _, u := range InstructionUnits {
		if u.Unit == unit {
			return true
		}
	}
	return false
}
