package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/flagval"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/writepath"
)

// ParseFlags parses args (without the program name) into a validated
// gcstress.Config, starting from gcstress.DefaultConfig. Errors wrap
// gcstress.ErrUsage and name the flag: a refused value is one line with an
// example of a good one, not the usage text; flag.ErrHelp is returned as is
// for -h, after the usage text went to stderr. ParseFlags touches no file:
// gcstress.Run checks -out (and picks a new folder when it is not given).
func ParseFlags(args []string, stderr io.Writer) (gcstress.Config, error) {
	c := gcstress.DefaultConfig()
	fs := flag.NewFlagSet("gcstress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: gcstress [flags]                          run the scenarios (default: the embedded matrix)\n"+
			"       gcstress explain [flags] PROFILE|DIR...  explain captured profiles (gcstress explain -h)\n"+
			"       gcstress report [-format F] DIR           rebuild DIR's reports from its samples.jsonl\n"+
			"       gcstress compare [flags] OLD NEW          compare two results folders' bench.txt (gcstress compare -h)\n\nflags:\n")
		fs.PrintDefaults()
	}
	l := defineFlags(fs, &c)
	mf := defineMixFlags(fs, &c)
	be := defineBuildEnvFlags(fs, &c)
	if err := parseOneLine(fs, args, stderr); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", gcstress.ErrUsage, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c.Command = strings.TrimSpace("gcstress " + strings.Join(args, " "))
	if err := l.apply(&c, set); err != nil {
		return c, err
	}
	if err := mf.apply(&c, set); err != nil {
		return c, err
	}
	if err := be.apply(&c); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// lists are the flags parsed after flag.Parse: comma-separated lists, and
// -quick, whose defaults yield to flags given explicitly.
type lists struct {
	kinds, values, keys, sets, profile string
	rate, failRate                     string
	quick                              bool
	frontier                           frontierLists
}

// defineFlags defines every flag on fs, writing into c.
func defineFlags(fs *flag.FlagSet, c *gcstress.Config) *lists {
	l := &lists{}
	fs.StringVar(&l.kinds, "kinds", strings.Join(c.Kinds, ","), "kinds, comma-separated: registered engines and memtable kinds (known: "+strings.Join(gcstress.Kinds(), ",")+")")
	fs.StringVar(&l.values, "values", "10,100,1KB,10KB", "value sizes, comma-separated (10, 100B, 1KB, 10KB; K = 1024)")
	fs.StringVar(&l.keys, "keys", "", "keys written per scenario, one for all values or one per value (10M, 1e9); default: the matrix's")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "cap on each scenario's run time (0: none, else at least 1ms; default none when -keys is given); given without -keys, each matrix scenario runs for this long with keys unbounded (duration first, progress in time)")
	fs.DurationVar(&c.StallTimeout, "stall-timeout", c.StallTimeout, "watchdog of a scenario without a run-time cap: stop a child that writes no key for this long (at least 3 windows) and fail it as stalled (0: off)")
	fs.Var(sizeFlag{&c.Memstore}, "memstore", "flush threshold of one memtable (HBase memstore size)")
	fs.IntVar(&c.Regions, "regions", c.Regions, "regions (memtables filled in parallel) per server")
	fs.Var(sizeFlag{&c.MemLimit}, "memlimit", "GOMEMLIMIT of each scenario's child (off: none; the failure and stall scenarios use -fail-memlimit unless this is given)")
	fs.StringVar(&c.Path, "path", c.Path, "write path: "+gcstress.PathServer+" (Puts straight into the region server) or a client path: "+strings.Join(writepath.Paths(), ","))
	fs.StringVar(&c.Transport, "transport", c.Transport, "transport for client paths: "+strings.Join(writepath.Transports(), ","))
	fs.IntVar(&c.Writers, "writers", c.Writers, "writer goroutines per scenario")
	fs.StringVar(&l.profile, "profile", "", "profiles per scenario: cpu,heap,allocs,fgprof,trace,mutex,block or all (also keeps a flight recorder)")
	fs.BoolVar(&c.Flight, "flight", false, "keep a runtime/trace flight recorder in each child and write its last 10 s to <scenario>/flight.out on the first degraded or failed window (implied by -profile)")
	fs.StringVar(&c.Out, "out", "", "results folder, refused if it exists and is not empty (default: a new "+gcstress.DefaultOutParent+"/<UTC time>-<id> under the working directory)")
	fs.BoolVar(&c.ReplaceOut, "replace-out", false, "reuse a non-empty -out: first remove the files an earlier run's manifest ("+gcstress.ManifestFile+") lists, if unchanged; other files are left alone, and a folder without a manifest is refused")
	fs.StringVar(&c.Format, "format", c.Format, "terminal report: "+strings.Join(gcstress.Formats, "|"))
	fs.Var(liveFlag{}, "http", "serve a live page of the run at this address (:8080 binds 127.0.0.1; give an interface's address to bind it); default: off")
	fs.DurationVar(&c.Window, "window", c.Window, "sampling window (0: no windows, only the end record); the collapse scenario samples every "+gcstress.DefaultCollapseWindow.String()+" unless this is given")
	fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: on, off for the failure scenario)")
	fs.Var(sizeFlag{&c.FlushBW}, "flush-bw", "flush bandwidth per second (0: unlimited; the failure and stall scenarios use -fail-flush-bw unless this is given)")
	fs.Var(sizeFlag{&c.RSSCap}, "rss-cap", "hard resident-memory cap per child, watched by child and parent (off: none; default 8GB, at most 75% of the machine's or its cgroup's memory; a cap above that memory is refused)")
	fs.IntVar(&c.LatencyEvery, "latency-every", c.LatencyEvery, "time one Put in N for the latency histogram (0: off; 1: every Put, which costs 4-6% of arena throughput here; the stall scenario times every Put unless this is given)")
	fs.StringVar(&l.rate, "rate", "", "open loop: pace each matrix scenario's Puts at this rate, split across its writers (20MB, 20MB/s, 1.5GB/s: decimal MB of key+value bytes; 50000ops, 50Kops/s: Puts); latency is then also measured from each Put's intended start (ilat_*). Default: closed loop")
	fs.StringVar(&l.failRate, "fail-rate", c.FailRate.String(), "open-loop rate of the failure scenario (every kind runs the same schedule)")
	fs.Var(sizeFlag{&c.CollapseMemLimit}, "collapse-memlimit", "GOMEMLIMIT of the collapse scenario")
	fs.Var(sizeFlag{&c.CollapseRSSCap}, "collapse-rss-cap", "hard resident-memory cap of the collapse scenario")
	fs.DurationVar(&c.SLO, "slo", c.SLO, "capacity search: a step's p99 latency from intended start (after warm-up) must stay within this (0: no latency limit)")
	fs.DurationVar(&c.StepDuration, "step-duration", c.StepDuration, "capacity search: length of each step (at least the warm-up plus 1s)")
	fs.StringVar(&l.sets, "scenario", gcstress.SetAll, "scenario sets: "+strings.Join(gcstress.ScenarioSets, ",")+" (comma-separated)")
	fs.BoolVar(&l.quick, "quick", false, "tiny scenarios (for tests and smoke runs)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "key seed")
	fs.DurationVar(&c.MaxRun, "max-run", gcstress.DefaultMaxRun, "refuse a run planned longer than this: the plan and its estimate are printed before a run starts (raise it for a longer run)")
	fs.IntVar(&c.Count, "count", c.Count, fmt.Sprintf("run each scenario this many times (1 to %d), interleaved: every scenario once, then again (the capacity search too, after each round); bench.txt holds every run, for gcstress compare and benchstat", gcstress.MaxCount))
	fs.Var(sizeFlag{&c.FailMemLimit}, "fail-memlimit", "GOMEMLIMIT of the failure scenario")
	fs.Var(sizeFlag{&c.FailFlushBW}, "fail-flush-bw", "flush bandwidth per second of the failure scenario")
	fs.Var(sizeFlag{&c.FailValue}, "fail-value", "value size of the failure scenario")
	fs.Var(countFlag{&c.FailKeys}, "fail-keys", "keys of the failure scenario")
	fs.DurationVar(&c.FailDuration, "fail-duration", c.FailDuration, "cap on the failure scenario's run time (0: none, else at least 2ms: the stall scenario gets half)")
	fs.Var(sizeFlag{&c.FailRSSCap}, "fail-rss-cap", "hard resident-memory cap of the failure scenario (the container's limit; -fail-memlimit follows at 90% of it unless given)")
	defineThresholds(fs, &c.Thresholds)
	defineFrontier(fs, c, &l.frontier)
	return l
}

// defineThresholds defines the classifier's flags.
func defineThresholds(fs *flag.FlagSet, t *results.Thresholds) {
	fs.Float64Var(&t.HealthyGC, "healthy-gc", t.HealthyGC, "healthy: GC CPU below this % of busy CPU")
	fs.Float64Var(&t.HealthyAssist, "healthy-assist", t.HealthyAssist, "healthy: assist CPU below this %")
	fs.Float64Var(&t.DegradedGC, "degraded-gc", t.DegradedGC, "degraded: GC CPU at or above this %")
	fs.Float64Var(&t.DegradedAssist, "degraded-assist", t.DegradedAssist, "degraded: assist CPU at or above this %")
	fs.Float64Var(&t.FailLive, "fail-live", t.FailLive, "failed: live heap at or above this % of GOMEMLIMIT (with limiter on and throughput collapsed)")
	fs.Float64Var(&t.FailThroughput, "fail-throughput", t.FailThroughput, "failed: window MB/s below this % of the scenario's best window")
	fs.IntVar(&t.FailWindows, "fail-windows", t.FailWindows, "failed: that many failing windows in a row")
	fs.Float64Var(&t.Share, "share", t.Share, "a scenario is degraded (elevated) when at least this % of its windows after warm-up are")
	fs.DurationVar(&t.Warmup, "warmup", t.Warmup, "windows ending before this don't count toward a scenario's class (the collapse scenario's is "+gcstress.DefaultCollapseWarmup.String()+" unless this is given)")
}

// apply fills c from the lists and from which flags were given (set):
// -quick's defaults, -keys dropping the default run-time cap, -memlimit,
// -flush-bw and -latency-every reaching the failure and stall scenarios,
// and -window and -warmup the collapse scenario.
func (l *lists) apply(c *gcstress.Config, set map[string]bool) error {
	c.Kinds = flagval.List(l.kinds)
	if c.Count < 1 || c.Count > gcstress.MaxCount {
		return usageErr("count", fmt.Errorf("%d: use 1 to %d runs of each scenario", c.Count, gcstress.MaxCount))
	}
	var err error
	if c.Values, err = parseSizes(l.values); err != nil {
		return usageErr("values", err)
	}
	if l.keys != "" {
		for _, f := range flagval.List(l.keys) {
			n, err := workload.ParseCount(f)
			if err != nil {
				return usageErr("keys", err)
			}
			c.Keys = append(c.Keys, n)
		}
		if !set["duration"] {
			c.Duration = 0
		}
		// The user's key count is the run: no least run time writes keys
		// past it (a run too short to judge is inconclusive, and says so).
		c.NoMinRun = true
	} else if set["duration"] && c.Duration > 0 {
		// Duration first: each matrix scenario runs for -duration, keys
		// unbounded, its progress in time.
		c.Keys = []int64{results.UnboundedKeys}
	}
	c.Sets = flagval.List(l.sets)
	if set["values"] {
		c.CapacityValues = c.Values
	}
	if c.Rate, err = gcstress.ParseRate(l.rate); err != nil {
		return usageErr("rate", err)
	}
	if c.FailRate, err = gcstress.ParseRate(l.failRate); err != nil {
		return usageErr("fail-rate", err)
	}
	if c.Profile, err = explain.ParseProfiles(l.profile); err != nil {
		return usageErr("profile", err)
	}
	if l.quick {
		applyQuick(c, set)
	}
	if err := l.frontier.apply(c, set); err != nil {
		return err
	}
	if set["fail-rss-cap"] && !set["fail-memlimit"] {
		c.FailMemLimit = c.FailRSSCap / 10 * 9
	}
	if set["memlimit"] {
		c.FailMemLimit = c.MemLimit
		if !set["collapse-memlimit"] {
			c.CollapseMemLimit = c.MemLimit
		}
	}
	if set["flush-bw"] {
		c.FailFlushBW = c.FlushBW
	}
	if set["latency-every"] {
		c.StallLatencyEvery = c.LatencyEvery
	}
	// The collapse group's finer sampling yields to the user's.
	if set["window"] {
		c.CollapseWindow = c.Window
	}
	if set["warmup"] {
		c.CollapseWarmup = c.Thresholds.Warmup
	}
	return nil
}

// applyQuick shrinks every scenario for tests: small memtables, short runs,
// quarter-second windows. Flags given explicitly (set) still win.
func applyQuick(c *gcstress.Config, set map[string]bool) {
	quick := []struct {
		flag string
		do   func()
	}{
		{"memstore", func() { c.Memstore = 4 << 20 }},
		{"duration", func() { c.Duration = 3 * time.Second }},
		{"window", func() { c.Window = 250 * time.Millisecond }},
		// The failure scenario at half size (as its test in package
		// gcstress): heap needs about 130 MiB, arena 85 MiB.
		{"fail-rss-cap", func() { c.FailRSSCap = 112 << 20 }},
		{"fail-memlimit", func() { c.FailMemLimit = 100 << 20 }},
		{"fail-keys", func() { c.FailKeys = 1_000_000 }},
		{"fail-rate", func() { c.FailRate = gcstress.Rate{PerSec: 8, Unit: gcstress.RateMBps} }},
		{"fail-duration", func() { c.FailDuration = 10 * time.Second }},
		{"collapse-memlimit", func() { c.CollapseMemLimit = 64 << 20 }},
		{"collapse-rss-cap", func() { c.CollapseRSSCap = 256 << 20 }},
		{"step-duration", func() { c.StepDuration = 3 * time.Second }},
		{"rss-cap", func() { c.RSSCap = 1 << 30 }},
	}
	for _, q := range quick {
		if !set[q.flag] {
			q.do()
		}
	}
	if len(c.Keys) == 0 {
		c.Keys = []int64{200_000}
	}
}

// usageErr wraps gcstress.ErrUsage with a message naming the flag.
func usageErr(flagName string, err error) error {
	return fmt.Errorf("%w: -%s: %v", gcstress.ErrUsage, flagName, err)
}

// sizeFlag is a byte size flag: 16MB, 1KB, 100 (bytes); off, none and
// unlimited are 0.
type sizeFlag struct{ v *int64 }

func (s sizeFlag) String() string {
	if s.v == nil || *s.v == 0 {
		return "0"
	}
	return workload.FormatSize(*s.v)
}

func (s sizeFlag) Set(v string) error {
	if t := strings.ToLower(strings.TrimSpace(v)); t == "off" || t == "none" || t == "unlimited" {
		*s.v = 0
		return nil
	}
	n, err := workload.ParseSize(v)
	if err != nil {
		return err
	}
	*s.v = n
	return nil
}

// countFlag is a count flag: 2M, 1e9, 20K.
type countFlag struct{ v *int64 }

func (s countFlag) String() string {
	if s.v == nil {
		return "0"
	}
	return workload.FormatCount(*s.v)
}

func (s countFlag) Set(v string) error {
	n, err := workload.ParseCount(v)
	if err != nil {
		return err
	}
	*s.v = n
	return nil
}

func parseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range flagval.List(s) {
		n, err := workload.ParseSize(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
