package gcstress

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

// Terminal report formats (Config.Format, WriteReport): the terminal
// formats of package report's registry.
const (
	FormatTable = string(report.FormatTable)
	FormatYCSB  = string(report.FormatYCSB)
	FormatPE    = string(report.FormatPE)
	FormatJSON  = string(report.FormatJSON)
)

// Formats lists the terminal report formats, from the report registry.
var Formats = report.Formats()

// Scenario sets (Config.Sets) and the groups of Scenario.Group, as
// package results names them. SetAll is every set.
const (
	SetAll      = results.SetAll
	SetMatrix   = results.SetMatrix
	SetFailure  = results.SetFailure
	SetStall    = results.SetStall
	SetCollapse = results.SetCollapse
	SetCapacity = results.SetCapacity
	SetFrontier = results.SetFrontier
)

// ScenarioSets lists the scenario sets.
// SetAll is every set but SetFrontier, which runs only when named.
var ScenarioSets = []string{SetAll, SetMatrix, SetFailure, SetStall, SetCollapse, SetCapacity, SetFrontier}

// Config is one run: what to run and how to report it. It is a plain value,
// read-only once Run has it. DefaultConfig is the embedded default; the
// command (package gcstress/cli) builds one from its flags, and a test or
// a program can build one by hand. Sizes are bytes; zero means "none" or
// "off" where the field says so. Validate checks every field; Run calls it.
type Config struct {
	Kinds  []string // kinds (-kinds): registered engines or memtable kinds (Kinds())
	Values []int64  // value sizes in bytes (-values)
	// Keys per value size (-keys): one entry for every value, or empty for
	// the matrix defaults.
	Keys     []int64
	Duration time.Duration // cap per matrix scenario; 0 = none (-duration)
	// NoMinRun turns off the matrix scenarios' least run time
	// (Scenario.MinRun: the warm-up plus results.MinWindows windows), for
	// a program that wants exactly Keys keys written however soon. The
	// command sets it when -keys is given: the least run time serves the
	// default key counts, and a user's own count is written exactly (too
	// short a run is then inconclusive).
	NoMinRun bool
	// StallTimeout (-stall-timeout) is the watchdog of every scenario run
	// without a run-time cap (Scenario.StallTimeout); 0 = off.
	StallTimeout time.Duration
	Memstore     int64  // flush threshold of one memtable (-memstore)
	Regions      int    // regions (memtables written in parallel) per server
	MemLimit     int64  // GOMEMLIMIT of matrix scenarios; 0 = off (-memlimit)
	GOGC         int    // GOGC of every child (-gogc); -1 = off
	Path         string // write path (-path): PathServer or a writepath client path
	// Transport between client and server when Path is not PathServer.
	Transport    string
	Writers      int              // writer goroutines (-writers)
	Profile      explain.Profiles // profiles to capture per scenario (-profile)
	Flight       bool             // keep a flight recorder (-flight; implied by Profile)
	Out          string           // results folder (-out), used exactly; "" = a new folder under DefaultOutParent
	ReplaceOut   bool             // remove an earlier run's files from Out first (-replace-out)
	Format       string           // terminal report, one of Formats (-format)
	Window       time.Duration    // sampling window; 0 = no windows (-window)
	Backpressure string           // "" (scenario default), "on", "off"
	FlushBW      int64            // flush bandwidth bytes/s of matrix scenarios; 0 unlimited
	// RSSCap (-rss-cap) is the hard resident-memory cap per child; 0 =
	// none. Its default is DefaultRSSCapFor(MachineMemory()).
	RSSCap       int64
	LatencyEvery int      // time one Put in N (-latency-every); 0 = off
	Rate         Rate     // open-loop target of each matrix scenario (-rate); zero: closed loop
	Sets         []string // scenario sets, from ScenarioSets (-scenario)
	Seed         uint64
	// Count (-count) runs every scenario that many times, at most
	// MaxCount, interleaved: round 1 runs each scenario once in Expand's
	// order (the capacity search last), then round 2, and so on, so that
	// a drift of the machine reaches every kind alike. Each run's
	// Scenario.Repeat is its round (Capacity.Repeat likewise). 0 or 1:
	// one round, Repeat 0.
	Count int

	// Failure scenario settings (-fail-*): GOMEMLIMIT, flush bandwidth,
	// value size, keys, run-time cap and RSS cap of the
	// concurrent-mode-style failure. The stall scenario uses them too, with
	// backpressure on and half the run-time cap.
	FailMemLimit int64
	FailFlushBW  int64
	FailValue    int64
	FailKeys     int64
	FailDuration time.Duration
	FailRSSCap   int64
	// FailRate is the failure scenario's open-loop rate (-fail-rate): every
	// kind writes the same keys on the same schedule, so each runs for the
	// same time until it finishes or hits the cap.
	FailRate Rate
	// The collapse scenario (-collapse-*): the failure's keys, value size,
	// flush bandwidth and run-time cap, closed loop, under this GOMEMLIMIT
	// and a hard cap far above it, so that only the collector's CPU can
	// fail it (see CollapseNote).
	CollapseMemLimit int64
	CollapseRSSCap   int64
	// CollapseWindow and CollapseWarmup are the collapse scenario's
	// sampling window and warm-up (Scenario.Window, Scenario.Warmup;
	// DefaultCollapseWindow and DefaultCollapseWarmup): finer than the
	// run's, so that a kind that finishes its fixed work in under 3 s still
	// leaves results.MinWindows windows after the warm-up. 0: the run's
	// Window and Thresholds.Warmup; a Window of 0 turns the collapse
	// windows off too. The command sets them to -window and -warmup when
	// those are given.
	CollapseWindow time.Duration
	CollapseWarmup time.Duration
	// StallLatencyEvery is the stall scenario's LatencyEvery: 1 (every Put,
	// so no rare long block is missed) unless the command line set
	// -latency-every.
	StallLatencyEvery int

	// The capacity search (-scenario capacity; capacity.go): value sizes
	// searched (-values when given, else DefaultCapacityValues), the p99
	// latency limit from intended start (-slo; 0: none) and each step's
	// length (-step-duration).
	CapacityValues []int64
	SLO            time.Duration
	StepDuration   time.Duration

	Thresholds results.Thresholds

	// Command is the command line as typed, for the reports.
	Command string

	// Mixed workloads of the matrix scenarios (config_mix.go; -mix,
	// -keydist, -zipf-theta, -preload, -read-trace). Mix is a preset of
	// gcstress/internal/proto: "" and "w" are the write-only load. KeyDist
	// "" is zipfian (latest for mix d), ZipfTheta 0 is
	// workload.DefaultZipfTheta; Preload is
	// the records inserted before the measured phase (at least 1 for a
	// mix that reads); ReadTrace traces the measured phase to tie reads to
	// the collector's phases.
	Mix       string
	KeyDist   string
	ZipfTheta float64
	Preload   int64
	ReadTrace bool
	// NoTrace (-trace=false) runs every measured phase untraced: its MMU,
	// mark-assist and read-in-mark figures are n/a, and the trace's cost
	// (results/mmu) is not paid.
	NoTrace bool
	// BuildEnvs (-build-envs) are the build environments every scenario
	// runs under, interleaved (buildenvs.go): the command (BuildPkg) is
	// built once per environment and each scenario's child is that
	// environment's binary. nil: the running binary, as before.
	BuildEnvs []BuildEnv
	// BuildPkg (-build-pkg) is the command built for BuildEnvs: a package
	// path or ./dir the go command resolves from the working directory;
	// "" is the running command's main package.
	BuildPkg string
	// Frontier (-scenario frontier; frontier.go) settings.
	Frontier FrontierConfig
	// MaxRun (-max-run) bounds the run's planned length (PlanRun): a run
	// planned longer is refused before it starts; 0: DefaultMaxRun.
	MaxRun time.Duration
	// Host is the memory every hard cap (-rss-cap, -fail-rss-cap,
	// -collapse-rss-cap, -container) must not exceed (config_host.go);
	// zero: MachineMemory(). Tests and a program planning for another
	// machine set it.
	Host HostMemory
}

// usageErr wraps ErrUsage with a message naming the flag.
func usageErr(flagName, format string, args ...any) error {
	return fmt.Errorf("%w: -%s: %s", ErrUsage, flagName, fmt.Sprintf(format, args...))
}

// DefaultConfig is the embedded default: what `make stress` runs with no
// flags (see matrix.go for the scenarios it expands to).
func DefaultConfig() Config {
	return Config{
		Kinds:             []string{memtable.KindHeap, memtable.KindArena, memtable.KindOffHeap},
		Values:            []int64{10, 100, 1 << 10, 10 << 10},
		Duration:          DefaultDuration,
		Memstore:          DefaultMemstore,
		Regions:           DefaultRegions,
		GOGC:              100,
		Path:              DefaultPath,
		Transport:         "inproc",
		Writers:           DefaultWriters,
		Format:            FormatTable,
		Window:            time.Second,
		StallTimeout:      DefaultStallTimeout,
		RSSCap:            DefaultRSSCapFor(MachineMemory()),
		LatencyEvery:      DefaultLatencyEvery,
		Sets:              []string{SetAll},
		Seed:              1,
		Count:             1,
		FailMemLimit:      DefaultFailMemLimit,
		FailFlushBW:       DefaultFailFlushBW,
		FailValue:         DefaultFailValue,
		FailKeys:          DefaultFailKeys,
		FailDuration:      DefaultFailDuration,
		FailRSSCap:        DefaultFailRSSCap,
		FailRate:          DefaultFailRate,
		CollapseMemLimit:  DefaultCollapseMemLimit,
		CollapseRSSCap:    DefaultCollapseRSSCap,
		CollapseWindow:    DefaultCollapseWindow,
		CollapseWarmup:    DefaultCollapseWarmup,
		StallLatencyEvery: 1,
		CapacityValues:    []int64{100},
		SLO:               DefaultSLO,
		StepDuration:      DefaultStepDuration,
		Thresholds:        results.DefaultThresholds(),
		Frontier:          DefaultFrontierConfig(),
	}
}

// Validate checks a Config; errors wrap ErrUsage and name the flag.
func (c *Config) Validate() error {
	for _, check := range []func() error{c.validateMatrix, c.validateMix, c.validateMemory, c.validateHost, c.validateRun, c.validateSets} {
		if err := check(); err != nil {
			return err
		}
	}
	if err := c.validateCapacity(); err != nil {
		return err
	}
	if err := c.validateBuildEnvs(); err != nil {
		return err
	}
	if err := c.validateFrontier(); err != nil {
		return err
	}
	if c.wants(SetFrontier) {
		if err := c.validateFracLimits(); err != nil {
			return err
		}
	}
	for _, r := range []struct {
		flag string
		r    Rate
	}{{"rate", c.Rate}, {"fail-rate", c.FailRate}} {
		if err := r.r.validate(); err != nil {
			return usageErr(r.flag, "%v", err)
		}
	}
	if err := c.Thresholds.Validate(); err != nil {
		var fe *results.FlagError
		if errors.As(err, &fe) {
			return usageErr(fe.Flag, "%s", fe.Msg)
		}
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return c.validatePlan() // last: the plan expands a valid Config
}

// validateRun checks the settings every child run shares: the collector,
// the write path, the writers, the windows and the output format.
func (c *Config) validateRun() error {
	if c.GOGC < -1 || c.GOGC == 0 {
		return usageErr("gogc", "%d: use a positive percentage or -1 for off", c.GOGC)
	}
	if c.Path != PathServer && !slices.Contains(clientPaths(), c.Path) {
		return usageErr("path", "unknown path %q (known: %s,%s)", c.Path, PathServer, strings.Join(clientPaths(), ","))
	}
	if c.Path != PathServer && !slices.Contains(transports(), c.Transport) {
		return usageErr("transport", "unknown transport %q (known: %s)", c.Transport, strings.Join(transports(), ","))
	}
	if c.Count < 0 || c.Count > MaxCount {
		return usageErr("count", "%d: use 1 to %d runs of each scenario", c.Count, MaxCount)
	}
	if c.Writers < 1 || c.Writers > 4096 {
		return usageErr("writers", "%d: must be 1 to 4096", c.Writers)
	}
	if !slices.Contains(Formats, c.Format) {
		return usageErr("format", "unknown format %q (known: %s)", c.Format, strings.Join(Formats, "|"))
	}
	for _, w := range []time.Duration{c.Window, c.CollapseWindow} {
		if w < 0 || (w > 0 && w < 10*time.Millisecond) {
			return usageErr("window", "%v: use 0 (off) or at least 10ms", w)
		}
	}
	if c.CollapseWarmup < 0 {
		return usageErr("warmup", "%v: negative", c.CollapseWarmup)
	}
	switch c.Backpressure {
	case "", "on", "off":
	default:
		return usageErr("backpressure", "%q: use on or off", c.Backpressure)
	}
	if c.FlushBW < 0 {
		return usageErr("flush-bw", "negative bandwidth")
	}
	if c.LatencyEvery < 0 || c.StallLatencyEvery < 0 {
		return usageErr("latency-every", "%d: use 0 (off) or N >= 1", min(c.LatencyEvery, c.StallLatencyEvery))
	}
	return nil
}

// validateSets checks -scenario: at least one known scenario set.
func (c *Config) validateSets() error {
	if len(c.Sets) == 0 {
		return usageErr("scenario", "no scenario set (known: %s)", strings.Join(ScenarioSets, ","))
	}
	for _, s := range c.Sets {
		if !slices.Contains(ScenarioSets, s) {
			return usageErr("scenario", "unknown scenario set %q (known: %s)", s, strings.Join(ScenarioSets, ","))
		}
	}
	return nil
}

// validateCapacity checks the capacity search's settings when it runs.
func (c *Config) validateCapacity() error {
	if !c.wants(SetCapacity) {
		return nil
	}
	if len(c.CapacityValues) == 0 {
		return usageErr("values", "no value size for the capacity search")
	}
	for _, v := range c.CapacityValues {
		if v <= 0 || v > memtable.MaxValueSize {
			return usageErr("values", "capacity value size %d out of range", v)
		}
	}
	if c.SLO < 0 || c.SLO > time.Hour {
		return usageErr("slo", "%v: use 0 (no latency limit) or a positive duration up to 1h", c.SLO)
	}
	if c.StepDuration < c.Thresholds.Warmup+time.Second || c.StepDuration > time.Hour {
		return usageErr("step-duration", "%v: use at least the warm-up (%v) plus 1s, at most 1h", c.StepDuration, c.Thresholds.Warmup)
	}
	return nil
}

// validateMatrix checks what the matrix is made of: kinds, value sizes,
// key counts and the run-time cap.
func (c *Config) validateMatrix() error {
	if len(c.Kinds) == 0 {
		return usageErr("kinds", "no kind given (known: %s)", strings.Join(Kinds(), ","))
	}
	known := Kinds()
	for i, k := range c.Kinds {
		if !slices.Contains(known, k) {
			return usageErr("kinds", "unknown kind %q (known: %s)", k, strings.Join(known, ","))
		}
		if slices.Contains(c.Kinds[:i], k) {
			return usageErr("kinds", "kind %q given twice: each kind runs once", k)
		}
	}
	if len(c.Values) == 0 {
		return usageErr("values", "no value size given")
	}
	seen := make(map[string]bool, len(c.Values))
	for _, v := range c.Values {
		if seen[workload.FormatSize(v)] {
			return usageErr("values", "value size %s given twice: each size runs once", workload.FormatSize(v))
		}
		seen[workload.FormatSize(v)] = true
		if v <= 0 {
			return usageErr("values", "value size %d: must be at least 1 B", v)
		}
		if v > memtable.MaxValueSize {
			return usageErr("values", "value size %s: above the memtable limit of %s", workload.FormatSize(v), workload.FormatSize(memtable.MaxValueSize))
		}
	}
	if n := len(c.Keys); n != 0 && n != 1 && n != len(c.Values) {
		return usageErr("keys", "%d counts for %d value sizes: give one, or one per value", n, len(c.Values))
	}
	for _, k := range c.Keys {
		if k <= 0 {
			return usageErr("keys", "key count %d: must be at least 1", k)
		}
	}
	if err := checkCap("duration", c.Duration, MinDuration, ""); err != nil {
		return err
	}
	if c.StallTimeout < 0 {
		return usageErr("stall-timeout", "%v: use 0 (off) or a positive duration", c.StallTimeout)
	}
	return nil
}

// MaxCount bounds Config.Count (-count): a hundred runs of every
// scenario is already a day of the default matrix.
const MaxCount = 100

// rounds is how many times each scenario runs (Count, at least 1).
func (c *Config) rounds() int { return max(c.Count, 1) }

// DefaultStallTimeout is Config.StallTimeout's default (-stall-timeout): a
// scenario without a run-time cap whose child writes no key for 30 s is
// stopped as stalled. Raise it for an engine that takes longer to open, or
// a write path that blocks longer than that on a slow flush.
const DefaultStallTimeout = 30 * time.Second

// validateMemory checks the memory settings against one memtable per
// region, and the failure and stall scenarios' settings.
func (c *Config) validateMemory() error {
	if c.Memstore < 64<<10 {
		return usageErr("memstore", "%s: a memtable needs at least 64KB", workload.FormatSize(c.Memstore))
	}
	if c.Regions < 1 || c.Regions > 1024 {
		return usageErr("regions", "%d: must be 1 to 1024", c.Regions)
	}
	// One memtable per region must fit, plus the runtime's own few MiB.
	need, ok := memNeed(c.Memstore, c.Regions)
	if !ok {
		return usageErr("memstore", "%s x %d regions overflows: no machine holds that much", workload.FormatSize(c.Memstore), c.Regions)
	}
	if c.MemLimit != 0 && c.MemLimit < need {
		return usageErr("memlimit", "%s is below what %d memtable(s) of -memstore %s need (%s)",
			workload.FormatSize(c.MemLimit), c.Regions, workload.FormatSize(c.Memstore), workload.FormatSize(need))
	}
	if c.wants(SetFailure) || c.wants(SetStall) {
		if c.FailMemLimit != 0 && c.FailMemLimit < need {
			return usageErr("fail-memlimit", "%s is below what %d memtable(s) of -memstore %s need (%s)",
				workload.FormatSize(c.FailMemLimit), c.Regions, workload.FormatSize(c.Memstore), workload.FormatSize(need))
		}
		if c.FailValue <= 0 || c.FailValue > memtable.MaxValueSize {
			return usageErr("fail-value", "value size %d out of range", c.FailValue)
		}
		if c.FailKeys <= 0 {
			return usageErr("fail-keys", "key count %d: must be at least 1", c.FailKeys)
		}
		// The stall scenario runs for half of -fail-duration.
		if err := checkCap("fail-duration", c.FailDuration, 2*MinDuration, " (the stall scenario runs for half of it)"); err != nil {
			return err
		}
		if c.FailRSSCap != 0 && c.FailRSSCap < need {
			return usageErr("fail-rss-cap", "%s is below one memtable per region (%s)", workload.FormatSize(c.FailRSSCap), workload.FormatSize(need))
		}
	}
	if c.RSSCap != 0 && c.RSSCap < need {
		return usageErr("rss-cap", "%s is below one memtable per region (%s)", workload.FormatSize(c.RSSCap), workload.FormatSize(need))
	}
	return nil
}

// MinDuration is the shortest run-time cap a scenario takes: a shorter one
// would end the load before its first Put.
const MinDuration = time.Millisecond

// checkCap checks a run-time cap: 0 (none) or at least lowest; note ends
// the message.
func checkCap(flagName string, d, lowest time.Duration, note string) error {
	if d < 0 || (d > 0 && d < lowest) {
		return usageErr(flagName, "%v: use 0 (no cap) or at least %v%s", d, lowest, note)
	}
	return nil
}

// memNeed is memstore x regions plus 8 MiB for the runtime, and false when
// that overflows an int64.
func memNeed(memstore int64, regions int) (int64, bool) {
	hi, lo := bits.Mul64(uint64(memstore), uint64(regions))
	need := lo + 8<<20
	if hi != 0 || lo > math.MaxInt64-8<<20 || memstore < 0 || regions < 0 {
		return 0, false
	}
	return int64(need), true
}

// wants reports whether scenario set s is selected.
func (c *Config) wants(s string) bool {
	if s == SetFrontier {
		return slices.Contains(c.Sets, s) // never part of SetAll
	}
	return slices.Contains(c.Sets, s) || slices.Contains(c.Sets, SetAll)
}
