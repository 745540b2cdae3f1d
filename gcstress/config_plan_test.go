package gcstress

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// absurdFrontier is a 32 x 21 grid of 4 kinds at one hour a point: about
// 2,700 hours.
func absurdFrontier() Config {
	c := DefaultConfig()
	c.Sets, c.Kinds = []string{SetFrontier}, Kinds()[:4]
	c.Values, c.CapacityValues = []int64{100}, []int64{100}
	c.Frontier.Container, c.Frontier.PointDuration, c.Frontier.ConfirmDuration = 512<<20, time.Hour, 2*time.Hour
	c.Frontier.GOGC, c.Frontier.Adaptive = nil, false // the grid given runs whole
	for g := 1; g <= 32; g++ {
		c.Frontier.GOGC = append(c.Frontier.GOGC, 25*g)
	}
	c.Frontier.MemLimitFracs = []float64{0}
	for i := range 20 {
		c.Frontier.MemLimitFracs = append(c.Frontier.MemLimitFracs, 0.5+0.02*float64(i))
	}
	return c
}

// TestPlanRefusesAbsurdRuns: a run planned past -max-run (24 h) is a
// usage error naming the flag that drives it and the estimate, and passes
// once -max-run is raised above its estimate.
func TestPlanRefusesAbsurdRuns(t *testing.T) {
	many := make([]int64, 5000)
	for i := range many {
		many[i] = int64(i + 1)
	}
	for _, c := range []struct {
		name, flag string
		set        func(*Config)
		least      time.Duration
	}{
		{"frontier grid", "-point-duration", func(c *Config) { *c = absurdFrontier() }, 32 * 21 * 4 * time.Hour},
		{"5000 values", "-values", func(c *Config) { c.Sets, c.Values = []string{SetMatrix}, many }, 5000 * 3 * time.Second},
		{"1000h", "-duration", func(c *Config) {
			c.Sets, c.Duration, c.Keys = []string{SetMatrix}, 1000*time.Hour, []int64{results.UnboundedKeys}
		}, 12 * 1000 * time.Hour},
		{"1e12 keys", "-keys", func(c *Config) { c.Sets, c.Duration, c.Keys, c.NoMinRun = []string{SetMatrix}, 0, []int64{1e12}, true }, 12 * 1e12 / EstimatePutsPerSec * time.Second},
		{"count 100", "-count", func(c *Config) { c.Count = 100 }, 100 * 10 * time.Minute},
		{"capacity steps", "-step-duration", func(c *Config) { c.Sets, c.StepDuration = []string{SetCapacity}, time.Hour }, 3 * 12 * time.Hour},
		{"mix preload", "-preload", func(c *Config) { c.Sets, c.Mix, c.Preload, c.Count = []string{SetMatrix}, "b", MaxPreload, 3 }, 24 * time.Hour},
	} {
		cfg := DefaultConfig()
		c.set(&cfg)
		cfg.Out = t.TempDir()
		err := cfg.Validate()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.flag+": the run is planned at ≈ ") || !strings.Contains(err.Error(), "-max-run 24h") ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one usage line naming %s, the estimate and -max-run", c.name, err, c.flag)
			continue
		}
		p := PlanRun(cfg)
		if p.Estimate < c.least {
			t.Errorf("%s: estimate %v, want at least %v", c.name, p.Estimate, c.least)
		}
		cfg.MaxRun = p.Estimate + time.Hour
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: with -max-run %v: %v", c.name, cfg.MaxRun, err)
		}
	}
	cfg := DefaultConfig()
	cfg.MaxRun = -time.Hour
	if err := cfg.Validate(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-max-run") {
		t.Errorf("negative -max-run: %v", err)
	}
}

// TestPlanIsHonest: the estimate counts what the runs do beside their
// measured load: the frontier's settle, rate probe and confirmations, a
// mix's preload, the capacity search's probe and steps, every round and
// build environment, and each child's start.
func TestPlanIsHonest(t *testing.T) {
	c := DefaultConfig()
	c.Sets, c.Values, c.CapacityValues, c.Frontier.Container = []string{SetFrontier}, []int64{100}, []int64{100}, 512<<20
	p := PlanRun(c)
	points := (2 + 2) * 3 // model-guided: two fit settings, a pick and a neighbour, per kind
	// The fit points run whatever the store; a pick, a neighbour and a
	// confirmation per kind may or may not: the estimate is the middle.
	point := DefaultFrontierPoint + EstimateChildStart
	if least := 6*point + (6*point+3*DefaultFrontierConfirm)/2; p.Estimate < least {
		t.Errorf("default frontier of 3 kinds: %v, want at least %v", p.Estimate, least)
	}
	if p.Estimate > time.Hour || !strings.Contains(p.String(), "frontier: model-guided: 6 fit point(s)") || !strings.Contains(p.String(), "rate probe") {
		t.Errorf("default frontier: %v\n%s", p.Estimate, p)
	}
	grid := c
	grid.Frontier.Adaptive = false
	if g := PlanRun(grid); g.Estimate < time.Duration(20*3)*(DefaultFrontierPoint+EstimateChildStart) || !strings.Contains(g.String(), "frontier: the grid you gave: 60 point(s)") {
		t.Errorf("the whole default grid: %v\n%s", g.Estimate, g)
	}
	noSettle := c
	noSettle.Frontier.Settle = 0
	if d := p.Estimate - PlanRun(noSettle).Estimate; d < time.Duration(points)*time.Second {
		t.Errorf("the settle adds %v to 60 points", d)
	}
	rated := c
	rated.Rate = Rate{PerSec: 5, Unit: RateMBps}
	if d := p.Estimate - PlanRun(rated).Estimate; d < 3*(capacity3s+DefaultStepDuration) || strings.Contains(PlanRun(rated).String(), "rate probe") {
		t.Errorf("the rate probe adds %v", d)
	}
	noContainer := c
	noContainer.Frontier.Container, noContainer.Frontier.MemLimitFracs = 0, []float64{0}
	if PlanRun(noContainer).Stages[0].Runs != 2*3+2*3 { // the fit points and the rate probe's runs
		t.Errorf("without a container: %+v", PlanRun(noContainer).Stages[0])
	}

	m := DefaultConfig()
	m.Sets, m.Mix, m.Preload = []string{SetMatrix}, "b", 100_000
	mixed := PlanRun(m).Estimate
	m.Preload = 1_000_000
	if d := PlanRun(m).Estimate - mixed; d < 12*9*time.Second {
		t.Errorf("900K more preloaded records in 12 runs add %v", d)
	}
	m.Count = 3
	if r3 := PlanRun(m).Estimate; r3 < 3*(mixed+12*9*time.Second) {
		t.Errorf("3 rounds: %v", r3)
	}

	k := DefaultConfig()
	k.Sets = []string{SetCapacity}
	if least := 3 * (capacity3s + 12*DefaultStepDuration); PlanRun(k).Estimate < least {
		t.Errorf("capacity of 3 kinds: %v, want at least %v", PlanRun(k).Estimate, least)
	}

	d := DefaultConfig()
	dp := PlanRun(d)
	if dp.Estimate < 10*time.Minute || dp.Estimate > 30*time.Minute || len(dp.Stages) != 5 || dp.Bound != DefaultMaxRun {
		t.Errorf("default run: %v\n%s", dp.Estimate, dp)
	}
	for _, set := range []string{SetMatrix, SetFailure, SetCollapse, SetStall, SetCapacity} {
		if !strings.Contains(dp.String(), "plan: "+set+": ") {
			t.Errorf("the plan lacks %s:\n%s", set, dp)
		}
	}
}

// capacity3s is the capacity probe's length.
const capacity3s = CapacityProbe

// TestScenarioEstimate: a child's estimate is its start, its preload
// (capped by Duration for the write-only loop, not for a mix) and its
// load (keys at the rate or closed loop, at least MinRun, at most
// Duration).
func TestScenarioEstimate(t *testing.T) {
	base := Scenario{Value: 100, Keys: 1_000_000}
	for _, c := range []struct {
		name string
		set  func(*Scenario)
		want time.Duration
	}{
		{"closed loop", func(s *Scenario) {}, EstimateChildStart + 10*time.Second},
		{"capped", func(s *Scenario) { s.Duration = 3 * time.Second }, EstimateChildStart + 3*time.Second},
		{"open loop", func(s *Scenario) { s.Rate = 50_000 }, EstimateChildStart + 20*time.Second},
		{"min run", func(s *Scenario) { s.Keys, s.MinRun = 10, 5*time.Second }, EstimateChildStart + 5*time.Second},
		{"unbounded", func(s *Scenario) { s.Keys, s.Duration = results.UnboundedKeys, time.Minute }, EstimateChildStart + time.Minute},
		{"settle capped", func(s *Scenario) { s.Preload, s.Duration = 10_000_000, 15*time.Second }, EstimateChildStart + 15*time.Second + 10*time.Second},
		{"mix preload", func(s *Scenario) { s.Mix, s.Preload, s.Duration = "b", 10_000_000, 15*time.Second }, EstimateChildStart + 100*time.Second + 10*time.Second},
		{"flush-bound", func(s *Scenario) {
			s.FlushBW, s.Backpressure, s.Memstore, s.Regions, s.MaxPendingFlushes = 1<<20, true, 1<<20, 1, 1
		}, EstimateChildStart + secondsDur((1e6*float64(100+KeySize)-2<<20)/(1<<20))},
		{"flush without backpressure", func(s *Scenario) { s.FlushBW, s.Memstore, s.Regions = 1<<20, 1<<20, 1 }, EstimateChildStart + 10*time.Second},
		{"big values", func(s *Scenario) { s.Value = 10 << 10 }, EstimateChildStart + time.Duration(1e6*float64(10<<10+KeySize)/100e6*1e9)},
	} {
		s := base
		c.set(&s)
		if got := scenarioEstimate(s); got < c.want-time.Millisecond || got > c.want+time.Millisecond {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if got := scenarioEstimate(Scenario{Keys: results.UnboundedKeys}); EstimateText(got) != "unbounded" {
		t.Errorf("no end: %v", got)
	}
}
