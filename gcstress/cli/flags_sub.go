package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/flagval"
)

// The run subcommands are the scenario sets: `gcstress failure` runs the
// failure scenarios with the failure's own -memlimit, -rss-cap, -rate...
// Plain `gcstress [flags]` is `all` on the legacy path: it also takes the
// old flat flags (-fail-*, -collapse-*, the per-threshold flags,
// -scenario NAME, -flight, and the capacity search's and the frontier's
// flags) as deprecated synonyms, hidden from -h, and keeps the old rules
// of -keys and -duration, for one release; `gcstress all` takes the
// synonyms too.

// subUsage is each run subcommand's line in the usage text.
var subUsage = map[string]string{
	gcstress.SetAll:      "every scenario set but the frontier (what plain gcstress and make stress run)",
	gcstress.SetMatrix:   "the matrix: every kind x value size",
	gcstress.SetFailure:  "the concurrent-mode-style failure: each kind under a small GOMEMLIMIT and RSS cap at a fixed rate",
	gcstress.SetStall:    "the stall: writers blocked by backpressure, every Put timed",
	gcstress.SetCollapse: "the collapse: the failure's work closed loop under a GOMEMLIMIT far below the RSS cap",
	gcstress.SetCapacity: "the capacity search: the highest rate each kind sustains healthy",
	gcstress.SetFrontier: "the frontier: GC CPU against peak memory per GOGC x GOMEMLIMIT, and a recommendation",
}

// printUsage is fs's usage text: the commands, then every flag but the
// deprecated ones.
func printUsage(fs *flag.FlagSet, r *runFlags) {
	w := fs.Output()
	if r.sub == gcstress.SetAll {
		fmt.Fprint(w, "usage: gcstress [SUBCOMMAND] [flags]              run scenarios (default: all)\n")
		for _, s := range gcstress.ScenarioSets {
			fmt.Fprintf(w, "       gcstress %-9s [flags]   %s\n", s, subUsage[s])
		}
		fmt.Fprint(w, "       gcstress explain [flags] PROFILE|DIR...  explain captured profiles (gcstress explain -h)\n"+
			"       gcstress report [-format F] DIR           rebuild DIR's reports from its samples.jsonl\n"+
			"       gcstress compare [flags] OLD NEW          compare two results folders' bench.txt (gcstress compare -h)\n\n"+
			"each subcommand's own flags: gcstress SUBCOMMAND -h\n\nflags of all:\n")
	} else {
		fmt.Fprintf(w, "usage: gcstress %s [flags]\n\nruns %s\n\nflags:\n", r.sub, subUsage[r.sub])
	}
	visible := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	visible.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := r.deprecated[f.Name]; ok {
			return
		}
		visible.Var(f.Value, f.Name, f.Usage)
		visible.Lookup(f.Name).DefValue = f.DefValue
	})
	visible.PrintDefaults()
}

// defineFailure defines the failure's, the stall's and the collapse's own
// flags: the three run the same fixed work (value size, keys, flush
// bandwidth), each with its own defaults.
func (r *runFlags) defineFailure(fs *flag.FlagSet, c *gcstress.Config) {
	fs.Var(sizeFlag{&c.FailValue}, "value", "value size")
	fs.Var(countFlag{&c.FailKeys}, "keys", "keys written by each kind")
	fs.Var(sizeFlag{&c.FailFlushBW}, "flush-bw", "flush bandwidth per second (0: unlimited)")
	switch r.sub {
	case gcstress.SetStall:
		r.stallDuration = c.FailDuration / 2
		fs.DurationVar(&r.stallDuration, "duration", r.stallDuration, "cap on the run time (0: none, else at least 1ms)")
	default:
		fs.DurationVar(&c.FailDuration, "duration", c.FailDuration, "cap on each kind's run time (0: none, else at least 2ms)")
	}
	if r.sub == gcstress.SetCollapse {
		fs.Var(sizeFlag{&c.CollapseMemLimit}, "memlimit", "GOMEMLIMIT of each kind's child (off: none)")
		fs.Var(sizeFlag{&c.CollapseRSSCap}, "rss-cap", "hard resident-memory cap, far above -memlimit so that only the collector's CPU can fail a kind")
		fs.DurationVar(&c.CollapseWindow, "window", c.CollapseWindow, "sampling window (0: no windows, only the end record); its warm-up is -thresholds warmup=D (default "+gcstress.DefaultCollapseWarmup.String()+" here)")
		fs.IntVar(&c.LatencyEvery, "latency-every", c.LatencyEvery, "time one Put in N for the latency histogram (0: off)")
		fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: off)")
		return
	}
	r.memPct = 90
	fs.Var(limitFlag{&c.FailMemLimit, &r.memPct}, "memlimit", "GOMEMLIMIT of each child: a size, a percentage of -rss-cap (90%), or off")
	fs.Var(sizeFlag{&c.FailRSSCap}, "rss-cap", "hard resident-memory cap of each child (the container's limit)")
	fs.DurationVar(&c.Window, "window", c.Window, "sampling window (0: no windows, only the end record)")
	if r.sub == gcstress.SetStall {
		fs.IntVar(&c.StallLatencyEvery, "latency-every", c.StallLatencyEvery, "time one Put in N for the latency histogram (0: off; default every Put, so that no rare long block is missed)")
		fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: on)")
		return
	}
	fs.IntVar(&c.LatencyEvery, "latency-every", c.LatencyEvery, "time one Put in N for the latency histogram (0: off)")
	fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: off)")
	fs.StringVar(&r.failRate, "rate", c.FailRate.String(), "open-loop rate (every kind runs the same schedule: 2MB/s, 50Kops/s)")
}

// applyFailure applies the failure's, stall's or collapse's own flags.
func (r *runFlags) applyFailure(c *gcstress.Config) error {
	if r.sub == gcstress.SetStall {
		if d := r.stallDuration; d < 0 || (d > 0 && d < gcstress.MinDuration) || d > math.MaxInt64/2 {
			return usageErr("duration", fmt.Errorf("%v: use 0 (no cap) or at least %v", d, gcstress.MinDuration))
		}
		c.FailDuration = 2 * r.stallDuration // the stall runs for half the failure's cap
	}
	if r.sub == gcstress.SetCollapse {
		// The library checks the failure's cap only when the failure or
		// the stall runs; the collapse runs it too.
		if d := c.FailDuration; d < 0 || (d > 0 && d < gcstress.MinDuration) {
			return usageErr("duration", fmt.Errorf("%v: use 0 (no cap) or at least %v", d, gcstress.MinDuration))
		}
		c.CollapseWarmup = c.Thresholds.Warmup
		if !r.thresholds["warmup"] {
			c.CollapseWarmup = gcstress.DefaultCollapseWarmup
		}
		if c.CollapseWindow == 0 {
			c.Window = 0 // no windows at all, as the flag says
		}
	}
	if r.sub == gcstress.SetFailure {
		var err error
		if c.FailRate, err = gcstress.ParseRate(r.failRate); err != nil {
			return usageErr("rate", err)
		}
	}
	return nil
}

// applyMemPct sets the failure's GOMEMLIMIT from its percentage of the RSS
// cap (failure and stall): after -quick, whose own GOMEMLIMIT stands
// unless -memlimit or -rss-cap was given.
func (r *runFlags) applyMemPct(c *gcstress.Config) error {
	if r.memPct == 0 || (r.quick && !r.set["memlimit"] && !r.set["rss-cap"]) {
		return nil
	}
	if r.memPct < 1 || r.memPct > 100 {
		return usageErr("memlimit", fmt.Errorf("%d%%: use 1%% to 100%% of -rss-cap", r.memPct))
	}
	c.FailMemLimit = c.FailRSSCap / 100 * r.memPct
	return nil
}

// defineCapacity defines the capacity search's own flags.
func (r *runFlags) defineCapacity(fs *flag.FlagSet, c *gcstress.Config) {
	fs.StringVar(&r.values, "values", "100", "value sizes searched, comma-separated (10, 100B, 1KB)")
	fs.DurationVar(&c.SLO, "slo", c.SLO, "a step's p99 latency from intended start (after warm-up) must stay within this (0: no latency limit)")
	fs.DurationVar(&c.StepDuration, "step-duration", c.StepDuration, "length of each step (at least the warm-up plus 1s)")
	fs.Var(sizeFlag{&c.MemLimit}, "memlimit", "GOMEMLIMIT of each step's child (off: none)")
	fs.Var(sizeFlag{&c.FlushBW}, "flush-bw", "flush bandwidth per second (0: unlimited)")
	fs.Var(sizeFlag{&c.RSSCap}, "rss-cap", "hard resident-memory cap per child (off: none; default 8GB, at most 75% of the machine's or its cgroup's memory)")
	fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: on)")
	fs.IntVar(&c.LatencyEvery, "latency-every", c.LatencyEvery, "time one Put in N for the latency histogram (0: off)")
	fs.DurationVar(&c.Window, "window", c.Window, "sampling window")
}

// applyCapacity parses the searched value sizes.
func (r *runFlags) applyCapacity(c *gcstress.Config) error {
	v, err := parseSizes(r.values)
	if err != nil {
		return usageErr("values", err)
	}
	c.CapacityValues = v
	return nil
}

// deprecatedFlags are the old flat flags, each with what replaces it.
var deprecatedFlags = map[string]string{
	"fail-memlimit": "gcstress failure -memlimit", "fail-flush-bw": "gcstress failure -flush-bw",
	"fail-value": "gcstress failure -value", "fail-keys": "gcstress failure -keys",
	"fail-duration": "gcstress failure -duration", "fail-rss-cap": "gcstress failure -rss-cap",
	"fail-rate": "gcstress failure -rate", "collapse-memlimit": "gcstress collapse -memlimit",
	"collapse-rss-cap": "gcstress collapse -rss-cap", "scenario": "gcstress NAME",
	"flight": "-profile flight", "slo": "gcstress capacity -slo", "step-duration": "gcstress capacity -step-duration",
	"container": "gcstress frontier -container", "memlimit-frac": "gcstress frontier -memlimit-frac",
	"headroom": "gcstress frontier -headroom", "point-duration": "gcstress frontier -point-duration",
	"confirm-duration": "gcstress frontier -confirm-duration", "settle": "gcstress frontier -settle",
}

// defineDeprecated defines the old flat flags on the all path.
func (r *runFlags) defineDeprecated(fs *flag.FlagSet, c *gcstress.Config) {
	fs.Var(sizeFlag{&c.FailMemLimit}, "fail-memlimit", "GOMEMLIMIT of the failure scenario")
	fs.Var(sizeFlag{&c.FailFlushBW}, "fail-flush-bw", "flush bandwidth per second of the failure scenario")
	fs.Var(sizeFlag{&c.FailValue}, "fail-value", "value size of the failure scenario")
	fs.Var(countFlag{&c.FailKeys}, "fail-keys", "keys of the failure scenario")
	fs.DurationVar(&c.FailDuration, "fail-duration", c.FailDuration, "cap on the failure scenario's run time")
	fs.Var(sizeFlag{&c.FailRSSCap}, "fail-rss-cap", "hard resident-memory cap of the failure scenario")
	fs.StringVar(&r.failRate, "fail-rate", c.FailRate.String(), "open-loop rate of the failure scenario")
	fs.Var(sizeFlag{&c.CollapseMemLimit}, "collapse-memlimit", "GOMEMLIMIT of the collapse scenario")
	fs.Var(sizeFlag{&c.CollapseRSSCap}, "collapse-rss-cap", "hard resident-memory cap of the collapse scenario")
	fs.StringVar(&r.sets, "scenario", gcstress.SetAll, "scenario sets (comma-separated)")
	fs.BoolVar(&r.flight, "flight", false, "keep a flight recorder")
	fs.DurationVar(&c.SLO, "slo", c.SLO, "capacity search: p99 latency limit")
	fs.DurationVar(&c.StepDuration, "step-duration", c.StepDuration, "capacity search: length of each step")
	r.defineFrontierOwn(fs, c)
	for _, k := range thresholdKeys {
		fs.Var(thresholdFlag{&c.Thresholds, k}, k, "the classifier's "+k+" threshold")
	}
	for k, v := range deprecatedFlags {
		r.deprecated[k] = v
	}
}

// noteDeprecated prints one line naming the deprecated flags given and
// what the old rules of the command line did, with what replaces each.
func (r *runFlags) noteDeprecated(stderr io.Writer) {
	var used []string
	for name := range r.set {
		if repl, ok := r.deprecated[name]; ok {
			used = append(used, "-"+name+" (use "+repl+")")
		}
	}
	sort.Strings(used)
	used = append(used, r.legacyNote...)
	if len(used) > 0 {
		fmt.Fprintf(stderr, "gcstress: deprecated, accepted until the release after v0.2.0: %s\n", strings.Join(used, "; "))
	}
}

// legacyKeys keeps the old rules of -keys and -duration on the legacy
// path, and says so: -keys without -duration ran without a run-time cap,
// and -duration without -keys ran duration first.
func (r *runFlags) legacyKeys(c *gcstress.Config) {
	switch {
	case len(c.Keys) > 0 && !r.set["duration"]:
		c.Duration = 0
		r.legacyNote = append(r.legacyNote, "-keys without -duration runs without a run-time cap (use gcstress all -keys N -duration 0)")
	case len(c.Keys) == 0 && r.set["duration"] && c.Duration > 0:
		c.Keys = []int64{results.UnboundedKeys}
		r.legacyNote = append(r.legacyNote, "-duration without -keys runs duration first (use gcstress all -keys unbounded -duration D)")
	}
}

// reachEverySet makes the sizes, caps and sampling given to `all` every
// scenario set's (the deprecated per-set flags, when given, still win).
func (r *runFlags) reachEverySet(c *gcstress.Config) {
	if r.set["memlimit"] {
		if !r.set["fail-memlimit"] {
			c.FailMemLimit = c.MemLimit
		}
		if !r.set["collapse-memlimit"] {
			c.CollapseMemLimit = c.MemLimit
		}
	} else if r.set["fail-rss-cap"] && !r.set["fail-memlimit"] {
		c.FailMemLimit = c.FailRSSCap / 10 * 9 // the deprecated flag's old rule
	}
	if r.set["flush-bw"] && !r.set["fail-flush-bw"] {
		c.FailFlushBW = c.FlushBW
	}
	if r.set["latency-every"] {
		c.StallLatencyEvery = c.LatencyEvery
	}
	if r.set["window"] {
		c.CollapseWindow = c.Window
	}
	if r.set["warmup"] || r.thresholds["warmup"] {
		c.CollapseWarmup = c.Thresholds.Warmup
	}
}

// subNames maps the library's flag names (the old flat ones, which
// Config.Validate and -quick use) to each subcommand's.
var subNames = map[string]map[string]string{
	gcstress.SetFailure: {"fail-memlimit": "memlimit", "fail-flush-bw": "flush-bw", "fail-value": "value",
		"fail-keys": "keys", "fail-duration": "duration", "fail-rss-cap": "rss-cap", "fail-rate": "rate"},
	gcstress.SetCollapse: {"collapse-memlimit": "memlimit", "collapse-rss-cap": "rss-cap", "fail-value": "value",
		"fail-keys": "keys", "fail-duration": "duration", "fail-flush-bw": "flush-bw"},
}

func init() {
	subNames[gcstress.SetStall] = subNames[gcstress.SetFailure]
	for _, k := range thresholdKeys {
		deprecatedFlags[k] = "-thresholds " + k + "=V"
	}
}

// oldSet is the flags given, by the library's (old) names.
func (r *runFlags) oldSet() map[string]bool {
	out := make(map[string]bool, len(r.set))
	inv := map[string]string{}
	for old, cur := range subNames[r.sub] {
		inv[cur] = old
	}
	for name := range r.set {
		if old, ok := inv[name]; ok {
			name = old
		}
		out[name] = true
	}
	return out
}

// rename words a usage error of the library in the subcommand's flags:
// "-fail-memlimit" is failure's "-memlimit", "-degraded-gc" is
// "-thresholds degraded-gc".
func (r *runFlags) rename(err error) error {
	if err == nil || !errors.Is(err, gcstress.ErrUsage) {
		return err
	}
	prefix := gcstress.ErrUsage.Error() + ": -"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return err
	}
	name, rest, ok := strings.Cut(msg[len(prefix):], ":")
	if !ok {
		return err
	}
	switch cur, isSub := subNames[r.sub][name]; {
	case isSub:
		name = cur
	case isThresholdKey(name) && !r.set[name]:
		name = "thresholds " + name
	default:
		return err
	}
	return fmt.Errorf("%w: -%s:%s", gcstress.ErrUsage, name, rest)
}

// thresholdKeys are -thresholds' keys, named after the old per-threshold
// flags.
var thresholdKeys = []string{"healthy-gc", "healthy-assist", "degraded-gc", "degraded-assist",
	"fail-live", "fail-throughput", "fail-windows", "share", "warmup"}

func isThresholdKey(k string) bool {
	for _, t := range thresholdKeys {
		if t == k {
			return true
		}
	}
	return false
}

// thresholdsFlag is -thresholds: key=value pairs, comma-separated; given
// records each key set.
type thresholdsFlag struct {
	t     *results.Thresholds
	given map[string]bool
}

func (f thresholdsFlag) String() string {
	if f.t == nil {
		return ""
	}
	var kv []string
	for _, k := range thresholdKeys {
		kv = append(kv, k+"="+thresholdFlag{f.t, k}.String())
	}
	return strings.Join(kv, ",")
}

func (f thresholdsFlag) Set(s string) error {
	for _, kv := range flagval.List(s) {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok {
			return fmt.Errorf("%q: want key=value", kv)
		}
		if !isThresholdKey(k) {
			return fmt.Errorf("unknown key %q (known: %s)", k, strings.Join(thresholdKeys, ","))
		}
		if err := (thresholdFlag{f.t, k}).Set(v); err != nil {
			return fmt.Errorf("%s=%s: %w", k, v, err)
		}
		f.given[k] = true
	}
	return nil
}

// thresholdFlag is one threshold: -thresholds' key k, and the deprecated
// flag of that name.
type thresholdFlag struct {
	t *results.Thresholds
	k string
}

// field is k's float field, nil for fail-windows and warmup.
func (f thresholdFlag) field() *float64 {
	return map[string]*float64{"healthy-gc": &f.t.HealthyGC, "healthy-assist": &f.t.HealthyAssist,
		"degraded-gc": &f.t.DegradedGC, "degraded-assist": &f.t.DegradedAssist, "fail-live": &f.t.FailLive,
		"fail-throughput": &f.t.FailThroughput, "share": &f.t.Share}[f.k]
}

func (f thresholdFlag) String() string {
	switch {
	case f.t == nil:
		return ""
	case f.k == "fail-windows":
		return strconv.Itoa(f.t.FailWindows)
	case f.k == "warmup":
		return f.t.Warmup.String()
	}
	return strconv.FormatFloat(*f.field(), 'g', -1, 64)
}

func (f thresholdFlag) Set(v string) error {
	v = strings.TrimSpace(v)
	switch f.k {
	case "fail-windows":
		n, err := strconv.Atoi(v)
		if err != nil {
			return errors.New("want an integer such as 3")
		}
		f.t.FailWindows = n
	case "warmup":
		d, err := time.ParseDuration(v)
		if err != nil {
			return errors.New("want a duration such as 5s")
		}
		f.t.Warmup = d
	default:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("want a number such as 25")
		}
		*f.field() = x
	}
	return nil
}

// limitFlag is the failure's -memlimit: a size (off: none), or a
// percentage of its RSS cap (pct, applied after parsing; 0: a size).
type limitFlag struct {
	v   *int64
	pct *int64
}

func (l limitFlag) String() string {
	if l.pct != nil && *l.pct > 0 {
		return strconv.FormatInt(*l.pct, 10) + "%"
	}
	return sizeFlag{l.v}.String()
}

func (l limitFlag) Set(s string) error {
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 1 || n > 100 {
			return fmt.Errorf("%q: want a percentage from 1%% to 100%%", s)
		}
		*l.pct = n
		return nil
	}
	*l.pct = 0
	return sizeFlag{l.v}.Set(s)
}

// applyGOGC parses -gogc, one value for every child.
func (r *runFlags) applyGOGC(c *gcstress.Config) error {
	if r.frontier.gogc == "" {
		return nil
	}
	g, err := parseOneGOGC(r.frontier.gogc)
	if err != nil {
		return err
	}
	c.GOGC = g
	return nil
}

// parseOneGOGC parses a -gogc of one value (off or -1: off).
func parseOneGOGC(s string) (int, error) {
	switch t := strings.TrimSpace(s); t {
	case "off", "-1":
		return -1, nil
	default:
		n, err := strconv.Atoi(t)
		if err != nil {
			return 0, usageErr("gogc", fmt.Errorf("%q: want one GOGC such as 100 (or off)", s))
		}
		return n, nil
	}
}
