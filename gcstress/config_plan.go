package gcstress

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress/internal/plan"
	"github.com/writegc/writegc/gcstress/results"
)

// A run's plan (PlanRun): the child runs each scenario set starts and how
// long they should take, from the Config alone, before anything runs. A
// phase whose length is its records (a preload, a settle, keys with no
// run-time cap) is estimated at an assumed closed-loop speed, the slower
// of EstimatePutsPerSec and EstimateMBps; a faster machine takes less.
const (
	// DefaultMaxRun is Config.MaxRun's default (-max-run): a run planned
	// longer is refused before it starts.
	DefaultMaxRun = 24 * time.Hour
	// EstimatePutsPerSec is the closed-loop Puts per second a plan assumes.
	EstimatePutsPerSec = 100_000
	// EstimateMBps is the closed-loop key+value MB/s a plan assumes.
	EstimateMBps = 100.0
	// EstimateChildStart is a plan's allowance per child run beside its
	// load: the process's start, the engine's build, the footprint's
	// forced GCs, the end record and the exit.
	EstimateChildStart = time.Second
)

// RunPlan is the work a Config plans and its estimated length. A plain
// value; String is what the command prints before a run starts.
type RunPlan struct {
	Stages   []PlanStage
	Estimate time.Duration // the stages' sum
	Bound    time.Duration // the -max-run it is held to
}

// PlanStage is one scenario set's share of a RunPlan.
type PlanStage struct {
	Set      string        // the scenario set (SetMatrix, ...)
	Runs     int           // child runs planned
	Estimate time.Duration // how long they should take
	// Flag is the flag (without its dash) that drives the stage's length
	// most: the one to lower to shorten it.
	Flag string
	// Text is the stage in one line: "frontier: 60 points × (15 s +
	// settle 5 s + start 1 s) + ... ≈ 23 min".
	Text string
}

// String is the plan in lines, one per stage, then the total against
// the bound.
func (p RunPlan) String() string {
	var b strings.Builder
	for _, s := range p.Stages {
		b.WriteString("plan: " + s.Text + "\n")
	}
	fmt.Fprintf(&b, "plan: the whole run ≈ %s (estimated at %s Puts/s or %g MB/s closed loop where records set the length; refused above -max-run %s)\n",
		EstimateText(p.Estimate), fmtCount(EstimatePutsPerSec), EstimateMBps, durText(p.Bound))
	return b.String()
}

// PlanRun is c's plan: the matrix, failure, collapse and stall scenarios
// as Expand makes them (every round, every build environment), the
// capacity searches and the frontier, each with what its runs do before
// and beside their load (preload, settle, warm-up inside the run, child
// start), and the searches' and the frontier's planned steps (see
// capacityStage, frontierStage). c should be valid (Validate).
func PlanRun(c Config) RunPlan {
	p := RunPlan{Bound: c.maxRun()}
	byGroup := map[string][]Scenario{}
	for _, s := range Expand(c) {
		byGroup[s.Group] = append(byGroup[s.Group], s)
	}
	for _, set := range []string{SetMatrix, SetFailure, SetCollapse, SetStall} {
		if sc := byGroup[set]; len(sc) > 0 {
			p.Stages = append(p.Stages, scenarioStage(c, set, sc))
		}
	}
	if c.wants(SetCapacity) {
		p.Stages = append(p.Stages, capacityStage(c))
	}
	if c.wants(SetFrontier) {
		p.Stages = append(p.Stages, frontierStage(c))
	}
	for _, s := range p.Stages {
		p.Estimate = addDur(p.Estimate, s.Estimate)
	}
	return p
}

// maxRun is MaxRun, DefaultMaxRun when 0.
func (c *Config) maxRun() time.Duration {
	if c.MaxRun == 0 {
		return DefaultMaxRun
	}
	return c.MaxRun
}

// validatePlan refuses a run planned longer than its bound, naming the
// flag that drives the longest stage.
func (c *Config) validatePlan() error {
	if c.MaxRun < 0 {
		return usageErr("max-run", "%v: a positive duration (e.g. -max-run 48h)", c.MaxRun)
	}
	p := PlanRun(*c)
	if p.Estimate <= p.Bound {
		return nil
	}
	longest := p.Stages[0]
	for _, s := range p.Stages[1:] {
		if s.Estimate > longest.Estimate {
			longest = s
		}
	}
	return usageErr(longest.Flag, "the run is planned at ≈ %s (%s), above -max-run %s: shorten it, or raise -max-run",
		EstimateText(p.Estimate), longest.Text, durText(p.Bound))
}

// scenarioEstimate is how long scenario s's child should take: its start,
// its preload (a write-only preload stops at Duration; a mix's does not),
// and its load: Keys at its open-loop Rate or closed loop, at least
// MinRun and what the flush bandwidth allows (flushBound), at most
// Duration.
func scenarioEstimate(s Scenario) time.Duration {
	var pre time.Duration
	if s.Preload > 0 {
		pre = closedLoop(s.Preload, s.Value)
		if !s.Mixed() && s.Duration > 0 {
			pre = min(pre, s.Duration)
		}
	}
	var load time.Duration
	switch {
	case s.Keys >= results.UnboundedKeys && s.Duration > 0:
		load = s.Duration
	case s.Keys >= results.UnboundedKeys:
		load = math.MaxInt64 // no end but an interrupt
	case s.Rate > 0:
		load = secondsDur(float64(s.Keys) / s.Rate)
	default:
		load = closedLoop(s.Keys, s.Value)
	}
	load = max(load, s.MinRun, flushBound(s))
	if s.Duration > 0 {
		load = min(load, s.Duration)
	}
	return addDur(addDur(EstimateChildStart, pre), load)
}

// flushBound is the least time s's keys take when backpressure holds the
// writers to the flush bandwidth: what does not fit in the memtables a
// region may fill before its writers block, at FlushBW bytes a second.
func flushBound(s Scenario) time.Duration {
	if s.FlushBW <= 0 || !s.Backpressure || s.Keys >= results.UnboundedKeys {
		return 0
	}
	held := float64(s.Memstore) * float64(max(s.Regions, 1)) * float64(s.MaxPendingFlushes+1)
	over := float64(s.Keys)*float64(int64(KeySize)+s.Value) - held
	return secondsDur(max(over, 0) / float64(s.FlushBW))
}

// closedLoop is how long n records of value bytes take closed loop at
// the assumed speed.
func closedLoop(n, value int64) time.Duration {
	perRecord := max(1.0/EstimatePutsPerSec, float64(int64(KeySize)+value)/(EstimateMBps*results.BytesPerMB))
	return secondsDur(float64(n) * perRecord)
}

// closedLoopMBps is the assumed closed-loop key+value MB/s at value bytes.
func closedLoopMBps(value int64) float64 {
	return float64(int64(KeySize)+value) / results.BytesPerMB / closedLoop(1, value).Seconds()
}

// scenarioStage is the stage of Expand's scenarios of one set.
func scenarioStage(c Config, set string, sc []Scenario) PlanStage {
	st := PlanStage{Set: set, Runs: len(sc)}
	var pre time.Duration
	capped := true
	for _, s := range sc {
		st.Estimate = addDur(st.Estimate, scenarioEstimate(s))
		if s.Preload > 0 {
			pre = addDur(pre, closedLoop(s.Preload, s.Value))
		}
		capped = capped && s.Duration > 0
	}
	each := st.Estimate / time.Duration(st.Runs)
	what := fmt.Sprintf("%d run(s) × ≈ %s (load", st.Runs, EstimateText(each))
	if capped {
		what += fmt.Sprintf(" at most %s", EstimateText(sc[0].Duration))
	}
	if pre > 0 {
		what += fmt.Sprintf(", preload ≈ %s", EstimateText(pre/time.Duration(st.Runs)))
	}
	st.Text = fmt.Sprintf("%s: %s, start %s)", set, what, EstimateText(EstimateChildStart))
	st.Text += " ≈ " + EstimateText(st.Estimate)
	st.Flag = scenarioFlag(c, set, each, pre > each/2)
	return st
}

// scenarioFlag is the flag that drives a scenario set's length: its
// run-time cap (or keys, or preload) when each run is long, else what
// makes them many.
func scenarioFlag(c Config, set string, each time.Duration, preloadBound bool) string {
	if set != SetMatrix {
		if c.FailDuration == 0 {
			return "fail-keys"
		}
		return "fail-duration"
	}
	if each > 2*(DefaultDuration+EstimateChildStart) {
		switch {
		case preloadBound:
			return "preload"
		case c.Duration == 0:
			return "keys"
		}
		return "duration"
	}
	switch {
	case c.rounds() > max(len(c.Values), len(c.Kinds)):
		return "count"
	case len(c.Values) >= len(c.Kinds):
		return "values"
	}
	return "kinds"
}

// capacityStage is the capacity searches of every round: per kind, value
// size and build environment the closed-loop probe, then up to
// plan.MaxSteps bisection steps and plan.ConfirmRuns-1 repeats of
// the sustainable one, each preloading its memtables (capacitySettle).
// Repeats after a failed confirmation and a busy machine's re-runs come on
// top.
func capacityStage(c Config) PlanStage {
	steps := plan.MaxSteps + plan.ConfirmRuns - 1
	searches := len(c.Kinds) * len(c.CapacityValues) * len(capacityEnvs(c)) * c.rounds()
	var one time.Duration
	for _, v := range c.CapacityValues {
		probe := scenarioEstimate(capacityScenario(c, c.Kinds[0], v, 0, plan.Probe))
		step := scenarioEstimate(capacityScenario(c, c.Kinds[0], v, 1, c.StepDuration))
		one = addDur(one, addDur(probe, mulDur(step, steps)))
	}
	perValue := one / time.Duration(len(c.CapacityValues))
	st := PlanStage{Set: SetCapacity, Runs: searches * (1 + steps)}
	st.Estimate = mulDur(mulDur(one, len(c.Kinds)*len(capacityEnvs(c))), c.rounds())
	st.Text = fmt.Sprintf("capacity: %d search(es) × ≈ %s (probe %s, up to %d steps of %s, each after a %s preload, start %s) ≈ %s",
		searches, EstimateText(perValue), EstimateText(plan.Probe), steps, EstimateText(c.StepDuration),
		EstimateText(min(closedLoop(capacitySettle(c, c.CapacityValues[0]), c.CapacityValues[0]), c.StepDuration)),
		EstimateText(EstimateChildStart), EstimateText(st.Estimate))
	st.Flag = "values"
	switch {
	case c.StepDuration > DefaultStepDuration:
		st.Flag = "step-duration"
	case c.rounds() > 1:
		st.Flag = "count"
	case len(c.Kinds) > len(c.CapacityValues):
		st.Flag = "kinds"
	}
	return st
}

// secondsDur is x seconds as a Duration, saturating.
func secondsDur(x float64) time.Duration {
	if !(x < float64(math.MaxInt64)/1e9) {
		return math.MaxInt64
	}
	return time.Duration(x * 1e9)
}

// addDur is a+b, saturating.
func addDur(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mulDur is d*n, saturating.
func mulDur(d time.Duration, n int) time.Duration {
	if n > 0 && d > math.MaxInt64/time.Duration(n) {
		return math.MaxInt64
	}
	return d * time.Duration(n)
}

// EstimateText is an estimate as the plan says it: "40 s", "23 min",
// "2.3 h", "112 days"; "unbounded" at the Duration's limit.
func EstimateText(d time.Duration) string {
	switch {
	case d == math.MaxInt64:
		return "unbounded"
	case d < 100*time.Second:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < 100*time.Minute:
		return fmt.Sprintf("%.0f min", d.Minutes())
	case d < 48*time.Hour:
		return fmt.Sprintf("%.1f h", d.Hours())
	}
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}

// durText is d as a flag takes it, without zero minutes and seconds:
// "24h", "90m", "1h30m".
func durText(d time.Duration) string {
	t := d.String()
	if strings.HasSuffix(t, "m0s") {
		t = strings.TrimSuffix(t, "0s")
	}
	return strings.TrimSuffix(t, "0m")
}

// fmtCount is n with thousands grouped by commas.
func fmtCount(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// frontierRateMBps is the frontier's open-loop rate from -rate in
// key+value MB/s (as given for a rate in MB/s), 0 when the probe picks it.
func frontierRateMBps(c Config) float64 {
	value := c.CapacityValues[0]
	if c.Rate.Unit == RateMBps {
		return c.Rate.PerSec
	}
	return c.Rate.Puts(value) * float64(int64(KeySize)+value) / results.BytesPerMB
}

// frontierStage is the frontier, once after every round: the rate probe
// when no -rate is given (a closed-loop probe per kind, then one step per
// kind at plan.RateShare of the slowest: up to plan.RateTries
// tries), then its points and confirmations as plan.Plan.Estimate
// plans them (model-guided, or every setting of a grid the user gave),
// each after its settle phase; the estimate is the middle of their
// expected range, and the text gives the range and the upper one too.
func frontierStage(c Config) PlanStage {
	kinds := len(c.Kinds)
	mbps, probe := frontierRateMBps(c), time.Duration(0)
	def, beside := plan.Setting{GOGC: 100}, frontierBeside(c)
	if mbps <= 0 {
		mbps = plan.RateShare * closedLoopMBps(c.CapacityValues[0])
		step := addDur(addDur(EstimateChildStart, beside.Settle), c.StepDuration)
		one := addDur(scenarioEstimate(frontierScenario(c, c.Kinds[0], def, 0, plan.Probe, "probe")), step)
		probe = mulDur(one, kinds)
	}
	e := frontierPlan(c, mbps, nil).Estimate()
	e.Low, e.High, e.Expected, e.Upper = addDur(probe, e.Low), addDur(probe, e.High), addDur(probe, e.Expected), addDur(probe, e.Upper)
	st := PlanStage{Set: SetFrontier, Runs: e.Points + e.Confirms, Estimate: e.Expected}
	if probe > 0 {
		st.Runs += 2 * kinds
	}
	st.Text = "frontier: " + e.Text
	if probe > 0 {
		st.Text += fmt.Sprintf(" + rate probe ≈ %s (up to %d tries)", EstimateText(probe), plan.RateTries)
	}
	st.Text += " " + e.Range(EstimateText)
	st.Flag = frontierFlag(c)
	return st
}

// frontierFlag is the flag that drives the frontier's length.
func frontierFlag(c Config) string {
	f := c.Frontier
	switch {
	case frontierBeside(c).Settle > f.PointDuration:
		return "settle"
	case f.PointDuration > DefaultFrontierPoint || f.Adaptive:
		return "point-duration"
	case len(c.Kinds) > max(len(f.GOGC), len(f.MemLimitFracs)):
		return "kinds"
	case len(f.GOGC) >= len(f.MemLimitFracs):
		return "gogc"
	}
	return "memlimit-frac"
}
