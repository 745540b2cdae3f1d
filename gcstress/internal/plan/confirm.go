package plan

import (
	"fmt"
	"math"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
)

// NoRecommendation begins the Reason of every recommendation that is not
// confirmed: such a one is never the setting to use.
const NoRecommendation = "no recommendation"

// MaxConfirms bounds one kind's confirmation runs: its candidate's and,
// when that one was refuted, the next candidate's.
const MaxConfirms = 2

// Confirm compares a confirmation run (whole: Measure of it) with rec's
// prediction under l, and returns rec with its confirmation's figures,
// Confirmed, ConfirmInconclusive (nothing refutes it but the run is
// borderline: FrontierPoint.Borderline) or neither, and a note saying
// why. It is confirmed when nothing refutes it (refutations) and the run
// is not borderline: the run is healthy (for an idle collector:
// also inconclusive for too few cycles), fits the container less its
// headroom and the SLO, costs at most the tolerance and twice the
// combined standard error more GC CPU per GB than predicted (or the
// floor), and peaks at most the tolerance over the predicted RSS. A run
// that costs less than predicted still confirms: the setting holds, and
// the note says so. A pure function.
func Confirm(rec results.Recommendation, whole results.FrontierPoint, l Limits) results.Recommendation {
	rec.ConfirmGCCPUSPerGB, rec.ConfirmPeakRSS, rec.ConfirmScenario, rec.ConfirmClass = whole.GCCPUSPerGB, whole.PeakRSS, whole.Scenario, whole.Class
	rec.ConfirmCyclesPerGB, rec.ConfirmGCCPUSE = whole.CyclesPerGB, pointSE(whole)
	no := refutations(rec, whole, l)
	rec.Confirmed, rec.ConfirmInconclusive = len(no) == 0 && !whole.Borderline, len(no) == 0 && whole.Borderline
	want, got := rec.PredictedGCCPUSPerGB, whole.GCCPUSPerGB
	figures := fmt.Sprintf("GC CPU %.3g ± %.2g s/GB (%d cycles) against the predicted %.3g ± %.2g (%+.0f%%), peak RSS %s against %s (%+.0f%%), need %s of %s; the run was %s",
		got, rec.ConfirmGCCPUSE, whole.SpanCycles, want, rec.PredictedGCCPUSE, 100*rel(got, want),
		results.MiB(whole.PeakRSS), results.MiB(rec.PredictedPeakRSS), 100*rel(float64(whole.PeakRSS), float64(rec.PredictedPeakRSS)),
		memText(whole), results.MiB(uint64(Budget(l.Container, l.Headroom))), whole.Class)
	switch {
	case rec.ConfirmInconclusive:
		rec.ConfirmNote = fmt.Sprintf("inconclusive: its GC CPU, %.1f%% ± %.1f%% of busy CPU over the run, is %s (%s)",
			whole.GCPct, whole.GCPctSE, UndecidedWhy, figures)
		return rec
	case !rec.Confirmed:
		rec.ConfirmNote = "refuted: " + strings.Join(no, "; ") + " (" + figures + ")"
		return rec
	}
	rec.ConfirmNote = "confirmed: " + figures
	if comb := math.Hypot(rec.PredictedGCCPUSE, rec.ConfirmGCCPUSE); want-got > results.FrontierConfirmFloor && got < (1-results.FrontierConfirmTolerance)*want && want-got > 2*comb {
		rec.ConfirmNote += "; it cost less than predicted: the setting holds, its cost is the confirmation's"
	}
	return rec
}

// UndecidedWhy is why a borderline confirmation (FrontierPoint.Borderline)
// neither confirms nor refutes its setting, and what would decide it.
const UndecidedWhy = "within twice its standard error of the line between healthy and elevated (-thresholds healthy-gc), " +
	"so the same setting can come out on either side; a longer -confirm-duration (more cycles, a smaller error) decides"

// refutations are what in a confirmation run refutes rec, each in a
// clause; none: it is confirmed, or undecided when the run is borderline.
func refutations(rec results.Recommendation, whole results.FrontierPoint, l Limits) []string {
	var no []string
	switch {
	case whole.Class == results.Healthy, whole.Borderline:
	case rec.Idle && whole.Class == results.Inconclusive && whole.Cause == results.CauseFewCycles:
	case whole.Class == results.Inconclusive:
		no = append(no, fmt.Sprintf("it completed %d GC cycle(s), too few to check the prediction", whole.Cycles))
	default:
		no = append(no, fmt.Sprintf("the run was %s (%s)", classText(whole), whole.Why))
	}
	if budget := Budget(l.Container, l.Headroom); Need(whole) > budget {
		no = append(no, fmt.Sprintf("it needs %s > %s", memText(whole), results.MiB(uint64(budget))))
	}
	if l.SLO > 0 && whole.ILatP99 > int64(l.SLO) {
		no = append(no, fmt.Sprintf("its p99 %s > %v", durText(whole.ILatP99), l.SLO))
	}
	want, got, tol := rec.PredictedGCCPUSPerGB, whole.GCCPUSPerGB, results.FrontierConfirmTolerance
	comb := math.Hypot(rec.PredictedGCCPUSE, pointSE(whole))
	switch {
	case rec.Idle && whole.Cycles >= results.FrontierMinCycles && got > results.FrontierConfirmFloor:
		no = append(no, fmt.Sprintf("its collector ran %d cycles at %.3g GC CPU-s per GB: it is not idle at this rate", whole.Cycles, got))
	case !rec.Idle && got-want > results.FrontierConfirmFloor && got > (1+tol)*want && got-want > 2*comb:
		no = append(no, fmt.Sprintf("its GC CPU per GB is %+.0f%% over the predicted, beyond the %.0f%% tolerance and twice their combined standard error (±%.2g s/GB)",
			100*rel(got, want), 100*tol, comb))
	}
	if p := rec.PredictedPeakRSS; p > 0 && float64(whole.PeakRSS) > (1+tol)*float64(p) {
		no = append(no, fmt.Sprintf("its peak RSS is %+.0f%% over the predicted", 100*rel(float64(whole.PeakRSS), float64(p))))
	}
	return no
}

// classText is a point's class with its cause: "failed (rss-cap)".
func classText(p results.FrontierPoint) string {
	if p.Cause == "" {
		return string(p.Class)
	}
	return fmt.Sprintf("%s (%s)", p.Class, p.Cause)
}

// pointSE is p's GC CPU per GB's standard error: GCCPUSE, or where that
// is unknown (fewer than two windows of cycles) the Poisson error of its
// cycles.
func pointSE(p results.FrontierPoint) float64 {
	if p.GCCPUSE > 0 || p.SpanCycles == 0 {
		return p.GCCPUSE
	}
	return p.GCCPUSPerGB / math.Sqrt(float64(p.SpanCycles))
}

// rel is (got-want)/want; +Inf when want is 0 and got is not.
func rel(got, want float64) float64 {
	switch {
	case want != 0:
		return (got - want) / want
	case got == 0:
		return 0
	}
	return math.Inf(1)
}

// noRecommendation turns rec into no recommendation for why: no setting
// to use (GOGC, GOMEMLIMIT 0), not confirmed, its Reason beginning
// NoRecommendation. The confirmation's figures, if any, stay.
func noRecommendation(rec results.Recommendation, why string) results.Recommendation {
	rec.GOGC, rec.MemLimit, rec.MemLimitFraction, rec.Confirmed = 0, 0, 0, false
	rec.Reason = NoRecommendation + ": " + why
	return rec
}

// unmeasuredText is the clause of a kind with no confirmed setting whose
// points mostly ran too few GC cycles while meeting the container and the
// SLO (at least half of them): the rate makes too little garbage for its
// points to measure anything, and a production rate would ("" otherwise:
// a point that missed the SLO or the container did so whatever its
// cycles).
func unmeasuredText(points []results.FrontierPoint, kind, env string, mbps float64, l Limits) string {
	n, few := 0, 0
	for _, p := range points {
		if p.Kind != kind || p.Env != env {
			continue
		}
		n++
		q := p
		q.Class = results.Healthy
		if ok, _ := l.fits(q); ok && p.Cause == results.CauseFewCycles {
			few++
		}
	}
	if n == 0 || 2*few < n {
		return ""
	}
	return fmt.Sprintf("; the points did not measure: at %.3g MB/s %d of %d points completed fewer than %d GC cycles; give -rate near production",
		mbps, few, n, results.FrontierMinCycles)
}
