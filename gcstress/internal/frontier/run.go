package frontier

import (
	"context"
	"fmt"
	"time"

	"github.com/writegc/writegc/gcstress/internal/capacity"
	"github.com/writegc/writegc/gcstress/results"
)

// Runner runs one scenario and returns its Result (gcstress's loop body:
// a child process, progress, observer).
type Runner = capacity.Runner

// Plan is what one frontier needs. Its functions are called from Run's
// goroutine only.
type Plan struct {
	Kinds []string
	// Envs are the build environments every point runs in, in order
	// (-build-envs); none: one run of each point, its Env "".
	Envs     []string
	Settings []Setting // the grid (Grid), in order
	// Warmup is the classifier's warm-up: the figures count the windows
	// after it.
	Warmup time.Duration
	// Limits are the recommendation's; a Container of 0 means no
	// recommendation (and no confirmation).
	Limits Limits
	// PointDuration is one grid point's run; ConfirmDuration the
	// confirmation's (longer).
	PointDuration, ConfirmDuration time.Duration
	// Point is the scenario of kind in build environment env ("": none)
	// under setting s run for d at stage (refine and confirmation runs are
	// named apart).
	Point func(kind, env string, s Setting, d time.Duration, stage Stage) results.Scenario
	Run   Runner
}

// Stage is which of a frontier's runs a scenario is.
type Stage string

const (
	// StageGrid is a grid point.
	StageGrid Stage = "grid"
	// StageRefine is the refine run of a recommended setting whose grid
	// prediction is too uncertain for a confirmation to decide
	// (NeedsRefine): as long as the confirmation.
	StageRefine Stage = "refine"
	// StageConfirm is the confirmation run.
	StageConfirm Stage = "confirm"
)

// Outcome is what Run found. A plain value.
type Outcome struct {
	Points []results.FrontierPoint
	Recs   []results.Recommendation
	Models []results.FrontierModel
}

// Run runs every grid point, interleaved across kinds and build
// environments (setting major, then kind, then environment), marks the
// Pareto set, fits the model per kind and environment and, with a
// container, recommends a setting per kind and environment and runs its
// confirmation. An error is
// the Runner's; the Outcome holds what ran before it. A cancelled ctx
// stops between runs and returns what finished.
func Run(ctx context.Context, p Plan) (Outcome, error) {
	var out Outcome
	for _, s := range p.Settings {
		for _, k := range p.Kinds {
			for _, env := range p.envs() {
				if ctx.Err() != nil {
					return unconfirmed(finish(out, p), "no confirmation: the run was interrupted"), nil
				}
				res, err := p.Run(ctx, p.Point(k, env, s, p.PointDuration, StageGrid))
				if err != nil {
					return unconfirmed(finish(out, p), "no confirmation: the grid did not finish"), err
				}
				out.Points = append(out.Points, Measure(res, p.Warmup))
			}
		}
	}
	out = finish(out, p)
	out = unconfirmed(out, "no confirmation: the run was interrupted")
	for i, rec := range out.Recs {
		if !rec.Fits || ctx.Err() != nil {
			continue
		}
		rec, ok, err := confirmOne(ctx, p, rec, out.Points)
		if err != nil {
			return out, err
		}
		if ok {
			out.Recs[i] = rec
		}
	}
	return out, nil
}

// The refine run and its confirmation are long enough for RefineCycles GC
// cycles at the grid point's cycles per GB and rate (after the warm-up),
// at least the plan's ConfirmDuration and at most MaxRefineFactor times
// it: a cycle's cost scatters (heap's under a binding GOMEMLIMIT by about
// 60% from one to the next), so two runs of 10 cycles each differ by
// ±27% at one standard error (√2 x 60% / √10), of 30 by about ±15% (the
// 15% tolerance itself: at 30, in three published runs, one confirmed and
// two could not decide), and of 100 by about ±8.5%.
const (
	RefineCycles    = 100
	MaxRefineFactor = 10
)

// RefineDuration is how long the refine run and the confirmation of a
// refined prediction run for grid, the recommended setting's point: see
// RefineCycles. A pure function.
func RefineDuration(grid results.FrontierPoint, confirm, warmup time.Duration) time.Duration {
	perSec := grid.CyclesPerGB * grid.MBps * results.BytesPerMB / 1e9
	if !(perSec > 0) {
		return confirm
	}
	d := warmup + time.Duration(float64(RefineCycles)/perSec*float64(time.Second))
	return min(max(d, confirm), MaxRefineFactor*confirm).Round(time.Second)
}

// confirmOne runs rec's refine run where its prediction needs one
// (NeedsRefine), then its confirmation of the same length, and returns
// rec confirmed (or not); ok is false when a run was interrupted (a
// partial run refines or confirms nothing). An error is the Runner's.
func confirmOne(ctx context.Context, p Plan, rec results.Recommendation, points []results.FrontierPoint) (results.Recommendation, bool, error) {
	s, d := Setting{GOGC: rec.GOGC, MemLimit: rec.MemLimit}, p.ConfirmDuration
	if NeedsRefine(rec) {
		grid, _ := gridPoint(points, rec)
		d = RefineDuration(grid, p.ConfirmDuration, p.Warmup)
		res, err := p.Run(ctx, p.Point(rec.Kind, rec.Env, s, d, StageRefine))
		if err != nil || res.Verdict.Class == results.Interrupted {
			return rec, false, err
		}
		rec = Refine(rec, grid, Measure(res, p.Warmup))
		rec.RefineFor = d
		rec.Reason += refinedCost(rec, points)
	}
	res, err := p.Run(ctx, p.Point(rec.Kind, rec.Env, s, d, StageConfirm))
	if err != nil || res.Verdict.Class == results.Interrupted {
		return rec, false, err
	}
	return Confirm(rec, Measure(res, p.Warmup), Measure(Span(res, p.PointDuration), p.Warmup), p.PointDuration), true, nil
}

// refinedCost is the clause a refined recommendation's reason gains: the
// refined prediction and, where the grid has Go's default for rec's kind
// and environment, the change against its figure. The reason's cost
// clause is the grid's steady figure, which a refine run can move by 2x
// (at aa6da25 heap's pick read 0.215 s/GB on the grid, 0.458 refined,
// 0.499 confirmed).
func refinedCost(rec results.Recommendation, points []results.FrontierPoint) string {
	if rec.RefineScenario == "" {
		return ""
	}
	s := fmt.Sprintf("; its refine run (%v) puts it at %.3g ± %.2g s/GB", rec.RefineFor, rec.PredictedGCCPUSPerGB, rec.PredictedGCCPUSE)
	for _, q := range points {
		if q.Kind != rec.Kind || q.Env != rec.Env || !SettingOf(q).IsDefault() || !measured(q.Class) || figure(q) <= 0 {
			continue
		}
		pct, more := 100*(1-rec.PredictedGCCPUSPerGB/figure(q)), "less"
		if pct < 0 {
			pct, more = -pct, "more"
		}
		return s + fmt.Sprintf(", %.0f%% %s than the default's %.3g", pct, more, figure(q))
	}
	return s
}

// gridPoint is the grid point of rec's kind, environment and setting.
func gridPoint(points []results.FrontierPoint, rec results.Recommendation) (results.FrontierPoint, bool) {
	for _, q := range points {
		if q.Kind == rec.Kind && q.Env == rec.Env && q.GOGC == rec.GOGC && q.MemLimit == rec.MemLimit {
			return q, true
		}
	}
	return results.FrontierPoint{}, false
}

// unconfirmed gives every recommendation its note before a confirmation
// runs: why none will (no setting fits), or why, should it not run.
func unconfirmed(out Outcome, why string) Outcome {
	for i := range out.Recs {
		out.Recs[i].ConfirmNote = why
		if !out.Recs[i].Fits {
			out.Recs[i].ConfirmNote = "no confirmation: no setting fits"
		}
	}
	return out
}

// finish fills the steady figures, marks the Pareto set and fills the
// models and, with a container,
// the recommendations (unconfirmed), per kind and build environment.
func finish(out Outcome, p Plan) Outcome {
	Steady(out.Points)
	MarkPareto(out.Points)
	out.Models, out.Recs = nil, nil
	for _, k := range p.Kinds {
		for _, env := range p.envs() {
			ps := pointsIn(out.Points, env)
			if m, ok := Model(ps, k); ok {
				m.Env = env
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
// (capacity.Probe long), then one step per kind at RateShare of the
// slowest, judged as a capacity step (capacity.Judge), halved until every
// kind holds it. Scenarios run at GOGC 100 with no GOMEMLIMIT. A plain
// value; its functions are called from ProbeRate's goroutine only.
type RatePlan struct {
	Kinds      []string
	Probe      func(kind string) results.Scenario               // closed loop, capacity.Probe long
	Step       func(kind string, mbps float64) results.Scenario // open loop at mbps
	SLO        time.Duration
	Thresholds results.Thresholds // a step's health (capacity.Judge)
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
		if st := capacity.Judge(res, rate, p.SLO, p.Thresholds); !st.Healthy {
			return false, fmt.Sprintf("%s: %s", k, st.Why), nil
		}
	}
	return true, "", nil
}
