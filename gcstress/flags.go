package gcstress

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

// Formats accepted by -format.
var Formats = []string{"table", "ycsb", "pe", "json"}

// ScenarioSets accepted by -scenario (comma-separated). "all" is
// matrix+failure+stall.
var ScenarioSets = []string{"all", "matrix", "failure", "stall"}

// Config is a parsed command line: what to run and how to report it. It is
// a plain value, built by ParseFlags (or by hand in tests) and read-only
// afterwards. Sizes are bytes; zero means "the scenario's default" where the
// field says so.
type Config struct {
	Kinds  []string // memtable kinds (-kinds)
	Values []int64  // value sizes in bytes (-values)
	// Keys per value size (-keys): one entry for every value, or empty for
	// the matrix defaults.
	Keys     []int64
	Duration time.Duration // cap per scenario; 0 = none (-duration)
	Memstore int64         // flush threshold of one memtable (-memstore)
	Regions  int           // regions (memtables written in parallel) per server
	MemLimit int64         // GOMEMLIMIT of matrix scenarios; 0 = off (-memlimit)
	GOGC     int           // GOGC of every child (-gogc)
	Path     string        // write path (-path): "server" or a writepath path
	// Transport between client and server when Path is not "server".
	Transport    string
	Writers      int           // writer goroutines (-writers)
	Profile      explain.Kinds // profiles to capture per scenario (-profile)
	ProfileSpec  string        // -profile as typed
	Flight       bool          // keep a flight recorder (-flight; implied by -profile)
	Out          string        // results folder (-out)
	ReplaceOut   bool          // remove an earlier run's files from Out first (-replace-out)
	Format       string        // table|ycsb|pe|json (-format)
	Window       time.Duration // sampling window; 0 = no windows (-window)
	Backpressure string        // "" (scenario default), "on", "off"
	FlushBW      int64         // flush bandwidth bytes/s of matrix scenarios; 0 unlimited
	RSSCap       int64         // hard resident-memory cap per child (-rss-cap)
	LatencyEvery int           // time one Put in N (-latency-every); 0 = off
	Sets         []string      // scenario sets (-scenario)
	Quick        bool          // tiny scenarios, for tests (-quick)
	Seed         uint64

	// Failure scenario settings (-fail-*): GOMEMLIMIT, flush bandwidth,
	// value size and keys of the concurrent-mode-style failure.
	FailMemLimit int64
	FailFlushBW  int64
	FailValue    int64
	FailKeys     int64
	FailDuration time.Duration
	FailRSSCap   int64

	Thresholds Thresholds

	// Command is the command line as typed, for the reports.
	Command string
	set     map[string]bool
}

// IsSet reports whether the named flag was given on the command line.
func (c *Config) IsSet(name string) bool { return c.set[name] }

// usageErr wraps ErrUsage with a message naming the flag.
func usageErr(flagName, format string, args ...any) error {
	return fmt.Errorf("%w: -%s: %s", ErrUsage, flagName, fmt.Sprintf(format, args...))
}

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

// DefaultConfig is the embedded default: what `make stress` runs with no
// flags (see matrix.go for the scenarios it expands to).
func DefaultConfig() Config {
	return Config{
		Kinds:        []string{"heap", "arena", "offheap"},
		Values:       []int64{10, 100, 1 << 10, 10 << 10},
		Duration:     DefaultDuration,
		Memstore:     DefaultMemstore,
		Regions:      DefaultRegions,
		GOGC:         100,
		Path:         DefaultPath,
		Transport:    "inproc",
		Writers:      DefaultWriters,
		Format:       "table",
		Window:       time.Second,
		RSSCap:       DefaultRSSCap,
		LatencyEvery: DefaultLatencyEvery,
		Sets:         []string{"all"},
		Seed:         1,
		FailMemLimit: DefaultFailMemLimit,
		FailFlushBW:  DefaultFailFlushBW,
		FailValue:    DefaultFailValue,
		FailKeys:     DefaultFailKeys,
		FailDuration: DefaultFailDuration,
		FailRSSCap:   DefaultFailRSSCap,
		Thresholds:   DefaultThresholds(),
	}
}

// ParseFlags parses args (without the program name) into a Config and
// validates it. Errors wrap ErrUsage and name the flag; flag.ErrHelp is
// returned as is for -h. ParseFlags does no work beyond checking that -out
// can be created (it creates the folder) and is empty or -replace-out is
// given; without -out it picks a new folder.
func ParseFlags(args []string, stderr io.Writer) (Config, error) {
	c := DefaultConfig()
	fs := flag.NewFlagSet("gcstress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kinds := fs.String("kinds", strings.Join(c.Kinds, ","), "memtable kinds, comma-separated (known: "+strings.Join(memtable.Kinds(), ",")+")")
	values := fs.String("values", "10,100,1KB,10KB", "value sizes, comma-separated (10, 100B, 1KB, 10KB; K = 1024)")
	keys := fs.String("keys", "", "keys written per scenario, one for all values or one per value (10M, 1e9); default: the matrix's")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "cap on each scenario's run time (0: none, else at least 1ms; default none when -keys is given)")
	fs.Var(sizeFlag{&c.Memstore}, "memstore", "flush threshold of one memtable (HBase memstore size)")
	fs.IntVar(&c.Regions, "regions", c.Regions, "regions (memtables filled in parallel) per server")
	fs.Var(sizeFlag{&c.MemLimit}, "memlimit", "GOMEMLIMIT of each scenario's child (off: none; the failure scenario uses -fail-memlimit)")
	fs.IntVar(&c.GOGC, "gogc", c.GOGC, "GOGC of each child (-1: off)")
	fs.StringVar(&c.Path, "path", c.Path, "write path: server (Puts straight into the region server) or a client path: "+strings.Join(clientPaths(), ","))
	fs.StringVar(&c.Transport, "transport", c.Transport, "transport for client paths: "+strings.Join(transports(), ","))
	fs.IntVar(&c.Writers, "writers", c.Writers, "writer goroutines per scenario")
	fs.StringVar(&c.ProfileSpec, "profile", "", "profiles per scenario: cpu,heap,allocs,fgprof,trace,mutex,block or all (also keeps a flight recorder)")
	fs.BoolVar(&c.Flight, "flight", false, "keep a runtime/trace flight recorder in each child and write its last 10 s to <scenario>/flight.out on the first degraded or failed window (implied by -profile)")
	fs.StringVar(&c.Out, "out", "", "results folder, refused if it exists and is not empty (default: a new results/gcstress/<UTC time>)")
	fs.BoolVar(&c.ReplaceOut, "replace-out", false, "reuse a non-empty -out: first remove the files an earlier run wrote there (samples.jsonl, summary.json, report.md, charts, scenario profile folders); other files are left alone")
	fs.StringVar(&c.Format, "format", c.Format, "terminal report: "+strings.Join(Formats, "|"))
	fs.DurationVar(&c.Window, "window", c.Window, "sampling window (0: no windows, only the end record)")
	fs.StringVar(&c.Backpressure, "backpressure", "", "on|off: block writers while full memtables wait (default: on, off for the failure scenario)")
	fs.Var(sizeFlag{&c.FlushBW}, "flush-bw", "flush bandwidth per second (0: unlimited; the failure scenario uses -fail-flush-bw)")
	fs.Var(sizeFlag{&c.RSSCap}, "rss-cap", "hard resident-memory cap per child, watched by child and parent (off: none)")
	fs.IntVar(&c.LatencyEvery, "latency-every", c.LatencyEvery, "time one Put in N for the latency histogram (0: off; 1: every Put, which costs 4-6% of arena throughput here)")
	sets := fs.String("scenario", "all", "scenario sets: "+strings.Join(ScenarioSets, ",")+" (comma-separated)")
	fs.BoolVar(&c.Quick, "quick", false, "tiny scenarios (for tests and smoke runs)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "key seed")
	fs.Var(sizeFlag{&c.FailMemLimit}, "fail-memlimit", "GOMEMLIMIT of the failure scenario")
	fs.Var(sizeFlag{&c.FailFlushBW}, "fail-flush-bw", "flush bandwidth per second of the failure scenario")
	fs.Var(sizeFlag{&c.FailValue}, "fail-value", "value size of the failure scenario")
	fs.Var(countFlag{&c.FailKeys}, "fail-keys", "keys of the failure scenario")
	fs.DurationVar(&c.FailDuration, "fail-duration", c.FailDuration, "cap on the failure scenario's run time (0: none, else at least 2ms: the stall scenario gets half)")
	fs.Var(sizeFlag{&c.FailRSSCap}, "fail-rss-cap", "hard resident-memory cap of the failure scenario")
	c.Thresholds.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	c.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	c.Command = "gcstress"
	if len(args) > 0 {
		c.Command += " " + strings.Join(args, " ")
	}

	c.Kinds = splitList(*kinds)
	var err error
	if c.Values, err = parseSizes(*values); err != nil {
		return c, usageErr("values", "%v", err)
	}
	if *keys != "" {
		for _, f := range splitList(*keys) {
			n, err := workload.ParseCount(f)
			if err != nil {
				return c, usageErr("keys", "%v", err)
			}
			c.Keys = append(c.Keys, n)
		}
		if !c.set["duration"] {
			c.Duration = 0
		}
	}
	c.Sets = splitList(*sets)
	if c.Profile, err = explain.ParseKinds(c.ProfileSpec); err != nil {
		return c, usageErr("profile", "%v", err)
	}
	if c.Quick {
		c.applyQuick()
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	if c.Out == "" {
		c.Out = newOutDir(filepath.Join("results", "gcstress"), time.Now())
	}
	if err := checkWritable(c.Out); err != nil {
		return c, usageErr("out", "%v", err)
	}
	if err := checkOutEmpty(c.Out, c.ReplaceOut); err != nil {
		return c, err
	}
	return c, nil
}

// applyQuick shrinks every scenario for tests: small memtables, short runs,
// quarter-second windows. Flags given explicitly still win.
func (c *Config) applyQuick() {
	if !c.set["memstore"] {
		c.Memstore = 4 << 20
	}
	if !c.set["duration"] {
		c.Duration = 3 * time.Second
	}
	if !c.set["window"] {
		c.Window = 250 * time.Millisecond
	}
	if len(c.Keys) == 0 {
		c.Keys = []int64{200_000}
	}
	if !c.set["fail-memlimit"] {
		c.FailMemLimit = 64 << 20
	}
	if !c.set["fail-rss-cap"] {
		c.FailRSSCap = 256 << 20
	}
	if !c.set["fail-keys"] {
		c.FailKeys = 2_000_000
	}
	if !c.set["fail-duration"] {
		c.FailDuration = 4 * time.Second
	}
	if !c.set["fail-flush-bw"] {
		c.FailFlushBW = 2 << 20
	}
	if !c.set["rss-cap"] {
		c.RSSCap = 1 << 30
	}
}

// Validate checks a Config; errors wrap ErrUsage and name the flag.
func (c *Config) Validate() error {
	if err := c.validateMatrix(); err != nil {
		return err
	}
	if err := c.validateMemory(); err != nil {
		return err
	}
	if c.GOGC < -1 || c.GOGC == 0 {
		return usageErr("gogc", "%d: use a positive percentage or -1 for off", c.GOGC)
	}
	if c.Path != "server" && !slices.Contains(clientPaths(), c.Path) {
		return usageErr("path", "unknown path %q (known: server,%s)", c.Path, strings.Join(clientPaths(), ","))
	}
	if c.Path != "server" && !slices.Contains(transports(), c.Transport) {
		return usageErr("transport", "unknown transport %q (known: %s)", c.Transport, strings.Join(transports(), ","))
	}
	if c.Writers < 1 || c.Writers > 4096 {
		return usageErr("writers", "%d: must be 1 to 4096", c.Writers)
	}
	if !slices.Contains(Formats, c.Format) {
		return usageErr("format", "unknown format %q (known: %s)", c.Format, strings.Join(Formats, "|"))
	}
	if c.Window < 0 || (c.Window > 0 && c.Window < 10*time.Millisecond) {
		return usageErr("window", "%v: use 0 (off) or at least 10ms", c.Window)
	}
	switch c.Backpressure {
	case "", "on", "off":
	default:
		return usageErr("backpressure", "%q: use on or off", c.Backpressure)
	}
	if c.FlushBW < 0 {
		return usageErr("flush-bw", "negative bandwidth")
	}
	if c.LatencyEvery < 0 {
		return usageErr("latency-every", "%d: use 0 (off) or N >= 1", c.LatencyEvery)
	}
	if len(c.Sets) == 0 {
		return usageErr("scenario", "no scenario set (known: %s)", strings.Join(ScenarioSets, ","))
	}
	for _, s := range c.Sets {
		if !slices.Contains(ScenarioSets, s) {
			return usageErr("scenario", "unknown scenario set %q (known: %s)", s, strings.Join(ScenarioSets, ","))
		}
	}
	return c.Thresholds.validate()
}

// validateMatrix checks what the matrix is made of: kinds, value sizes,
// key counts and the run-time cap.
func (c *Config) validateMatrix() error {
	if len(c.Kinds) == 0 {
		return usageErr("kinds", "no kind given (known: %s)", strings.Join(memtable.Kinds(), ","))
	}
	known := memtable.Kinds()
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
	for i, v := range c.Values {
		if slices.ContainsFunc(c.Values[:i], func(w int64) bool { return workload.FormatSize(w) == workload.FormatSize(v) }) {
			return usageErr("values", "value size %s given twice: each size runs once", workload.FormatSize(v))
		}
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
	return nil
}

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
	if c.wants("failure") || c.wants("stall") {
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
	return slices.Contains(c.Sets, s) || slices.Contains(c.Sets, "all")
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range splitList(s) {
		n, err := workload.ParseSize(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// checkWritable creates dir (and parents) and checks a file can be created
// in it.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".writable-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
