package gcstress

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/writegc/writegc/gcstress/internal/plan"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
)

// The frontier (SetFrontier, -scenario frontier) is package
// gcstress/internal/plan; this file builds its scenarios and runs it
// once, after every round: per kind the model-guided settings (or every
// setting of a grid the user gave) at one open-loop rate, each point a
// child run under the container's hard RSS cap that settles first, then
// a recommendation per kind and its confirmation run.

// FrontierConfig is the frontier's settings (Config.Frontier). A plain
// value; Validate checks it when SetFrontier is wanted.
type FrontierConfig struct {
	// Container (-container) is the container's memory: every point's
	// hard RSS cap, what the GOMEMLIMIT fractions are of, and what the
	// recommendation must fit. 0: none (no GOMEMLIMIT fraction, no
	// recommendation).
	Container int64
	// GOGC (-gogc LIST) are the grid's GOGC values (plan.GOGCOff: off).
	GOGC []int
	// Adaptive: the model chooses which settings of the grid run (the
	// fit settings, then the cheapest predicted to fit and a neighbour);
	// false: every setting runs (the command's -gogc or -memlimit-frac
	// list: the grid the user asked for).
	Adaptive bool
	// MemLimitFracs (-memlimit-frac) are its GOMEMLIMIT settings as
	// fractions of Container in (0,1]; 0 is no GOMEMLIMIT.
	MemLimitFracs []float64
	// Headroom (-headroom) is the share of Container the recommendation
	// keeps free for what the runtime cannot see, 0 to below 1.
	Headroom float64
	// PointDuration (-point-duration) is one grid point's run;
	// ConfirmDuration (-confirm-duration) the confirmation's, longer.
	PointDuration   time.Duration
	ConfirmDuration time.Duration
	// Settle (-settle) caps each run's settle phase: before its clock
	// starts every point, rate-probe step and confirmation writes closed
	// loop until its memory (live heap plus the engine's off-heap bytes)
	// is steady (Scenario.Settle), so it measures a store whose buffers
	// have filled, not one filling from empty; at the cap the point notes
	// that it did not settle. 0: none.
	Settle time.Duration
}

// The frontier's defaults. A point of at least 15 s (a 2 s warm-up, then
// 13 windows; longer while it waits for its GC cycles) and a confirmation
// of at least 45 s; each settles first, for at most 30 s.
const (
	DefaultFrontierPoint    = 15 * time.Second
	DefaultFrontierConfirm  = 45 * time.Second
	DefaultFrontierHeadroom = 0.10
	// DefaultFrontierSettle caps a run's settle phase: a store of a few
	// hundred MB fills closed loop in seconds, and its steadiness takes
	// 2 x results.SettleReadings readings (4 s) more.
	DefaultFrontierSettle = 30 * time.Second
	// MinContainer is the least -container: what an empty Go process
	// under gcstress's load needs (the runtime, the harness's writers,
	// sampler and latency histograms) before any memtable.
	MinContainer = 32 << 20
)

// DefaultFrontierConfig is the frontier's default: model-guided over
// plan.DefaultGOGC by plan.DefaultFracs, no container
// (-container is needed for the fractions), 10% headroom.
func DefaultFrontierConfig() FrontierConfig {
	return FrontierConfig{GOGC: plan.DefaultGOGC, MemLimitFracs: plan.DefaultFracs, Adaptive: true, Headroom: DefaultFrontierHeadroom,
		PointDuration: DefaultFrontierPoint, ConfirmDuration: DefaultFrontierConfirm, Settle: DefaultFrontierSettle}
}

// validateFrontier checks the frontier's settings when it runs.
func (c *Config) validateFrontier() error {
	if !c.wants(SetFrontier) {
		return nil
	}
	f := c.Frontier
	if err := plan.CheckGrid(f.GOGC, []float64{0}); err != nil {
		return usageErr("gogc", "%v (e.g. -gogc 50,100,200,400,off)", err)
	}
	if err := plan.CheckGrid([]int{100}, f.MemLimitFracs); err != nil {
		return usageErr("memlimit-frac", "%v (e.g. -memlimit-frac none,0.5,0.7,0.9)", err)
	}
	if err := c.validateContainer(); err != nil {
		return err
	}
	if !(f.Headroom >= 0 && f.Headroom < 1) {
		return usageErr("headroom", "%v: a share of -container from 0 to below 1 (e.g. -headroom 0.1)", f.Headroom)
	}
	least := results.MinRunFor(c.Thresholds, c.Window)
	switch {
	case c.Window <= 0:
		return usageErr("window", "the frontier classifies windows: use a window (e.g. -window 1s)")
	case f.PointDuration < least || f.PointDuration > time.Hour:
		return usageErr("point-duration", "%v: use at least the warm-up plus %d windows (%v), at most 1h (e.g. -point-duration 15s)", f.PointDuration, results.MinWindows, least)
	case f.ConfirmDuration <= f.PointDuration || f.ConfirmDuration > 4*time.Hour:
		return usageErr("confirm-duration", "%v: use longer than -point-duration %v (e.g. -confirm-duration 45s)", f.ConfirmDuration, f.PointDuration)
	case c.Rate == (Rate{}) && (c.StepDuration < least || c.StepDuration > time.Hour):
		return usageErr("step-duration", "%v: the rate probe's steps need at least the warm-up plus %d windows (%v), at most 1h; or give -rate", c.StepDuration, results.MinWindows, least)
	case f.Settle < 0 || f.Settle > time.Hour:
		return usageErr("settle", "%v: from 0 (start empty) to 1h (e.g. -settle 20s)", f.Settle)
	case len(c.CapacityValues) != 1:
		return usageErr("values", "the frontier runs one value size: give one (e.g. -values 100)")
	}
	return nil
}

// validateContainer checks -container: needed for GOMEMLIMIT fractions,
// at least what an empty process and one memtable per region need.
func (c *Config) validateContainer() error {
	f := c.Frontier
	frac := false
	for _, x := range f.MemLimitFracs {
		frac = frac || x > 0
	}
	if f.Container == 0 {
		if frac {
			return usageErr("container", "the frontier's GOMEMLIMIT fractions are of the container: give its memory (e.g. -container 512MiB), or -memlimit-frac none")
		}
		return nil
	}
	need, _ := memNeed(c.Memstore, c.Regions)
	if least := max(int64(MinContainer), need); f.Container < least {
		return usageErr("container", "%s is smaller than an empty Go process under load needs (about %s with %d memtable(s) of -memstore %s; the runtime alone takes about %s): e.g. -container 512MiB",
			workload.FormatSize(f.Container), workload.FormatSize(least), c.Regions, workload.FormatSize(c.Memstore), workload.FormatSize(MinContainer))
	}
	return nil
}

// frontierScenario is a frontier run of kind under setting st at mbps
// (0: closed loop, keys unbounded) for d, named name: the capacity
// search's scenario with the frontier's group, collector settings and the
// container as its hard RSS cap.
func frontierScenario(c Config, kind string, st plan.Setting, mbps float64, d time.Duration, name string) Scenario {
	value := c.CapacityValues[0]
	s := capacityScenario(c, kind, value, mbps, d)
	s.Group, s.GOGC, s.MemLimit = SetFrontier, st.GOGC, st.MemLimit
	if c.Frontier.Container > 0 {
		s.RSSCap = c.Frontier.Container
	}
	s.Name = fmt.Sprintf("%s/%s/%s/%s", SetFrontier, kind, workload.FormatSize(value), name)
	s.Dir = filepath.Join(c.Out, s.DirName())
	return s
}

// settled is s with the frontier's settle phase (-settle) in place of
// the capacity step's preload.
func settled(c Config, s Scenario) Scenario {
	s.Preload, s.Settle = 0, c.Frontier.Settle
	return s
}

// frontierPoint is a point or confirmation of length n at mbps: it
// settles, then runs at least n.Min, until n.Cycles GC cycles after the
// warm-up, at most n.Cap (Scenario.MinCycles), its keys bounded by the
// cap alone.
func frontierPoint(c Config, kind string, st plan.Setting, mbps float64, n plan.Length, name string) Scenario {
	s := settled(c, frontierScenario(c, kind, st, mbps, n.Cap, name))
	s.Keys, s.MinRun, s.MinCycles = results.UnboundedKeys, n.Min, n.Cycles
	return s
}

// settingName is a setting in a scenario name: "gogc=200,memlimit=410MiB".
func settingName(st plan.Setting) string {
	g, l := "off", "none"
	if st.GOGC > 0 {
		g = fmt.Sprint(st.GOGC)
	}
	if st.MemLimit > 0 {
		l = fmt.Sprintf("%.0fMiB", float64(st.MemLimit)/(1<<20))
	}
	return fmt.Sprintf("gogc=%s,memlimit=%s", g, l)
}

// runFrontier runs the frontier into sum: the rate (-rate, or the probe),
// the points, the recommendation and its confirmation; it tells progress
// which rate it runs at and each stage's plan.
func runFrontier(ctx context.Context, c Config, sum *Summary, run plan.Runner, progress io.Writer) error {
	f := c.Frontier
	start := time.Now()
	fr := &results.FrontierRun{Container: f.Container, Headroom: f.Headroom, PointDuration: f.PointDuration, ConfirmFor: f.ConfirmDuration, SLO: c.SLO, Settle: f.Settle, Adaptive: f.Adaptive}
	sum.FrontierRun = fr
	defer func() { fr.Elapsed = time.Since(start).Round(time.Second) }()
	say := func(line string) { fmt.Fprintf(progress, "frontier: %s\n", escape.Terminal(line)) }
	mbps := frontierRateMBps(c)
	fr.RateFrom = "-rate"
	if mbps <= 0 {
		say("no -rate: probing a rate every kind holds (give -rate near production: the answer is for the rate the points run at)")
		var err error
		if mbps, fr.RateFrom, err = plan.ProbeRate(ctx, frontierRatePlan(c, run)); err != nil || mbps <= 0 || ctx.Err() != nil {
			return err // no rate: the reports say why (RateFrom)
		}
		fr.RateFrom += "; the recommendation is for this probed rate, not production's: give -rate near production"
	}
	fr.RateMBps = mbps
	fp := frontierPlan(c, mbps, run)
	fp.Say = say
	est := fp.Estimate()
	fr.Plan, fr.Estimate, fr.EstimateLow, fr.EstimateHigh = est.Text, est.Expected, est.Low, est.High
	say(fmt.Sprintf("at %.3g MB/s (%s): %s %s", mbps, fr.RateFrom, est.Text, est.Range(EstimateText)))
	out, err := plan.Run(ctx, fp)
	sum.Frontier, sum.Recommendation, sum.FrontierModel = out.Points, out.Recs, out.Models
	return err
}

// frontierPlan is the frontier's plan at mbps: its candidates, limits and
// lengths, and its points as settled child runs.
func frontierPlan(c Config, mbps float64, run plan.Runner) plan.Plan {
	f := c.Frontier
	return plan.Plan{Kinds: c.Kinds, Envs: frontierEnvs(c), Settings: plan.Grid(f.GOGC, f.MemLimitFracs, f.Container), Adaptive: f.Adaptive,
		Warmup: c.Thresholds.Warmup, Limits: plan.Limits{Container: f.Container, Headroom: f.Headroom, SLO: c.SLO},
		PointDuration: f.PointDuration, ConfirmDuration: f.ConfirmDuration, RateMBps: mbps, Run: run, Beside: frontierBeside(c),
		Point: func(kind, env string, st plan.Setting, n plan.Length, stage plan.Stage) Scenario {
			name := settingName(st)
			if stage == plan.StageConfirm {
				name = string(stage) + "/" + name
			}
			return inBuildEnv(frontierPoint(c, kind, st, mbps, n, name), env, c.Out)
		}}
}

// EstimateSettle is a plan's allowance for a frontier run's settle phase:
// its 2 x results.SettleReadings readings (4 s), during which a store of
// a few hundred MB fills closed loop, and a reading or two more.
const EstimateSettle = 5 * time.Second

// frontierBeside is what each frontier run takes beside its load: the
// child's start, and its settle phase (EstimateSettle, at most -settle).
func frontierBeside(c Config) plan.Beside {
	f := c.Frontier
	return plan.Beside{Start: EstimateChildStart, Settle: min(f.Settle, EstimateSettle), SettleCap: f.Settle}
}

// frontierRatePlan is the rate probe's plan: closed-loop probes and
// capacity-length steps at GOGC 100 with no GOMEMLIMIT, in the first build
// environment when there are any (one rate for every point).
func frontierRatePlan(c Config, run plan.Runner) plan.RatePlan {
	def := plan.Setting{GOGC: 100}
	env := capacityEnvs(c)[0]
	return plan.RatePlan{Kinds: c.Kinds, SLO: c.SLO, Thresholds: c.Thresholds, Run: run,
		Probe: func(kind string) Scenario {
			return inBuildEnv(frontierScenario(c, kind, def, 0, plan.Probe, "probe"), env, c.Out)
		},
		Step: func(kind string, mbps float64) Scenario {
			s := frontierScenario(c, kind, def, mbps, c.StepDuration, fmt.Sprintf("rate@%.4gMB/s", math.Round(mbps*1000)/1000))
			// Judged from a settled store, as the points run: an empty one's
			// first flushes fail steps the store sustains (results/frontier).
			return inBuildEnv(settled(c, s), env, c.Out)
		}}
}

// frontierEnvs are the frontier's build environments: c.BuildEnvs' names,
// none without any.
func frontierEnvs(c Config) []string {
	if len(c.BuildEnvs) == 0 {
		return nil
	}
	return capacityEnvs(c)
}
