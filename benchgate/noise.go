package benchgate

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Noise. The gate knows how noisy each benchmark was from its own rounds:
// every round runs each benchmark once per side, so a side's values are as
// many independent measurements of the same code. Two figures come of
// them. A row's noise is how well the rounds pin down each side's median:
// the larger of the two sides' MedianUncertainty, the half-width of the
// median's 95% interval relative to it (1.57 IQR/√n over the median, the
// notch of McGill, Tukey and Larsen's box plots; the IQR is not moved by a
// single outlier round). Its minimum detectable effect (MDE, see mde.go) is
// what decides whether a change of the threshold's size can be seen: the
// smallest change the U test finds with probability Power at these rounds.
// When the MDE exceeds the row's threshold, a regression of the
// threshold's size could hide in it, so a row that would pass is Noisy
// instead: too noisy to judge, neither pass nor regression. More rounds
// shrink it by about √n: RoundsFor says how many would resolve it.
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

// tooNoisy reports whether the row's minimum detectable effect exceeds its
// threshold, in the threshold's own terms (see targetAbs). A zero threshold
// is never exceeded: with one, the U test alone judges the row.
func (row *Row) tooNoisy() bool {
	return row.Threshold > 0 && row.MDEAbs > row.targetAbs()
}

// targetAbs is the smallest change, in the unit's own terms, that the row's
// threshold lets regress: an absolute threshold itself, else the relative
// threshold's share of the base median or the floor, whichever is larger
// (a regression must exceed both).
func (row *Row) targetAbs() float64 {
	if row.ThresholdAbs {
		return row.Threshold
	}
	return max(row.Threshold*math.Abs(row.Base), row.ThresholdFloor)
}

// noiseNote says why a row is Noisy, and how many rounds would resolve it.
func (row *Row) noiseNote() string {
	note := fmt.Sprintf("MDE %s > threshold %s", row.mdeCell(), row.thresholdShort())
	if row.RoundsNeeded > 0 {
		return note + fmt.Sprintf("; %d rounds a side would resolve it", row.RoundsNeeded)
	}
	return note + fmt.Sprintf("; more than %d rounds a side would be needed", MaxCount)
}

// thresholdShort prints the row's threshold without its source.
func (row *Row) thresholdShort() string {
	switch {
	case row.ThresholdAbs:
		return fmt.Sprintf("+%gpt", row.Threshold)
	case row.ThresholdFloor > 0:
		return fmt.Sprintf("%s and +%gpt", formatPct(round4(row.Threshold)), row.ThresholdFloor)
	}
	return formatPct(round4(row.Threshold))
}

// mdeCell prints the row's MDE: relative with one decimal, in points for
// an absolute threshold.
func (row *Row) mdeCell() string {
	if row.ThresholdAbs && !math.IsNaN(row.MDEAbs) && !math.IsInf(row.MDEAbs, 0) {
		return fmt.Sprintf("%.3gpt", row.MDEAbs)
	}
	return formatNoise(row.MDE)
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

// NoiseAdvice names the noisy rows with their MDE and says what would make
// them judgeable: the rounds a side that bring every one under its
// threshold (benchgate run -count), and for timed units instruction mode
// (-measure instructions, counts that do not depend on timing). It is ""
// when no row is Noisy. It does not repeat "too noisy to judge": the
// report's note and the command's error put that in front.
func (r *Report) NoiseAdvice() string {
	rows := r.NoisyRows()
	if len(rows) == 0 {
		return ""
	}
	names := make([]string, len(rows))
	timed, rounds, beyond := false, 0, false
	for i, row := range rows {
		names[i] = fmt.Sprintf("%s %s (MDE %s > %s)", row.Name, row.Unit, row.mdeCell(), row.thresholdShort())
		timed = timed || !isInstructionUnit(row.Unit)
		rounds = max(rounds, row.RoundsNeeded)
		beyond = beyond || row.RoundsNeeded == 0
	}
	const instr = "instruction mode (-measure instructions: counts instead of time)"
	var fix string
	switch {
	case beyond && timed:
		fix = fmt.Sprintf("rerun with %s: more than %d rounds a side would be needed", instr, MaxCount)
	case beyond:
		fix = fmt.Sprintf("more than %d rounds a side would be needed: raise the threshold to the MDE, or calibrate one (benchgate calibrate)", MaxCount)
	case timed:
		fix = fmt.Sprintf("rerun with %d rounds a side (-count %d) or %s", rounds, rounds, instr)
	default:
		fix = fmt.Sprintf("rerun with %d rounds a side (-count %d)", rounds, rounds)
	}
	return strings.Join(names, ", ") + "; " + fix
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
