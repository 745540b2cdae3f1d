package gcstress

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/writegc/writegc/gcstress/internal/capacity"
	"github.com/writegc/writegc/gcstress/internal/frontier"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// The frontier (SetFrontier, -scenario frontier) is package
// gcstress/internal/frontier; this file builds its scenarios and runs it
// once, after every round: per kind a grid of GOGC x GOMEMLIMIT settings
// at one open-loop rate, each point a child run under the container's
// hard RSS cap, then a recommendation per kind and its confirmation run.

// FrontierConfig is the frontier's settings (Config.Frontier). A plain
// value; Validate checks it when SetFrontier is wanted.
type FrontierConfig struct {
	// Container (-container) is the container's memory: every point's
	// hard RSS cap, what the GOMEMLIMIT fractions are of, and what the
	// recommendation must fit. 0: none (no GOMEMLIMIT fraction, no
	// recommendation).
	Container int64
	// GOGC (-gogc LIST) are the grid's GOGC values (frontier.GOGCOff: off).
	GOGC []int
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
	// Settle (-settle) is how much writing every grid point and the
	// confirmation start with: the records the open-loop rate writes in
	// Settle, preloaded closed loop before the point's clock starts
	// (Scenario.Preload), so a point measures a store whose memtables have
	// filled and flushed, not one filling from empty. 0: none.
	Settle time.Duration
}

// The frontier's defaults. A grid point of 15 s (a 2 s warm-up, then 13
// windows) and a 45 s confirmation: the default grid (20 points a kind)
// for two kinds takes about 12 minutes on 2 cores (40 points of 15 s and
// their children's start, the rate probe, two confirmations).
const (
	DefaultFrontierPoint    = 15 * time.Second
	DefaultFrontierConfirm  = 45 * time.Second
	DefaultFrontierHeadroom = 0.10
	// DefaultFrontierSettle: in the first published run (5.66 MB/s) heap's
	// live heap, and with it the cost of a GC cycle, grew through its first
	// 15 s, about 90 MB, the span of a whole grid point. 10 s at the rate
	// the probe picks now (about 25 MB/s on 2 cores) is 250 MB, preloaded
	// closed loop in 2-5 s a point.
	DefaultFrontierSettle = 10 * time.Second
	// MinContainer is the least -container: what an empty Go process
	// under gcstress's load needs (the runtime, the harness's writers,
	// sampler and latency histograms) before any memtable.
	MinContainer = 32 << 20
)

// DefaultFrontierConfig is the frontier's default: frontier.DefaultGOGC
// by frontier.DefaultFracs, no container (-container is needed for the
// fractions), 10% headroom.
func DefaultFrontierConfig() FrontierConfig {
	return FrontierConfig{GOGC: frontier.DefaultGOGC, MemLimitFracs: frontier.DefaultFracs, Headroom: DefaultFrontierHeadroom,
		PointDuration: DefaultFrontierPoint, ConfirmDuration: DefaultFrontierConfirm, Settle: DefaultFrontierSettle}
}

// validateFrontier checks the frontier's settings when it runs.
func (c *Config) validateFrontier() error {
	if !c.wants(SetFrontier) {
		return nil
	}
	f := c.Frontier
	if err := frontier.CheckGrid(f.GOGC, []float64{0}); err != nil {
		return usageErr("gogc", "%v (e.g. -gogc 50,100,200,400,off)", err)
	}
	if err := frontier.CheckGrid([]int{100}, f.MemLimitFracs); err != nil {
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
func frontierScenario(c Config, kind string, st frontier.Setting, mbps float64, d time.Duration, name string) Scenario {
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

// settingName is a setting in a scenario name: "gogc=200,memlimit=410MiB".
func settingName(st frontier.Setting) string {
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
// the grid, the recommendation and its confirmation.
func runFrontier(ctx context.Context, c Config, sum *Summary, run capacity.Runner) error {
	f := c.Frontier
	fr := &results.FrontierRun{Container: f.Container, Headroom: f.Headroom, PointDuration: f.PointDuration, ConfirmFor: f.ConfirmDuration, SLO: c.SLO, Settle: f.Settle}
	sum.FrontierRun = fr
	mbps := frontierRateMBps(c)
	fr.RateFrom = "-rate"
	if mbps <= 0 {
		var err error
		if mbps, fr.RateFrom, err = frontier.ProbeRate(ctx, frontierRatePlan(c, run)); err != nil || mbps <= 0 || ctx.Err() != nil {
			return err // no rate: the reports say why (RateFrom)
		}
	}
	fr.RateMBps = mbps
	plan := frontier.Plan{Kinds: c.Kinds, Envs: frontierEnvs(c), Settings: frontier.Grid(f.GOGC, f.MemLimitFracs, f.Container), Warmup: c.Thresholds.Warmup,
		Limits:        frontier.Limits{Container: f.Container, Headroom: f.Headroom, SLO: c.SLO},
		PointDuration: f.PointDuration, ConfirmDuration: f.ConfirmDuration, Run: run,
		Point: func(kind, env string, st frontier.Setting, d time.Duration, stage frontier.Stage) Scenario {
			name := settingName(st)
			if stage != frontier.StageGrid {
				name = string(stage) + "/" + name
			}
			s := frontierScenario(c, kind, st, mbps, d, name)
			s.Preload = settleRecords(mbps, s.Value, f.Settle)
			return inBuildEnv(s, env, c.Out)
		}}
	out, err := frontier.Run(ctx, plan)
	sum.Frontier, sum.Recommendation, sum.FrontierModel = out.Points, out.Recs, out.Models
	return err
}

// settleRecords is the records an open-loop rate of mbps (key+value MB/s)
// writes in d at value bytes a record, at most MaxPreload.
func settleRecords(mbps float64, value int64, d time.Duration) int64 {
	n := mbps * results.BytesPerMB * d.Seconds() / float64(int64(KeySize)+value)
	return int64(min(n, float64(MaxPreload)))
}

// frontierRatePlan is the rate probe's plan: closed-loop probes and
// capacity-length steps at GOGC 100 with no GOMEMLIMIT, in the first build
// environment when there are any (one rate for every point).
func frontierRatePlan(c Config, run capacity.Runner) frontier.RatePlan {
	def := frontier.Setting{GOGC: 100}
	env := capacityEnvs(c)[0]
	return frontier.RatePlan{Kinds: c.Kinds, SLO: c.SLO, Thresholds: c.Thresholds, Run: run,
		Probe: func(kind string) Scenario {
			return inBuildEnv(frontierScenario(c, kind, def, 0, capacity.Probe, "probe"), env, c.Out)
		},
		Step: func(kind string, mbps float64) Scenario {
			s := frontierScenario(c, kind, def, mbps, c.StepDuration, fmt.Sprintf("rate@%.4gMB/s", math.Round(mbps*1000)/1000))
			// Judged from a settled store, as the grid's points run: from
			// an empty one, at fc1bb17, heap's 22.7 MB/s step failed on
			// one span's assists (2.8% at 5 s) and the probe chose 11.4
			// MB/s, where the run before held 35.2.
			s.Preload = settleRecords(mbps, s.Value, c.Frontier.Settle)
			return inBuildEnv(s, env, c.Out)
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
