package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
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
// gcstress.Config, starting from gcstress.DefaultConfig. args may start
// with a run subcommand (all, matrix, failure, stall, collapse, capacity,
// frontier: the scenario set it runs); without one it is `all` with the
// old flat flags' rules (see flags_sub.go). Errors wrap gcstress.ErrUsage
// and name the flag: a refused value is one line with an example of a
// good one, not the usage text; flag.ErrHelp is returned as is for -h,
// after the usage text went to stderr. ParseFlags touches no file:
// gcstress.Run checks -out (and picks a new folder when it is not given).
func ParseFlags(args []string, stderr io.Writer) (gcstress.Config, error) {
	c := gcstress.DefaultConfig()
	r := &runFlags{sub: gcstress.SetAll, legacy: true, deprecated: map[string]string{}}
	rest := args
	if len(args) > 0 && slices.Contains(gcstress.ScenarioSets, args[0]) {
		r.sub, r.legacy, rest = args[0], false, args[1:]
	}
	name := "gcstress"
	if !r.legacy {
		name += " " + r.sub
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	r.define(fs, &c)
	fs.Usage = func() { printUsage(fs, r) }
	if err := parseOneLine(fs, rest, stderr); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", gcstress.ErrUsage, fs.Arg(0))
	}
	r.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { r.set[f.Name] = true })
	c.Command = strings.TrimSpace("gcstress " + strings.Join(args, " "))
	err := r.apply(&c)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return c, r.rename(err) // one line: the deprecation note waits for a good command line
	}
	r.noteDeprecated(stderr)
	return c, nil
}

// runFlags are a run's flags that flag.Parse cannot write into the Config
// directly (comma-separated lists, -quick, whose defaults yield to flags
// given explicitly), and which flags were given.
type runFlags struct {
	sub    string // the subcommand: a scenario set, gcstress.SetAll when none was named
	legacy bool   // no subcommand named: the old flat command line (flags_sub.go)

	kinds, values, keys, sets, profile string
	rate, failRate, preload            string
	quick, flight, grid                bool
	stallDuration                      time.Duration
	memPct                             int64 // failure/stall -memlimit as a percentage of -rss-cap; 0: bytes
	thresholds                         map[string]bool
	frontier                           frontierLists
	buildEnvs                          *buildEnvFlags

	set        map[string]bool   // the flags given, by name
	deprecated map[string]string // the deprecated flags defined, with what replaces each
	legacyNote []string          // what the old rules of the command line did (legacy only)
}

// define defines the subcommand's flags on fs, writing into c: the common
// ones, the subcommand's own, and on the all path the deprecated synonyms.
func (r *runFlags) define(fs *flag.FlagSet, c *gcstress.Config) {
	r.defineCommon(fs, c)
	switch r.sub {
	case gcstress.SetAll, gcstress.SetMatrix:
		r.defineMatrix(fs, c)
	case gcstress.SetFailure, gcstress.SetStall, gcstress.SetCollapse:
		r.defineFailure(fs, c)
	case gcstress.SetCapacity:
		r.defineCapacity(fs, c)
	case gcstress.SetFrontier:
		r.defineFrontier(fs, c)
	}
	if r.sub == gcstress.SetAll {
		r.defineDeprecated(fs, c)
	}
}

// defineCommon defines the flags every run subcommand has.
func (r *runFlags) defineCommon(fs *flag.FlagSet, c *gcstress.Config) {
	// The write-only load, for every subcommand; the matrix's -mix flags
	// start from it.
	c.Mix, c.ZipfTheta, c.ReadTrace = "w", workload.DefaultZipfTheta, true
	fs.StringVar(&r.kinds, "kinds", strings.Join(c.Kinds, ","), "kinds, comma-separated: registered engines and memtable kinds (known: "+strings.Join(gcstress.Kinds(), ",")+")")
	fs.Var(sizeFlag{&c.Memstore}, "memstore", "flush threshold of one memtable (HBase memstore size)")
	fs.IntVar(&c.Regions, "regions", c.Regions, "regions (memtables filled in parallel) per server")
	if r.sub != gcstress.SetFrontier {
		fs.StringVar(&r.frontier.gogc, "gogc", "100", "GOGC of each child (-1 or off: off)")
	}
	fs.StringVar(&c.Path, "path", c.Path, "write path: "+gcstress.PathServer+" (Puts straight into the region server) or a client path: "+strings.Join(writepath.Paths(), ","))
	fs.StringVar(&c.Transport, "transport", c.Transport, "transport for client paths: "+strings.Join(writepath.Transports(), ","))
	fs.IntVar(&c.Writers, "writers", c.Writers, "writer goroutines per scenario")
	fs.StringVar(&r.profile, "profile", "", "profiles per scenario: cpu,heap,allocs,fgprof,trace,mutex,block or all (any of them also keeps a flight recorder); "+
		"flight alone keeps the flight recorder: each child writes its last 10 s to <scenario>/flight.out on the first degraded or failed window")
	fs.StringVar(&c.Out, "out", "", "results folder, refused if it exists and is not empty (default: a new "+gcstress.DefaultOutParent+"/<UTC time>-<id> under the working directory)")
	fs.BoolVar(&c.ReplaceOut, "replace-out", false, "reuse a non-empty -out: first remove the files an earlier run's manifest ("+gcstress.ManifestFile+") lists, if unchanged; other files are left alone, and a folder without a manifest is refused")
	fs.StringVar(&c.Format, "format", c.Format, "terminal report: "+strings.Join(gcstress.Formats, "|"))
	fs.Var(liveFlag{}, "http", "serve a live page of the run at this address (:8080 binds 127.0.0.1; give an interface's address to bind it); default: off")
	fs.DurationVar(&c.StallTimeout, "stall-timeout", c.StallTimeout, "watchdog of a scenario without a run-time cap: stop a child that writes no key for this long (at least 3 windows) and fail it as stalled (0: off)")
	fs.BoolVar(&r.quick, "quick", false, "tiny scenarios (for tests and smoke runs); the flags given keep their values")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "key seed")
	fs.DurationVar(&c.MaxRun, "max-run", gcstress.DefaultMaxRun, "refuse a run planned longer than this: the plan and its estimate are printed before a run starts (raise it for a longer run)")
	fs.IntVar(&c.Count, "count", c.Count, fmt.Sprintf("run each scenario this many times (1 to %d), interleaved: every scenario once, then again (the capacity search too, after each round); bench.txt holds every run, for gcstress compare and benchstat", gcstress.MaxCount))
	r.thresholds = map[string]bool{}
	fs.Var(thresholdsFlag{&c.Thresholds, r.thresholds}, "thresholds", "the classifier's thresholds, key=value comma-separated (keys: "+strings.Join(thresholdKeys, ",")+"; see docs/gcstress.md), e.g. healthy-gc=10,degraded-gc=25,warmup=5s")
	r.buildEnvs = defineBuildEnvFlags(fs, c)
}

// defineMatrix defines the matrix's own flags (those of `all` too, where
// the sizes, caps and sampling given reach every scenario set).
func (r *runFlags) defineMatrix(fs *flag.FlagSet, c *gcstress.Config) {
	every := ""
	if r.sub == gcstress.SetAll {
		every = "; given, every scenario's (default: each set's own)"
	}
	fs.StringVar(&r.values, "values", "10,100,1KB,10KB", "value sizes, comma-separated (10, 100B, 1KB, 10KB; K = 1024)")
	fs.StringVar(&r.keys, "keys", "", "keys written per scenario, one for all values or one per value (10M, 1e9), exactly; unbounded: write until -duration ends (duration first, progress in time); default: the matrix's")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "cap on each scenario's run time (0: none, else at least 1ms)")
	fs.Var(sizeFlag{&c.MemLimit}, "memlimit", "GOMEMLIMIT of each scenario's child (off: none)"+every)
	fs.Var(sizeFlag{&c.FlushBW}, "flush-bw", "flush bandwidth per second (0: unlimited)"+every)
	fs.Var(sizeFlag{&c.RSSCap}, "rss-cap", "hard resident-memory cap per child, watched by child and parent (off: none; default 8GB, at most 75% of the machine's or its cgroup's memory; a cap above that memory is refused)")
	fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: on, off for the failure and collapse scenarios)")
	fs.IntVar(&c.LatencyEvery, "latency-every", c.LatencyEvery, "time one Put in N for the latency histogram (0: off; 1: every Put, which costs 4-6% of arena throughput here)"+every)
	fs.StringVar(&r.rate, "rate", "", "open loop: pace each matrix scenario's Puts at this rate, split across its writers (20MB, 20MB/s, 1.5GB/s: decimal MB of key+value bytes; 50000ops, 50Kops/s: Puts); latency is then also measured from each Put's intended start (ilat_*). Default: closed loop")
	fs.DurationVar(&c.Window, "window", c.Window, "sampling window (0: no windows, only the end record)"+every)
	defineMixFlags(fs, c, r)
}

// apply fills c from what flag.Parse could not write: the lists, -quick's
// defaults and what the subcommand decides.
func (r *runFlags) apply(c *gcstress.Config) error {
	c.Kinds = flagval.List(r.kinds)
	if c.Count < 1 || c.Count > gcstress.MaxCount {
		return usageErr("count", fmt.Errorf("%d: use 1 to %d runs of each scenario", c.Count, gcstress.MaxCount))
	}
	if err := r.applyProfile(c); err != nil {
		return err
	}
	c.Sets = []string{r.sub}
	if r.sub == gcstress.SetAll {
		c.Sets = flagval.List(r.sets) // -scenario, deprecated
	}
	if err := r.applySub(c); err != nil {
		return err
	}
	if r.quick {
		applyQuick(c, r.oldSet())
	}
	if err := r.applyMemPct(c); err != nil {
		return err
	}
	if r.sub == gcstress.SetAll {
		r.reachEverySet(c)
	}
	return r.buildEnvs.apply(c)
}

// applySub applies the subcommand's own flags.
func (r *runFlags) applySub(c *gcstress.Config) error {
	switch r.sub {
	case gcstress.SetAll, gcstress.SetMatrix:
		if err := r.applyMatrix(c); err != nil {
			return err
		}
		if err := r.applyMix(c); err != nil {
			return err
		}
		if r.sub == gcstress.SetAll { // -fail-rate, deprecated
			var err error
			if c.FailRate, err = gcstress.ParseRate(r.failRate); err != nil {
				return usageErr("fail-rate", err)
			}
		}
	case gcstress.SetFailure, gcstress.SetStall, gcstress.SetCollapse:
		if err := r.applyFailure(c); err != nil {
			return err
		}
	case gcstress.SetCapacity:
		if err := r.applyCapacity(c); err != nil {
			return err
		}
	}
	if r.sub == gcstress.SetFrontier || r.sub == gcstress.SetAll {
		return r.applyFrontier(c)
	}
	return r.applyGOGC(c)
}

// applyProfile parses -profile; its "flight" is the flight recorder alone
// (Config.Flight), the rest explain's profiles.
func (r *runFlags) applyProfile(c *gcstress.Config) error {
	var names []string
	for _, p := range flagval.List(r.profile) {
		if p == "flight" {
			c.Flight = true
			continue
		}
		names = append(names, p)
	}
	c.Flight = c.Flight || r.flight
	var err error
	if c.Profile, err = explain.ParseProfiles(strings.Join(names, ",")); err != nil {
		return usageErr("profile", err)
	}
	return nil
}

// applyMatrix parses the matrix's lists: -values, -keys and -rate. On
// the legacy path -keys and -duration keep their old rules (legacyKeys).
func (r *runFlags) applyMatrix(c *gcstress.Config) error {
	var err error
	if c.Values, err = parseSizes(r.values); err != nil {
		return usageErr("values", err)
	}
	if r.set["values"] {
		c.CapacityValues = c.Values
	}
	if c.Rate, err = gcstress.ParseRate(r.rate); err != nil {
		return usageErr("rate", err)
	}
	if strings.TrimSpace(r.keys) == "unbounded" {
		if !r.set["duration"] || c.Duration <= 0 {
			return usageErr("keys", fmt.Errorf("unbounded: a run without a key bound needs a -duration cap (e.g. -keys unbounded -duration 30s)"))
		}
		c.Keys = []int64{results.UnboundedKeys}
		return nil
	}
	for _, f := range flagval.List(r.keys) {
		n, err := workload.ParseCount(f)
		if err != nil {
			return usageErr("keys", err)
		}
		c.Keys = append(c.Keys, n)
	}
	// The user's key count is the run: no least run time writes keys
	// past it (a run too short to judge is inconclusive, and says so).
	c.NoMinRun = len(c.Keys) > 0
	if r.legacy {
		r.legacyKeys(c)
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

// offFlag is a boolean flag that sets *off to its negation: -trace=false
// sets Config.NoTrace, whose zero value keeps the default.
type offFlag struct{ off *bool }

func (f offFlag) String() string {
	if f.off == nil {
		return "true"
	}
	return strconv.FormatBool(!*f.off)
}

func (f offFlag) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	*f.off = !b
	return nil
}

func (offFlag) IsBoolFlag() bool { return true }

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
