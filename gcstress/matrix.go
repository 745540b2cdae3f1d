package gcstress

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

// The embedded default (what `make stress` runs with no flags). Sized for a
// 2-core machine: the whole default run takes under 10 minutes, and every
// matrix scenario writes enough keys to flush its memtables many times.
const (
	DefaultDuration = 30 * time.Second // cap per matrix scenario
	DefaultMemstore = 16 << 20
	DefaultRegions  = 2
	DefaultWriters  = 2
	DefaultPath     = PathServer
	DefaultRSSCap   = 8 << 30 // at most DefaultRSSCapShare of the host's memory (DefaultRSSCapFor)
	// DefaultLatencyEvery: one Put in 16 is timed. Timing a Put (two clock
	// reads and an HdrHistogram record) costs 120-170 ns here against 2.5-4
	// µs per arena Put, 4-6% of throughput; one in 16 keeps it near 0.3%.
	// The timed Puts are every 16th key index, unrelated to their latency,
	// so percentiles are unbiased; the max is the max of the timed Puts.
	DefaultLatencyEvery = 16

	// The failure scenario models a container: a hard resident-memory cap
	// (the OOM killer's) with GOMEMLIMIT at 90% of it, as the Go GC guide
	// advises, a flush far slower than ingest (256 KB/s) and backpressure
	// off, so nearly every entry waits in memory. The sizes are chosen so
	// that the heap layout's 2M entries (about 127 B of Go heap each, plus
	// the heap goal's headroom) cannot fit under the cap while the arena
	// layouts' (about 70 B each, in noscan or off-heap chunks) can. Every
	// kind writes on the same open-loop schedule (DefaultFailRate), so
	// memory, not CPU speed, decides the verdict.
	DefaultFailRSSCap   = 208 << 20
	DefaultFailMemLimit = DefaultFailRSSCap / 10 * 9
	DefaultFailFlushBW  = 256 << 10
	DefaultFailValue    = 10
	DefaultFailKeys     = 2_000_000
	DefaultFailDuration = 60 * time.Second

	// The collapse scenario: the failure's load, closed loop, under a
	// GOMEMLIMIT of 192 MiB with a hard cap far above it (512 MiB).
	DefaultCollapseMemLimit = 192 << 20
	DefaultCollapseRSSCap   = 512 << 20
	// Its work is fixed (more keys would take arena to the limit too), and
	// arena and offheap finish it in under 3 s here, heap in about 8 s:
	// with the run's 1 s windows and 2 s warm-up a fast kind would leave
	// fewer than results.MinWindows windows. So the collapse group samples
	// finer unless -window or -warmup is given: 200 ms windows after a 1 s
	// warm-up leave 8 windows in a 2.6 s run and still 3 (4 with the tail
	// window) in a 1.5 s one, on a machine twice as fast.
	DefaultCollapseWindow = 200 * time.Millisecond
	DefaultCollapseWarmup = time.Second
)

// DefaultFailRate is the failure scenario's schedule: 2 MB/s of key+value
// bytes (about 77K Puts/s at 10 B), which the heap layout keeps up with
// until memory runs out even with the CPUs shared, so 2M keys take 26 s for
// every kind.
var DefaultFailRate = Rate{PerSec: 2, Unit: RateMBps}

// CollapseNote is results.CollapseNote.
const CollapseNote = results.CollapseNote

// defaultKeys is keys per value size for the matrix when -keys is not given:
// each is at least a dozen 16 MiB memtables for every kind (the heap kind
// charges about 100 B per 10 B entry), yet finishes within DefaultDuration
// on a 2-core machine shared with other builds (measured: 50-150K Puts/s
// at 10 B values there).
func defaultKeys(value int64) int64 {
	switch {
	case value <= 16:
		return 2_000_000
	case value <= 128:
		return 2_000_000
	case value <= 2048:
		return 2_500_000
	default:
		return 1_500_000
	}
}

// matrixScenarios is the matrix set: value size major, kind minor.
func matrixScenarios(c Config, base Scenario) []Scenario {
	var out []Scenario
	for i, v := range c.Values {
		keys := defaultKeys(v)
		switch len(c.Keys) {
		case 1:
			keys = c.Keys[0]
		case len(c.Values):
			keys = c.Keys[i]
		}
		for _, k := range c.Kinds {
			s := base
			s.Group, s.Kind, s.Value, s.Keys, s.Duration = SetMatrix, k, v, keys, c.Duration
			s.Name = fmt.Sprintf("%s/%s", k, workload.FormatSize(v))
			s.MemLimit, s.FlushBW, s.RSSCap = c.MemLimit, c.FlushBW, c.RSSCap
			s.Backpressure = c.Backpressure != "off"
			s.Rate = c.Rate.Puts(v)
			applyMix(c, &s)
			if s.Keys < results.UnboundedKeys && !c.NoMinRun {
				s.MinRun = results.MinRunFor(s.EffectiveThresholds(c.Thresholds), s.Window)
				if c.Duration > 0 {
					s.MinRun = min(s.MinRun, c.Duration)
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// collapseSampling gives a collapse scenario its window and warm-up
// (Config.CollapseWindow, Config.CollapseWarmup; 0: the run's), the
// warm-up as its own (Scenario.Warmup) and in the thresholds its child
// samples, profiles and records with, and the matrix's least run time
// (Scenario.MinRun, unless Config.NoMinRun): a kind that finishes the fixed
// work before the warm-up and results.MinWindows windows passed writes on
// until they have, so it gets a verdict (arena wrote the 2M keys of 10 B in
// 1.2 s on a quiet 2-core machine, 2 windows after the warm-up, and was
// inconclusive). A kind that needs longer, as heap under the limit does,
// is unchanged.
func collapseSampling(c Config, s *Scenario) {
	if c.Window > 0 && c.CollapseWindow > 0 {
		s.Window = c.CollapseWindow
	}
	if c.CollapseWarmup > 0 {
		s.Warmup = c.CollapseWarmup
	} else {
		s.Warmup = c.Thresholds.Warmup
	}
	s.Thresholds = s.EffectiveThresholds(s.Thresholds)
	if !c.NoMinRun {
		s.MinRun = results.MinRunFor(s.Thresholds, s.Window)
	}
}

// Expand turns a Config into the scenarios to run, in order: the matrix
// (value size major, kind minor, as the addendum's table reads), then the
// failure scenario per kind, then the stall scenario (the failure's
// settings with backpressure on, for heap when it runs, else the first
// kind). With c.Count N > 1 that list is one round, and the N rounds
// follow each other (round major), each scenario's Repeat its round. Each
// scenario's Dir is under c.Out, a folder of its own in every round.
func Expand(c Config) []Scenario {
	round := expandRound(c)
	out := round
	if n := c.rounds(); n > 1 {
		out = make([]Scenario, 0, n*len(round))
		for r := 1; r <= n; r++ {
			for _, s := range round {
				s.Repeat = r
				out = append(out, s)
			}
		}
	}
	for i := range out {
		out[i].Dir = filepath.Join(c.Out, out[i].DirName())
	}
	return out
}

// expandRound is one round of Expand, without the folders.
func expandRound(c Config) []Scenario {
	base := Scenario{
		Memstore: c.Memstore, Regions: c.Regions, Flushers: c.Regions, GOGC: c.GOGC,
		Path: c.Path, Transport: c.Transport, Writers: c.Writers, Window: c.Window, StallTimeout: c.StallTimeout,
		LatencyEvery: c.LatencyEvery, Profile: c.Profile.String(), Flight: c.Flight || c.Profile != 0, Seed: c.Seed, Thresholds: c.Thresholds, NoTrace: c.NoTrace,
		MaxPendingFlushes: 2, // per region, writepath's default
	}
	if c.Path == PathServer {
		base.Transport = ""
	}
	var out []Scenario
	if c.wants(SetMatrix) {
		out = matrixScenarios(c, base)
	}
	fail := base
	fail.Value, fail.Keys, fail.Duration = c.FailValue, c.FailKeys, c.FailDuration
	fail.MemLimit, fail.FlushBW, fail.RSSCap = c.FailMemLimit, c.FailFlushBW, c.FailRSSCap
	for _, set := range []string{SetFailure, SetCollapse} {
		if !c.wants(set) {
			continue
		}
		for _, k := range c.Kinds {
			s := fail
			s.Group, s.Kind, s.Name = set, k, set+"/"+k
			s.Backpressure = c.Backpressure == "on"
			if set == SetFailure {
				s.Rate = c.FailRate.Puts(s.Value)
			} else {
				s.MemLimit, s.RSSCap = c.CollapseMemLimit, c.CollapseRSSCap
				collapseSampling(c, &s)
			}
			out = append(out, s)
		}
	}
	if c.wants(SetStall) {
		k := c.Kinds[0]
		if slices.Contains(c.Kinds, memtable.KindHeap) {
			k = memtable.KindHeap
		}
		s := fail
		s.Group, s.Kind, s.Name = SetStall, k, SetStall+"/"+k
		s.Backpressure = c.Backpressure != "off"
		// Writers block as soon as one full memtable per region waits, so
		// the memory held stays well under the GOMEMLIMIT.
		s.MaxPendingFlushes = 1
		// The stall is a latency tail of rare, long blocks: by default
		// every Put is timed, so that no block is missed by sampling.
		s.LatencyEvery = c.StallLatencyEvery
		// Blocked writers take long to notice the end; half the failure's
		// cap shows the stall and keeps the default run short.
		if s.Duration > 0 {
			s.Duration /= 2
		}
		out = append(out, s)
	}
	return perBuildEnv(c.BuildEnvs, out)
}
