package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// Plan is what one frontier needs. Its functions are called from Run's
// goroutine only.
type Plan struct {
	Kinds []string
	// Envs are the build environments every point runs in, in order
	// (-build-envs); none: one run of each point, its Env "".
	Envs []string
	// Settings are the candidates (Grid), in order. Adaptive: the model
	// chooses which of them run (FitSettings, then Choose's); otherwise
	// every one runs (a grid the user gave).
	Settings []Setting
	Adaptive bool
	// Warmup is the classifier's warm-up: the figures count the windows
	// after it.
	Warmup time.Duration
	// Limits are the recommendation's; a Container of 0 means no
	// recommendation (and no confirmation).
	Limits Limits
	// PointDuration is one point's least run; ConfirmDuration the
	// confirmation's (PointLength, ConfirmLength).
	PointDuration, ConfirmDuration time.Duration
	// RateMBps is the open-loop rate every point runs at (for the reasons).
	RateMBps float64
	// Point is the scenario of kind in build environment env ("": none)
	// under setting s, run for length n at stage (confirmations are named
	// apart).
	Point func(kind, env string, s Setting, n Length, stage Stage) results.Scenario
	Run   Runner
	// Say, if set, is told each stage's plan as it begins ("" never).
	Say func(line string)
	// Beside is what each run takes beside its load, for the estimates.
	Beside Beside
}

// Length is one run's length: at least Min, until Cycles GC cycles
// after the warm-up (results.RunDone), at most Cap. A plain value.
type Length struct {
	Min, Cap time.Duration
	Cycles   int
}

// PointLength is a point's Length: at least PointDuration, until
// results.FrontierTargetCycles, at most results.FrontierCapFactor times.
func (p Plan) PointLength() Length {
	return Length{Min: p.PointDuration, Cap: results.FrontierCapFactor * p.PointDuration, Cycles: results.FrontierTargetCycles}
}

// ConfirmLength is a confirmation's Length: at least ConfirmDuration,
// until results.FrontierConfirmCycles, at most results.FrontierCapFactor
// times; an idle collector's runs ConfirmDuration (it has no cycles to
// wait for).
func (p Plan) ConfirmLength(idle bool) Length {
	if idle {
		return Length{Min: p.ConfirmDuration, Cap: p.ConfirmDuration}
	}
	return Length{Min: p.ConfirmDuration, Cap: results.FrontierCapFactor * p.ConfirmDuration, Cycles: results.FrontierConfirmCycles}
}

// Stage is which of a frontier's runs a scenario is.
type Stage string

const (
	// StageGrid is a point of a grid the user gave.
	StageGrid Stage = "grid"
	// StageFit is a model-guided run's first points (FitSettings).
	StageFit Stage = "fit"
	// StagePredicted is the setting the model predicts cheapest within
	// the container; StageNeighbour the one with less memory beside it.
	StagePredicted Stage = "predicted"
	StageNeighbour Stage = "neighbour"
	// StageConfirm is a confirmation run.
	StageConfirm Stage = "confirm"
)

// Outcome is what Run found. A plain value.
type Outcome struct {
	Points []results.FrontierPoint
	Recs   []results.Recommendation
	Models []results.FrontierModel
}

// job is one point to run.
type job struct {
	kind, env string
	s         Setting
	stage     Stage
}

// Run runs the points (every setting of a grid the user gave, or the
// model-guided ones: runAdaptive), interleaved across kinds and build
// environments (setting major, then kind, then environment), marks the
// Pareto set, fits the model per kind and environment and, with a
// container, recommends a setting per kind and environment and confirms
// it (confirmSeries: a refuted one is not recommended). An error is the
// Runner's; the Outcome holds what ran before it. A cancelled ctx stops
// between runs and returns what finished, with no recommendation.
func Run(ctx context.Context, p Plan) (Outcome, error) {
	var out Outcome
	var err error
	if p.Adaptive {
		err = runAdaptive(ctx, p, &out)
	} else {
		var jobs []job
		for _, s := range p.Settings {
			jobs = append(jobs, p.jobs(s, StageGrid)...)
		}
		err = runJobs(ctx, p, jobs, &out)
	}
	out = finish(out, p)
	if err != nil || ctx.Err() != nil {
		why := "the run was interrupted before its confirmation"
		if err != nil {
			why = "the run stopped before its confirmation"
		}
		for i := range out.Recs {
			if out.Recs[i].Fits {
				out.Recs[i] = noRecommendation(out.Recs[i], why)
			}
			out.Recs[i].ConfirmNote = "no confirmation: " + why
		}
		return out, err
	}
	for i := range out.Recs {
		if err := confirmSeries(ctx, p, &out, i); err != nil {
			return out, err
		}
	}
	return out, nil
}

// jobs are setting s's points of every kind and environment, in order.
func (p Plan) jobs(s Setting, stage Stage) []job {
	var out []job
	for _, k := range p.Kinds {
		for _, env := range p.envs() {
			out = append(out, job{k, env, s, stage})
		}
	}
	return out
}

// runJobs runs jobs in order, measuring each into out, until ctx ends.
func runJobs(ctx context.Context, p Plan, jobs []job, out *Outcome) error {
	for _, j := range jobs {
		if ctx.Err() != nil {
			return nil
		}
		res, err := p.Run(ctx, p.Point(j.kind, j.env, j.s, p.PointLength(), j.stage))
		if err != nil {
			return err
		}
		pt := Measure(res, p.Warmup)
		pt.Stage = string(j.stage)
		out.Points = append(out.Points, pt)
	}
	return nil
}

// runAdaptive is the model-guided run: FitSettings for every kind and
// environment, then per series the model's pick and its neighbour where
// not measured yet (Choose), picks first, interleaved across series; a
// series with no fitted model (every fit point failed, or its collector
// was idle) runs no more points. Each series' model says what it chose.
func runAdaptive(ctx context.Context, p Plan, out *Outcome) error {
	var jobs []job
	for _, s := range FitSettings {
		jobs = append(jobs, p.jobs(s, StageFit)...)
	}
	p.say(fmt.Sprintf("fit: %d point(s): %s for each of %d kind(s)", len(jobs), settingsText(FitSettings), len(p.Kinds)*len(p.envs())))
	if err := runJobs(ctx, p, jobs, out); err != nil || ctx.Err() != nil {
		return err
	}
	var picks, neighbours []job
	predicted := map[string]Prediction{} // by series, and by series/setting
	for _, k := range p.Kinds {
		for _, env := range p.envs() {
			ps := pointsIn(out.Points, env)
			m, ok := FitCost(ps, k)
			if !ok || p.Limits.Container <= 0 {
				continue
			}
			pick, nb, hasNb, ok := Choose(m, p.Settings, p.Limits)
			if !ok {
				continue
			}
			p.say(PredictionText(seriesLabel(k, env), m, pick, nb, hasNb, p.Limits))
			predicted[seriesLabel(k, env)], predicted[seriesLabel(k, env)+"/"+pick.Short()] = pick, pick
			if !ran(ps, k, pick.Setting) {
				picks = append(picks, job{k, env, pick.Setting, StagePredicted})
			}
			if hasNb && !ran(ps, k, nb.Setting) {
				neighbours = append(neighbours, job{k, env, nb.Setting, StageNeighbour})
				predicted[seriesLabel(k, env)+"/"+nb.Short()] = nb
			}
		}
	}
	next := append(picks, neighbours...)
	_, _, rest := restText(p, next, predicted)
	p.say(rest)
	return runJobs(ctx, p, next, out)
}

// ran says whether points has kind's point under setting s.
func ran(points []results.FrontierPoint, kind string, s Setting) bool {
	for _, q := range points {
		if q.Kind == kind && SettingOf(q) == s {
			return true
		}
	}
	return false
}

// confirmSeries confirms out.Recs[i]: its candidate's confirmation run
// and, when that refutes it, the next candidate's (Recommend without the
// refuted settings), at most MaxConfirms runs. A setting whose
// confirmation refuted it is never recommended: with none confirmed the
// recommendation is none, and its reason says why. An error is the
// Runner's.
func confirmSeries(ctx context.Context, p Plan, out *Outcome, i int) error {
	rec := out.Recs[i]
	ps := pointsIn(out.Points, rec.Env)
	if !rec.Fits {
		rec.Reason += unmeasuredText(ps, rec.Kind, rec.Env, p.RateMBps, p.Limits)
		rec.ConfirmNote = "no confirmation: no setting fits"
		out.Recs[i] = rec
		return nil
	}
	var refuted, undecided []string
	var except []Setting
	for try := 0; ; try++ {
		s := Setting{GOGC: rec.GOGC, MemLimit: rec.MemLimit}
		res, err := p.Run(ctx, p.Point(rec.Kind, rec.Env, s, p.ConfirmLength(rec.Idle), StageConfirm))
		if err != nil {
			out.Recs[i] = noRecommendation(rec, "the run stopped in its confirmation")
			return err
		}
		if res.Verdict.Class == results.Interrupted || ctx.Err() != nil {
			out.Recs[i] = noRecommendation(rec, fmt.Sprintf("the run was interrupted in the confirmation of %s", s.Label()))
			return nil
		}
		c := Confirm(rec, Measure(res, p.Warmup), p.Limits)
		c.Refuted, c.Undecided = refuted, undecided
		if c.Confirmed {
			if len(refuted) > 0 {
				c.Reason += fmt.Sprintf("; the next candidate after %s, which its confirmation refuted", strings.Join(refuted, " and "))
			}
			if len(undecided) > 0 {
				c.Reason += fmt.Sprintf("; the next candidate after %s, whose confirmation could not decide", strings.Join(undecided, " and "))
			}
			out.Recs[i] = c
			return nil
		}
		if label := FractionLabel(s, p.Limits.Container); c.ConfirmInconclusive {
			undecided = append(undecided, label)
		} else {
			refuted = append(refuted, label)
		}
		except = append(except, s)
		c.Refuted, c.Undecided = refuted, undecided
		next := recommendExcept(ps, rec.Kind, p.Limits, except, rec.Idle)
		if !next.Fits || try+1 >= MaxConfirms {
			why := unconfirmedText(refuted, undecided)
			switch {
			case !next.Fits:
				why += ", and no other measured setting fits"
			default:
				why += fmt.Sprintf(", and the next candidate, %s, is left unconfirmed (at most %d confirmation runs a kind)",
					FractionLabel(Setting{GOGC: next.GOGC, MemLimit: next.MemLimit}, p.Limits.Container), MaxConfirms)
			}
			out.Recs[i] = noRecommendation(c, why+unmeasuredText(ps, rec.Kind, rec.Env, p.RateMBps, p.Limits))
			return nil
		}
		next.Env = rec.Env
		rec = next
	}
}

// unconfirmedText says which candidates' confirmations refuted them and
// which could not decide them (inconclusive, with what would decide).
func unconfirmedText(refuted, undecided []string) string {
	var parts []string
	if len(refuted) > 0 {
		parts = append(parts, "its confirmation refuted "+strings.Join(refuted, ", then "))
	}
	if len(undecided) > 0 {
		parts = append(parts, "inconclusive: its confirmation could not decide "+strings.Join(undecided, " or ")+
			": its GC CPU was "+UndecidedWhy)
	}
	return strings.Join(parts, "; ")
}

// recommendExcept is Recommend over points without the settings in
// except; after an idle answer was refuted (wasIdle) no point counts as
// idle: its collector ran at this rate after all.
func recommendExcept(points []results.FrontierPoint, kind string, l Limits, except []Setting, wasIdle bool) results.Recommendation {
	var ps []results.FrontierPoint
	for _, q := range points {
		if slices.Contains(except, SettingOf(q)) || (wasIdle && q.Cause == results.CauseFewCycles) {
			continue
		}
		ps = append(ps, q)
	}
	if len(ps) == 0 {
		rec := results.Recommendation{Kind: kind}
		rec.Reason = NoRecommendation + ": no other measured setting"
		return rec
	}
	return Recommend(ps, kind, l)
}

// finish fills the steady figures, marks the Pareto set and fills the
// models and, with a container, the recommendations (candidates, not yet
// confirmed), per kind and build environment.
func finish(out Outcome, p Plan) Outcome {
	Steady(out.Points)
	MarkPareto(out.Points)
	out.Models, out.Recs = nil, nil
	for _, k := range p.Kinds {
		for _, env := range p.envs() {
			ps := pointsIn(out.Points, env)
			if m, ok := Model(ps, k); ok {
				m.Env = env
				if p.Adaptive {
					m.Prediction = predictionOf(ps, k, env, p)
				}
				out.Models = append(out.Models, m)
			}
			if p.Limits.Container > 0 && hasKind(ps, k) {
				rec := Recommend(ps, k, p.Limits)
				rec.Env = env
				out.Recs = append(out.Recs, rec)
			}
		}
	}
	return out
}

// predictionOf is the model's choice for kind from its fit points, in
// one sentence ("" without a model).
func predictionOf(points []results.FrontierPoint, kind, env string, p Plan) string {
	var fit []results.FrontierPoint
	for _, q := range points {
		if q.Stage == string(StageFit) {
			fit = append(fit, q)
		}
	}
	m, ok := FitCost(fit, kind)
	if !ok || p.Limits.Container <= 0 {
		return ""
	}
	pick, nb, hasNb, ok := Choose(m, p.Settings, p.Limits)
	if !ok {
		return fmt.Sprintf("%s: the model predicts no setting within %s", seriesLabel(kind, env), limitsText(p.Limits))
	}
	return PredictionText(seriesLabel(kind, env), m, pick, nb, hasNb, p.Limits)
}

// seriesLabel is a kind in a build environment: "heap", "heap env=a".
func seriesLabel(kind, env string) string {
	if env == "" {
		return kind
	}
	return kind + " env=" + env
}

// settingsText lists settings: "GOGC 100 with no GOMEMLIMIT and ...".
func settingsText(ss []Setting) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Label())
	}
	return strings.Join(out, " and ")
}

// say tells p.Say line, if set.
func (p Plan) say(line string) {
	if p.Say != nil {
		p.Say(line)
	}
}

// envs are the plan's build environments, or one "" without any.
func (p Plan) envs() []string {
	if len(p.Envs) == 0 {
		return []string{""}
	}
	return p.Envs
}

// pointsIn are the points of build environment env.
func pointsIn(points []results.FrontierPoint, env string) []results.FrontierPoint {
	var out []results.FrontierPoint
	for _, p := range points {
		if p.Env == env {
			out = append(out, p)
		}
	}
	return out
}

func hasKind(points []results.FrontierPoint, kind string) bool {
	for _, p := range points {
		if p.Kind == kind {
			return true
		}
	}
	return false
}

// The rate probe: the open-loop rate every point runs at when none is
// given.
const (
	// RateShare is the share of the slowest kind's closed-loop rate the
	// probe tries first.
	RateShare = 0.5
	// RateTries bounds the halvings of that rate when a kind does not hold
	// it healthy at GOGC 100.
	RateTries = 3
)

// RatePlan is the probe of the rate: a closed-loop run per kind
// (Probe long), then one step per kind at RateShare of the
// slowest, judged as a capacity step (Judge), halved until every
// kind holds it. Scenarios run at GOGC 100 with no GOMEMLIMIT. A plain
// value; its functions are called from ProbeRate's goroutine only.
type RatePlan struct {
	Kinds      []string
	Probe      func(kind string) results.Scenario               // closed loop, Probe long
	Step       func(kind string, mbps float64) results.Scenario // open loop at mbps
	SLO        time.Duration
	Thresholds results.Thresholds // a step's health (Judge)
	Run        Runner
}

// ProbeRate finds a rate every kind sustains at GOGC 100 (see RatePlan)
// and says how; 0 when a probe left no figure (the child died, or ctx was
// cancelled). An error is the Runner's.
func ProbeRate(ctx context.Context, p RatePlan) (float64, string, error) {
	slowest, slowKind := 0.0, ""
	for _, k := range p.Kinds {
		res, err := p.Run(ctx, p.Probe(k))
		if err != nil || ctx.Err() != nil {
			return 0, "", err
		}
		if res.End == nil || res.End.MBps <= 0 {
			return 0, fmt.Sprintf("the closed-loop probe of %s left no rate (%s)", k, res.Verdict.Why), nil
		}
		if slowKind == "" || res.End.MBps < slowest {
			slowest, slowKind = res.End.MBps, k
		}
	}
	rate, lastWhy := RateShare*slowest, ""
	for try := 0; ; try++ {
		held, why, err := holds(ctx, p, rate)
		if err != nil || ctx.Err() != nil {
			return rate, "", err
		}
		share := fmt.Sprintf("%.3g%% of the slowest closed-loop rate (%s, %.3g MB/s)", 100*rate/slowest, slowKind, slowest)
		switch {
		case held && try == 0:
			return rate, share + ", which every kind held healthy at GOGC 100", nil
		case held:
			return rate, fmt.Sprintf("%s, which every kind held healthy at GOGC 100 (twice that was not: %s)", share, lastWhy), nil
		case try+1 >= RateTries:
			return rate, fmt.Sprintf("%s, still not held healthy at GOGC 100 (%s): give -rate", share, why), nil
		}
		rate, lastWhy = rate/2, why
	}
}

// holds runs one step per kind at rate and says whether all were healthy,
// and if not, why the first was not.
func holds(ctx context.Context, p RatePlan, rate float64) (bool, string, error) {
	for _, k := range p.Kinds {
		res, err := p.Run(ctx, p.Step(k, rate))
		if err != nil || ctx.Err() != nil {
			return false, "", err
		}
		if st := Judge(res, rate, p.SLO, p.Thresholds); !st.Healthy {
			return false, fmt.Sprintf("%s: %s", k, st.Why), nil
		}
	}
	return true, "", nil
}
