package frontier

import (
	"fmt"
	"math"
	"time"
)

// Estimate is what a frontier plans to run and how long that should
// take: Expected with every run at its least length and the expected
// runs (a model-guided run: a pick and a neighbour per series, one
// confirmation each), Upper with every run at its cap and every
// candidate refuted once. A plain value.
type Estimate struct {
	Points, MaxPoints     int
	Confirms, MaxConfirms int
	Expected, Upper       time.Duration
	Text                  string
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
		}
	} else {
		e.Points, e.MaxPoints = len(p.Settings)*series, len(p.Settings)*series
		what = fmt.Sprintf("the grid you gave: %d point(s) (%d setting(s) for each of %d kind(s))", e.Points, len(p.Settings), series)
	}
	if p.Limits.Container > 0 {
		e.Confirms, e.MaxConfirms = series, MaxConfirms*series
	}
	pt, cf := p.PointLength(), p.ConfirmLength(false)
	run := func(n int, d time.Duration, beside time.Duration) time.Duration {
		return time.Duration(n) * (d + beside + b.Start)
	}
	e.Expected = run(e.Points, pt.Min, b.Settle) + run(e.Confirms, cf.Min, b.Settle)
	e.Upper = run(e.MaxPoints, pt.Cap, b.SettleCap) + run(e.MaxConfirms, cf.Cap, b.SettleCap)
	e.Text = fmt.Sprintf("%s, each %s (until %d GC cycles, at most %s) + settle ≈ %s (at most %s) + start %s",
		what, planDur(pt.Min), pt.Cycles, planDur(pt.Cap), planDur(b.Settle), planDur(b.SettleCap), planDur(b.Start))
	if e.Confirms > 0 {
		e.Text += fmt.Sprintf("; %d confirmation(s) of %s (until %d cycles, at most %s; one more for a refuted one)", e.Confirms, planDur(cf.Min), cf.Cycles, planDur(cf.Cap))
	}
	return e
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
// with no pick), each with p.Beside.
func restText(p Plan, jobs []job, picks map[string]Prediction) (time.Duration, string) {
	each := p.Beside.Start + p.Beside.Settle
	var points, confirms time.Duration
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
				if !ok {
					confirms += each + p.ConfirmDuration
					continue
				}
				confirms += each + p.runLength(p.ConfirmLength(false), pr.CyclesPerGB)
			}
		}
	}
	return points + confirms, fmt.Sprintf("the rest ≈ %s by the model's GC cycles at %.3g MB/s: %d point(s) ≈ %s, %d confirmation(s) ≈ %s",
		planDur(points+confirms), p.RateMBps, len(jobs), planDur(points), n, planDur(confirms))
}
