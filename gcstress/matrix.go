package gcstress

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/writegc/writegc/internal/workload"
)

// The embedded default (what `make stress` runs with no flags). Sized for a
// 2-core machine: the whole default run takes under 10 minutes, and every
// matrix scenario writes enough keys to flush its memtables many times.
const (
	DefaultDuration = 20 * time.Second // cap per matrix scenario
	DefaultMemstore = 64 << 20
	DefaultRegions  = 2
	DefaultWriters  = 2
	DefaultPath     = "server"
	DefaultRSSCap   = 8 << 30

	// The failure scenario: a flush slower than ingest, backpressure off,
	// a GOMEMLIMIT, and a hard RSS cap.
	DefaultFailMemLimit = 1 << 30
	DefaultFailFlushBW  = 8 << 20
	DefaultFailValue    = 10
	DefaultFailKeys     = 60_000_000
	DefaultFailDuration = 40 * time.Second
	DefaultFailRSSCap   = 3 << 30
)

// defaultKeys is keys per value size for the matrix when -keys is not given:
// about 1-2 GiB of key+value bytes each, which is many 64 MiB memtables.
func defaultKeys(value int64) int64 {
	switch {
	case value <= 16:
		return 40_000_000
	case value <= 128:
		return 12_000_000
	case value <= 2048:
		return 1_500_000
	default:
		return 160_000
	}
}

// Expand turns a Config into the scenarios to run, in order: the matrix
// (value size major, kind minor, as the addendum's table reads), then the
// failure scenario per kind, then the stall scenario (the failure's
// settings with backpressure on, for the first kind).
func Expand(c Config) []Scenario {
	base := Scenario{
		Memstore: c.Memstore, Regions: c.Regions, Flushers: c.Regions, GOGC: c.GOGC,
		Path: c.Path, Transport: c.Transport, Writers: c.Writers, Window: c.Window,
		LatencyEvery: c.LatencyEvery, Profile: c.ProfileSpec, Seed: c.Seed, Thresholds: c.Thresholds,
		MaxPendingFlushes: 2 * c.Regions,
	}
	if c.Path == "server" {
		base.Transport = ""
	}
	var out []Scenario
	if c.wants("matrix") {
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
				s.Group, s.Kind, s.Value, s.Keys, s.Duration = "matrix", k, v, keys, c.Duration
				s.Name = fmt.Sprintf("%s/%s", k, workload.FormatSize(v))
				s.MemLimit, s.FlushBW, s.RSSCap = c.MemLimit, c.FlushBW, c.RSSCap
				s.Backpressure = c.Backpressure != "off"
				out = append(out, s)
			}
		}
	}
	fail := base
	fail.Value, fail.Keys, fail.Duration = c.FailValue, c.FailKeys, c.FailDuration
	fail.MemLimit, fail.FlushBW, fail.RSSCap = c.FailMemLimit, c.FailFlushBW, c.FailRSSCap
	if c.IsSet("memlimit") {
		fail.MemLimit = c.MemLimit
	}
	if c.IsSet("flush-bw") {
		fail.FlushBW = c.FlushBW
	}
	if c.wants("failure") {
		for _, k := range c.Kinds {
			s := fail
			s.Group, s.Kind, s.Name = "failure", k, "failure/"+k
			s.Backpressure = c.Backpressure == "on"
			out = append(out, s)
		}
	}
	if c.wants("stall") {
		k := c.Kinds[0]
		if slices.Contains(c.Kinds, "heap") {
			k = "heap"
		}
		s := fail
		s.Group, s.Kind, s.Name = "stall", k, "stall/"+k
		s.Backpressure = c.Backpressure != "off"
		out = append(out, s)
	}
	for i := range out {
		out[i].Dir = filepath.Join(c.Out, out[i].dirName())
	}
	return out
}
