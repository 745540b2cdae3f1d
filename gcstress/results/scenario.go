package results

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/writegc/writegc/internal/workload"
)

// KeySize is the length in bytes of every key a scenario's writers Put:
// 16 random bytes, the same in every scenario and kind. A Put's bytes, in
// every MB/s and per-GB figure, are KeySize+Scenario.Value.
const KeySize = workload.KeySize

// Scenario is one child process's work: a memtable kind x value size x key
// count x write path x memory settings. It travels to the child as JSON in
// ChildEnv and is echoed in the child's start line. A Scenario is a plain
// value, read-only once built.
type Scenario struct {
	Name  string `json:"name"`  // unique in a run's round, e.g. "heap/10B", "failure/arena"
	Group string `json:"group"` // SetMatrix, SetFailure or SetStall
	// Repeat is the round of a run with -count N > 1 that this scenario
	// belongs to, 1 to N (Name stays the plain name in every round);
	// 0 when the run has one round (json: omitted).
	Repeat int `json:"repeat,omitempty"`

	Kind     string        `json:"kind"`     // a registered engine or memtable kind (Kinds)
	Value    int64         `json:"value"`    // value bytes (keys are KeySize bytes)
	Keys     int64         `json:"keys"`     // keys to write (through flushes)
	Duration time.Duration `json:"duration"` // cap on run time; 0 = none
	// MinRun is the least run time: a scenario that wrote its Keys sooner
	// goes on writing further keys (Keys is then exceeded) until MinRun
	// has passed, so that a fast engine still leaves MinWindows windows
	// after the warm-up for its verdict. 0: none. Matrix scenarios get
	// MinRunFor(their EffectiveThresholds, Window), capped by Duration.
	MinRun time.Duration `json:"min_run,omitempty"`
	// MinCycles, when above 0, ends a run by its GC cycles rather than at
	// Duration (then its cap): the load stops once MinRun has passed and
	// its windows after the warm-up completed MinCycles GC cycles, or
	// once the cap could not bring even FrontierMinCycles (RunDone). The
	// frontier's points and confirmations run so. 0: none.
	MinCycles int `json:"min_cycles,omitempty"`
	// StallTimeout is the parent's watchdog for a scenario without a
	// run-time cap: a child that streams no progress (no record, or no key
	// written) for this long, or for three windows if that is longer, is
	// stopped and its scenario fails as stalled. 0, a Duration or no
	// windows (Window 0): no watchdog.
	StallTimeout time.Duration `json:"stall_timeout,omitempty"`

	Memstore          int64 `json:"memstore"`
	Regions           int   `json:"regions"`
	Flushers          int   `json:"flushers"`
	FlushBW           int64 `json:"flush_bw"` // bytes/s; 0 unlimited
	Backpressure      bool  `json:"backpressure"`
	MaxPendingFlushes int   `json:"max_pending_flushes"`

	GOGC     int   `json:"gogc"`
	MemLimit int64 `json:"memlimit"` // GOMEMLIMIT; 0 = off
	RSSCap   int64 `json:"rss_cap"`  // hard resident-memory cap; 0 = none

	Path      string `json:"path"` // PathServer or a writepath client path
	Transport string `json:"transport,omitempty"`
	Writers   int    `json:"writers"`
	// Rate is the open-loop schedule in Puts per second for the whole
	// scenario (split across writers by a shared schedule: key i is due
	// at i/Rate seconds after the start); 0 is closed loop.
	Rate float64 `json:"rate,omitempty"`

	Window time.Duration `json:"window"` // 0: no windows
	// Warmup, when above 0, is this scenario's own warm-up: it replaces
	// Thresholds.Warmup, and any thresholds the scenario is classified
	// with, wherever the warm-up applies to it (EffectiveThresholds). 0:
	// the thresholds' warm-up. The collapse group sets it (with a finer
	// Window), so that a fast kind's fixed amount of work still leaves
	// MinWindows windows after a warm-up in proportion to its run.
	Warmup       time.Duration `json:"warmup,omitempty"`
	LatencyEvery int           `json:"latency_every"` // time one Put in N; 0 off
	Profile      string        `json:"profile,omitempty"`
	Flight       bool          `json:"flight,omitempty"` // flight recorder (also on with any Profile)
	Dir          string        `json:"dir,omitempty"`    // where profiles and flight.out go
	Seed         uint64        `json:"seed"`

	Thresholds Thresholds `json:"thresholds"` // for the flight recorder's trigger

	// Mixed workloads (-mix, -keydist, -zipf-theta, -preload, -read-trace):
	// Mix is a preset of package gcstress/internal/mix ("" and "w": the
	// write-only Put loop, Keys keys); with another mix, Keys and Rate
	// count operations of every type, Preload records are inserted first
	// (closed loop, reported apart), KeyDist and ZipfTheta pick the
	// records read, updated and scanned, and ReadTrace traces the
	// measured phase to tie each read to the collector's phases. The
	// write-only loop preloads too when Preload > 0 (a capacity step's
	// settle): keys 0..Preload-1 closed loop, for at most Duration, then
	// Keys keys from there.
	Mix       string  `json:"mix,omitempty"`
	KeyDist   string  `json:"keydist,omitempty"`
	ZipfTheta float64 `json:"zipf_theta,omitempty"`
	Preload   int64   `json:"preload,omitempty"`
	// Settle, when above 0, is the write-only loop's settle phase (the
	// frontier's): before the load's clock starts its writers Put closed
	// loop until the process's memory is steady (SettleSteady over one
	// reading per SettleTick of the live heap after a GC cycle plus the
	// engine's off-heap bytes), for at most Settle and SettleMaxFills
	// times RSSCap bytes; the load then writes on from there. The end
	// record's Settle says how it went. Preload is not used with it.
	Settle    time.Duration `json:"settle,omitempty"`
	ReadTrace bool          `json:"read_trace,omitempty"`
	// NoTrace runs the measured phase untraced (-trace=false): no MMU, no
	// mark-assist attribution, no read in mark (n/a, never zero).
	NoTrace bool `json:"no_trace,omitempty"`
	// BuildEnv is the name of the build environment (-build-envs) whose
	// binary ran this scenario (summary.json's scenario.env); "" when the
	// run has none: the running binary ran it.
	BuildEnv string `json:"env,omitempty"`
}

// Mixed says whether the scenario runs a mix other than the write-only w.
func (s Scenario) Mixed() bool { return s.Mix != "" && s.Mix != "w" }

// TargetMBps is the open-loop schedule in key+value MB/s (0 closed loop).
func (s Scenario) TargetMBps() float64 {
	return s.Rate * float64(int64(KeySize)+s.Value) / BytesPerMB
}

// Label is the scenario's short description for tables and bars.
func (s Scenario) Label() string {
	b := fmt.Sprintf("%s %s", s.Kind, workload.FormatSize(s.Value))
	if s.Group != SetMatrix {
		b = s.Group + " " + b
	}
	if s.BuildEnv != "" {
		b += " env=" + s.BuildEnv
	}
	return b
}

// RunLabel is Name for the reports' rows: with -count N > 1 it carries the
// round ("matrix/heap/100B #2"), so that a table's rows of one scenario
// stay apart; it is Name itself with one round.
func (s Scenario) RunLabel() string {
	if s.Repeat > 0 {
		return fmt.Sprintf("%s #%d", s.Name, s.Repeat)
	}
	return s.Name
}

// DirName is a file-system-safe form of Name, unique in the run: a
// repeat after the first (Repeat > 1) has the suffix -r<Repeat>.
func (s Scenario) DirName() string {
	d := strings.NewReplacer("/", "-", " ", "_").Replace(s.Name)
	if s.Repeat > 1 {
		d += fmt.Sprintf("-r%d", s.Repeat)
	}
	return d
}

// Env is the child's environment additions: GOGC and GOMEMLIMIT.
func (s Scenario) Env() []string {
	gogc := "off"
	if s.GOGC > 0 {
		gogc = fmt.Sprint(s.GOGC)
	}
	lim := "off"
	if s.MemLimit > 0 {
		lim = fmt.Sprintf("%dB", s.MemLimit)
	}
	return []string{"GOGC=" + gogc, "GOMEMLIMIT=" + lim}
}

// memText prints a memory size as FormatSize does when it is a whole number
// of KB, MB or GB, else in MiB with one decimal (a GOMEMLIMIT at 90% of a cap
// is rarely whole).
func memText(n int64) string {
	if n < 1<<20 || n%(1<<10) == 0 {
		return workload.FormatSize(n)
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
}

// EffectiveThresholds is th with the scenario's own warm-up (Warmup, when
// above 0) in place of th.Warmup: the thresholds the scenario is
// classified, sampled and profiled with.
func (s Scenario) EffectiveThresholds(th Thresholds) Thresholds {
	if s.Warmup > 0 {
		th.Warmup = s.Warmup
	}
	return th
}

// MinRunFor is the least run time that leaves MinWindows windows of length
// window after th's warm-up, plus half a window for the last tick's
// lateness; 0 when there are no windows. Pass a scenario's
// EffectiveThresholds.
func MinRunFor(th Thresholds, window time.Duration) time.Duration {
	if window <= 0 {
		return 0
	}
	return th.Warmup + MinWindows*window + window/2
}

// UnboundedKeys is the key count of a duration-first scenario: more keys
// than any run writes, so its run-time cap (Scenario.Duration) ends it.
const UnboundedKeys = math.MaxInt64 / 2

// DurationFirst says whether the scenario runs for its Duration with no
// key bound (Keys is UnboundedKeys): its progress is in time, the
// fraction of Duration elapsed.
func (s Scenario) DurationFirst() bool { return s.Keys >= UnboundedKeys && s.Duration > 0 }

// Describe is one line of settings for reports.
func (s Scenario) Describe() string {
	var b strings.Builder
	keys := workload.FormatCount(s.Keys) + " keys"
	if s.Keys >= UnboundedKeys {
		keys = "keys unbounded"
	}
	fmt.Fprintf(&b, "kind %s, value %s, %s, memstore %s x %d regions, %d writers, path %s",
		s.Kind, workload.FormatSize(s.Value), keys, workload.FormatSize(s.Memstore), s.Regions, s.Writers, s.Path)
	if s.Path != PathServer {
		fmt.Fprintf(&b, "/%s", s.Transport)
	}
	fmt.Fprintf(&b, ", GOGC %s", strings.TrimPrefix(s.Env()[0], "GOGC="))
	if s.MemLimit > 0 {
		fmt.Fprintf(&b, ", GOMEMLIMIT %s", memText(s.MemLimit))
	}
	if s.FlushBW > 0 {
		fmt.Fprintf(&b, ", flush %s/s", workload.FormatSize(s.FlushBW))
	}
	if s.Backpressure {
		fmt.Fprintf(&b, ", backpressure on (%d pending)", s.MaxPendingFlushes)
	} else {
		b.WriteString(", backpressure off")
	}
	if s.RSSCap > 0 {
		fmt.Fprintf(&b, ", RSS cap %s", workload.FormatSize(s.RSSCap))
	}
	if s.Duration > 0 {
		fmt.Fprintf(&b, ", cap %v", s.Duration)
	}
	if s.MinRun > 0 {
		fmt.Fprintf(&b, ", at least %v", s.MinRun)
	}
	if s.MinCycles > 0 {
		fmt.Fprintf(&b, " and until %d GC cycles after the warm-up", s.MinCycles)
	}
	if s.Warmup > 0 {
		// Its own sampling, unlike the run's other scenarios.
		fmt.Fprintf(&b, ", window %v, warm-up %v", s.Window, s.Warmup)
	}
	switch {
	case s.Rate > 0 && s.Mixed(): // a mix's rate counts its reads and writes
		fmt.Fprintf(&b, ", open loop at %.0f ops/s (reads and writes)", s.Rate)
	case s.Rate > 0:
		fmt.Fprintf(&b, ", open loop at %.3g MB/s (%.0f Puts/s)", s.TargetMBps(), s.Rate)
	}
	if s.Mixed() {
		fmt.Fprintf(&b, ", mix %s (keys %s, theta %g, %s records preloaded; rate and keys count operations)", s.Mix, s.KeyDist, s.ZipfTheta, workload.FormatCount(s.Preload))
	} else if s.Preload > 0 {
		fmt.Fprintf(&b, ", %s records preloaded closed loop first", workload.FormatCount(s.Preload))
	}
	if s.Settle > 0 && !s.Mixed() {
		fmt.Fprintf(&b, ", settling closed loop first until its memory is steady (at most %v)", s.Settle)
	}
	if s.BuildEnv != "" {
		fmt.Fprintf(&b, ", build environment %s", s.BuildEnv)
	}
	return b.String()
}
