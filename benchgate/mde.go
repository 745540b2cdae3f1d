package benchgate

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Detection power. A row's minimum detectable effect (MDE) is the smallest
// shift of the head's median, relative to the base's, that the gate's test
// (the two-sided Mann-Whitney U test at Alpha, on the rounds each side ran)
// finds significant with probability Power. The U test has no closed-form
// power, so the MDE comes from the normal-theory approximation of a rank
// test (Noether 1987): the two-sample t test's detectable shift
//
//	(t(1-alpha/2) + t(power)) × sqrt(σb²/nb + σh²/nh) / sqrt(3/π)
//
// with Student's t quantiles at nb+nh-2 degrees of freedom (the normal
// quantiles overstate a gate's power at 5 to 10 rounds), divided by the
// square root of the U test's asymptotic relative efficiency against the t
// test for normal data (3/π). Each side's σ is estimated robustly from its
// rounds, as IQR/1.349 (the standard deviation of a normal sample with that
// interquartile range; one outlier round does not move it). Simulated
// against the U test itself on normal samples, the shift so computed is
// found 77-81% of the time at 10 to 30 rounds a side and 69% at 5 (where
// the exact test can only reject when every head value lies beyond every
// base value): the MDE is slightly optimistic at the fewest rounds.
//
// The MDE shrinks with the rounds roughly as 1/√n; RoundsFor finds the
// rounds that bring it under a threshold. A gate's row regresses only when
// the test is significant and the change exceeds the threshold, so a change
// of exactly the threshold's size is caught about half of the time even
// when the MDE is below it; the MDE says whether the threshold is within
// the test's reach at all.

// DefaultPower is the probability of detection the MDE is computed for.
const DefaultPower = 0.8

// normalIQR is the interquartile range of a standard normal distribution:
// a sample's IQR over it estimates its standard deviation robustly.
const normalIQR = 1.349

// rankEfficiency is the U test's asymptotic relative efficiency against the
// t test for normal data, 3/π: it needs 1/0.955 times the rounds.
const rankEfficiency = 3 / math.Pi

// DetectableShift returns the smallest shift of location, in the units of
// sigmaBase and sigmaHead (each side's standard deviation), that the
// two-sided U test at alpha detects with probability power with nBase and
// nHead values a side (see the approximation above). It is +Inf when a side
// has fewer than 2 values or the exact test cannot reach p < alpha at
// those sizes, NaN when a sigma is NaN or negative or alpha or power is
// outside (0, 1), and 0 when both sigmas are 0.
func DetectableShift(sigmaBase, sigmaHead float64, nBase, nHead int, alpha, power float64) float64 {
	switch {
	case !(sigmaBase >= 0) || !(sigmaHead >= 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1):
		return math.NaN()
	case nBase < 2 || nHead < 2 || minUTestP(nBase, nHead) >= alpha:
		return math.Inf(1)
	case sigmaBase == 0 && sigmaHead == 0:
		return 0
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nBase + nHead - 2)}
	z := t.Quantile(1-alpha/2) + t.Quantile(power)
	se := math.Sqrt(sigmaBase*sigmaBase/float64(nBase) + sigmaHead*sigmaHead/float64(nHead))
	return z * se / math.Sqrt(rankEfficiency)
}

// sigmaOf is the robust standard deviation of xs: IQR/1.349 (NaN for no
// values).
func sigmaOf(xs []float64) float64 { return iqr(xs) / normalIQR }

// MDE returns the minimum detectable effect of a comparison of base and
// head values, relative to base's median: DetectableShift of the two
// sides' robust standard deviations at their sizes, over |median(base)|.
// 0.05 means a 5% shift of the median is detected with probability power.
// It is NaN when a side is empty, +Inf when it cannot be detected at all
// (see DetectableShift) or the base median is 0 while a side varies.
func MDE(base, head []float64, alpha, power float64) float64 {
	return relativeTo(mdeAbs(base, head, alpha, power), median(base))
}

// mdeAbs is MDE in the unit's own terms (not relative).
func mdeAbs(base, head []float64, alpha, power float64) float64 {
	if len(base) == 0 || len(head) == 0 {
		return math.NaN()
	}
	return DetectableShift(sigmaOf(base), sigmaOf(head), len(base), len(head), alpha, power)
}

// relativeTo returns abs / |m|: 0 when abs is 0, +Inf when m is 0 and abs
// is not.
func relativeTo(abs, m float64) float64 {
	switch {
	case math.IsNaN(abs) || abs == 0:
		return abs
	case m == 0:
		return math.Inf(1)
	}
	return abs / math.Abs(m)
}

// RoundsFor returns the fewest rounds n a side (both sides running n) at
// which DetectableShift(sigmaBase, sigmaHead, n, n, alpha, power) is at
// most target (in the sigmas' units), or 0 when none up to MaxCount is.
// target must be positive.
func RoundsFor(sigmaBase, sigmaHead, target, alpha, power float64) int {
	if !(target > 0) {
		return 0
	}
	// The shift falls monotonically with n, so a binary search finds the first n.
	lo, hi := 2, MaxCount
	if !(DetectableShift(sigmaBase, sigmaHead, hi, hi, alpha, power) <= target) {
		return 0
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if DetectableShift(sigmaBase, sigmaHead, mid, mid, alpha, power) <= target {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
