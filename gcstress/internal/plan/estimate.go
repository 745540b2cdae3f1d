package plan

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Estimate is what a frontier plans to run and how long that should
// take, every run at its least length: Low the runs every outcome has
// (a model-guided run's fit points, a grid's points), High with the most
// a run does short of refutations (a pick, a neighbour and a
// confirmation per series), Expected their middle (which of them run
// depends on the store: a kind no setting fits gets no confirmation, a
// pick that is a fit setting is not run again), and Upper every run at
// its cap and every candidate refuted once. A plain value.
type Estimate struct {
	Points, MaxPoints     int
	Confirms, MaxConfirms int
	Low, High             time.Duration
	Expected, Upper       time.Duration
	Text                  string
	// LowWhat and HighWhat say what Low and High count ("" when they are
	// equal).
	LowWhat, HighWhat string
}

// Beside is what each run takes beside its load: its child's start, its
// expected settle phase and its settle phase's cap. A plain value.
type Beside struct {
	Start, Settle, SettleCap time.Duration
}

// Estimate is p's plan with each run taking p.Beside beside its load
// (see Estimate); a plan with no container confirms nothing. A pure
// function.
func (p Plan) Estimate() Estimate {
	b := p.Beside
	series := len(p.Kinds) * len(p.envs())
	var e Estimate
	what := ""
	if p.Adaptive {
		fit := len(FitSettings) * series
		e.Points, e.MaxPoints = fit, fit
		what = fmt.Sprintf("model-guided: %d fit point(s) (%s, for each of %d kind(s))", fit, settingsText(FitSettings), series)
		if p.Limits.Container > 0 {
			e.Points, e.MaxPoints = fit+2*series, fit+2*series
			what += fmt.Sprintf(", then up to %d at the model's pick and its neighbour", 2*series)
			e.LowWhat, e.HighWhat = "the fit points alone (no setting fits any kind)", "a pick, a neighbour and a confirmation for every kind"
		}
	} else {
		e.Points, e.MaxPoints = len(p.Settings)*series, len(p.Settings)*series
		what = fmt.Sprintf("the grid you gave: %d point(s) (%d setting(s) for each of %d kind(s))", e.Points, len(p.Settings), series)
		if p.Limits.Container > 0 {
			e.LowWhat, e.HighWhat = "the points alone (no setting fits any kind)", "a confirmation for every kind"
		}
	}
	sure := e.Points
	if p.Adaptive {
		sure = len(FitSettings) * series
	}
	if p.Limits.Container > 0 {
		e.Confirms, e.MaxConfirms = series, MaxConfirms*series
	}
	pt, cf := p.PointLength(), p.ConfirmLength(false)
	run := func(n int, d time.Duration, beside time.Duration) time.Duration {
		return time.Duration(n) * (d + beside + b.Start)
	}
	// A point that fails early (its RSS past the container) and one that
	// waits past its least length for its cycles are both counted at the
	// least length: neither is known before the store has run.
	e.Low = run(sure, pt.Min, b.Settle)
	e.High = run(e.Points, pt.Min, b.Settle) + run(e.Confirms, cf.Min, b.Settle)
	e.Expected = e.Low + (e.High-e.Low)/2
	e.Upper = run(e.MaxPoints, pt.Cap, b.SettleCap) + run(e.MaxConfirms, cf.Cap, b.SettleCap)
	e.Text = fmt.Sprintf("%s, each %s (until %d GC cycles, at most %s) + settle ≈ %s (at most %s) + start %s",
		what, planDur(pt.Min), pt.Cycles, planDur(pt.Cap), planDur(b.Settle), planDur(b.SettleCap), planDur(b.Start))
	if e.Confirms > 0 {
		e.Text += fmt.Sprintf("; up to %d confirmation(s) of %s (until %d cycles, at most %s; one more for a refuted one)", e.Confirms, planDur(cf.Min), cf.Cycles, planDur(cf.Cap))
	}
	return e
}

// Range is e's length as a plan says it, each duration in text: "≈ 4
// min (2 min to 7 min: from ... to ...; at most 32 min)", the middle
// first; one figure when the outcome does not change it.
func (e Estimate) Range(text func(time.Duration) string) string {
	if e.Low == e.High || e.LowWhat == "" {
		return fmt.Sprintf("≈ %s (at most %s)", text(e.Expected), text(e.Upper))
	}
	return fmt.Sprintf("≈ %s (%s to %s: from %s to %s; at most %s)", text(e.Expected), text(e.Low), text(e.High), e.LowWhat, e.HighWhat, text(e.Upper))
}

// planDur is a duration as a plan says it: "15 s", "2.3 min".
func planDur(d time.Duration) string {
	if d < 100*time.Second {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.3g min", d.Minutes())
}

// runLength is how long a run of length n is expected to take at
// cyclesPerGB (the model's) and the plan's rate: its warm-up and n.Cycles
// cycles, at least n.Min, at most n.Cap; n.Min without a figure.
func (p Plan) runLength(n Length, cyclesPerGB float64) time.Duration {
	perSec := cyclesPerGB * p.RateMBps * 1e6 / 1e9
	if n.Cycles <= 0 || !(perSec > 0) {
		return n.Min
	}
	if math.IsInf(perSec, 1) {
		return n.Min
	}
	d := p.Warmup + time.Duration(float64(n.Cycles)/perSec*float64(time.Second))
	return min(max(d, n.Min), n.Cap)
}

// restText is the model's estimate of a model-guided run's rest after
// its fit points: jobs, each at its setting's predicted cycles, and a
// confirmation per series at its pick's (ConfirmDuration for a series
// with no pick), each with p.Beside. A series whose pick is measured
// already is confirmed (low and high); one whose pick is among jobs may
// see it refuted and then has nothing to confirm, as may one with no
// pick (every fit point failed, or its collector was idle): their
// confirmations count in high only.
func restText(p Plan, jobs []job, picks map[string]Prediction) (low, high time.Duration, text string) {
	each := p.Beside.Start + p.Beside.Settle
	var points, sure, unsure time.Duration
	for _, j := range jobs {
		cy := math.Inf(1)
		if pr, ok := picks[seriesLabel(j.kind, j.env)+"/"+j.s.Short()]; ok {
			cy = pr.CyclesPerGB
		}
		points += each + p.runLength(p.PointLength(), cy)
	}
	n := 0
	if p.Limits.Container > 0 {
		for _, k := range p.Kinds {
			for _, env := range p.envs() {
				n++
				pr, ok := picks[seriesLabel(k, env)]
				switch {
				case !ok:
					unsure += each + p.ConfirmDuration
				case slices.Contains(jobs, job{k, env, pr.Setting, StagePredicted}):
					unsure += each + p.runLength(p.ConfirmLength(false), pr.CyclesPerGB)
				default:
					sure += each + p.runLength(p.ConfirmLength(false), pr.CyclesPerGB)
				}
			}
		}
	}
	low, high = points+sure, points+sure+unsure
	text = fmt.Sprintf("the rest ≈ %s by the model's GC cycles at %.3g MB/s: %d point(s) ≈ %s, up to %d confirmation(s) ≈ %s",
		planDur(low+(high-low)/2), p.RateMBps, len(jobs), planDur(points), n, planDur(sure+unsure))
	if unsure > 0 {
		text += fmt.Sprintf(" (%s to %s: a pick not yet measured may be refuted, leaving its kind nothing to confirm)", planDur(low), planDur(high))
	}
	return low, high, text
}
