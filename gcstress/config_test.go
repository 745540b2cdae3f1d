package gcstress

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// TestDefaultConfigExpands: the embedded default is valid and expands to
// the 4 x 3 matrix, one failure scenario per kind and the heap stall.
func TestDefaultConfigExpands(t *testing.T) {
	c := DefaultConfig()
	c.Out = t.TempDir()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	groups := map[string]int{}
	for _, s := range Expand(c) {
		groups[s.Group]++
		if !strings.HasPrefix(s.Dir, c.Out) {
			t.Fatalf("scenario dir %q", s.Dir)
		}
		switch {
		case s.Group == SetFailure && (s.Backpressure || s.MemLimit != DefaultFailMemLimit || s.FlushBW != DefaultFailFlushBW):
			t.Fatalf("failure scenario %+v", s)
		case s.Group == SetStall && (!s.Backpressure || s.Kind != "heap" || s.LatencyEvery != 1 || s.Duration != DefaultFailDuration/2):
			t.Fatalf("stall scenario %+v", s)
		case s.Group == SetMatrix && (!s.Backpressure || s.MemLimit != 0 || s.LatencyEvery != DefaultLatencyEvery):
			t.Fatalf("matrix scenario %+v", s)
		}
	}
	if groups[SetMatrix] != 12 || groups[SetFailure] != 3 || groups[SetStall] != 1 {
		t.Fatalf("default matrix: %v", groups)
	}
}

// TestValidateNamesTheFlag: a Config built by hand is checked like a
// command line: each bad field is ErrUsage naming its flag.
func TestValidateNamesTheFlag(t *testing.T) {
	for _, tc := range []struct {
		flag string
		set  func(*Config)
	}{
		{"-kinds", func(c *Config) { c.Kinds = []string{"nosuch"} }},
		{"-kinds", func(c *Config) { c.Kinds = nil }},
		{"-values", func(c *Config) { c.Values = []int64{0} }},
		{"-memstore", func(c *Config) { c.Memstore = 1 }},
		{"-path", func(c *Config) { c.Path = "carrier-pigeon" }},
		{"-format", func(c *Config) { c.Format = "xml" }},
		{"-latency-every", func(c *Config) { c.StallLatencyEvery = -1 }},
		{"-scenario", func(c *Config) { c.Sets = []string{"nope"} }},
		{"-fail-duration", func(c *Config) { c.FailDuration = time.Nanosecond }},
		{"-count", func(c *Config) { c.Count = MaxCount + 1 }},
		{"-count", func(c *Config) { c.Count = -1 }},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%s: %v, want ErrUsage naming it", tc.flag, err)
		}
	}
}

// TestCollapseSamplesFiner: the default collapse scenarios have the finer
// window and their own warm-up, in their thresholds too (the child samples
// with them); the other groups keep the run's. A Config whose Window is 0
// has no collapse windows either, and zero collapse settings mean the
// run's.
func TestCollapseSamplesFiner(t *testing.T) {
	c := DefaultConfig()
	c.Out = t.TempDir()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range Expand(c) {
		switch {
		case s.Group == SetCollapse:
			n++
			if s.Window != DefaultCollapseWindow || s.Warmup != DefaultCollapseWarmup || s.Thresholds.Warmup != DefaultCollapseWarmup || s.MinRun != results.MinRunFor(s.Thresholds, s.Window) || s.MinRun == 0 {
				t.Fatalf("%s: window %v warm-up %v thresholds' %v min run %v", s.Name, s.Window, s.Warmup, s.Thresholds.Warmup, s.MinRun)
			}
			if !strings.Contains(s.Describe(), "window 200ms, warm-up 1s") {
				t.Fatalf("%s: %s", s.Name, s.Describe())
			}
		case s.Window != c.Window || s.Warmup != 0 || s.Thresholds.Warmup != c.Thresholds.Warmup:
			t.Fatalf("%s: window %v warm-up %v thresholds' %v", s.Name, s.Window, s.Warmup, s.Thresholds.Warmup)
		}
	}
	if n != 3 {
		t.Fatalf("%d collapse scenarios", n)
	}
	c.Sets = []string{SetCollapse}
	c.Window, c.CollapseWarmup, c.Thresholds.Warmup = 0, 0, 3*time.Second
	for _, s := range Expand(c) {
		if s.Window != 0 || s.Warmup != 3*time.Second || s.Thresholds.Warmup != 3*time.Second {
			t.Fatalf("window off, run's warm-up: %s: window %v warm-up %v", s.Name, s.Window, s.Warmup)
		}
	}
}

// TestCapsFollowTheHost: the default RSS cap is at most 75% of the host's
// memory, and a hard cap of a set that runs above the host's memory (or
// its cgroup's limit) is a usage error naming the flag and the figure.
func TestCapsFollowTheHost(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		h    HostMemory
		want int64
	}{{HostMemory{}, DefaultRSSCap}, {HostMemory{Bytes: 24 * gib}, 8 * gib}, {HostMemory{Bytes: 4 * gib, Cgroup: true}, 3 * gib}} {
		if got := DefaultRSSCapFor(c.h); got != c.want {
			t.Errorf("DefaultRSSCapFor(%+v) = %d, want %d", c.h, got, c.want)
		}
	}
	host := HostMemory{Bytes: 24*gib - 512<<20}
	for _, c := range []struct {
		set  func(*Config)
		flag string
		fig  string
	}{
		{func(c *Config) { c.Sets, c.Frontier.Container = []string{SetFrontier}, 1<<40 }, "-container: 1024GB exceeds", "this machine's 23.5 GiB of memory"},
		{func(c *Config) { c.RSSCap = 32 * gib }, "-rss-cap: 32GB exceeds", "this machine's 23.5 GiB"},
		{func(c *Config) { c.Sets, c.FailRSSCap = []string{SetFailure}, 30*gib }, "-fail-rss-cap", "23.5 GiB"},
		{func(c *Config) { c.Sets, c.CollapseRSSCap = []string{SetCollapse}, 30*gib }, "-collapse-rss-cap", "23.5 GiB"},
		{func(c *Config) { c.Host = HostMemory{Bytes: 4 * gib, Cgroup: true} }, "-rss-cap", "the cgroup's memory limit of 4.0 GiB"},
	} {
		cfg := DefaultConfig()
		cfg.Host, cfg.RSSCap = host, DefaultRSSCapFor(host)
		cfg.Out = t.TempDir()
		c.set(&cfg)
		err := cfg.Validate()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.flag) || !strings.Contains(err.Error(), c.fig) {
			t.Errorf("%s: %v, want a usage error naming %q and %q", c.flag, err, c.flag, c.fig)
		}
	}
	// A cap of a set that does not run is not checked.
	cfg := DefaultConfig()
	cfg.Host, cfg.RSSCap, cfg.Sets, cfg.CollapseRSSCap = host, DefaultRSSCapFor(host), []string{SetMatrix}, 30*gib
	if err := cfg.Validate(); err != nil {
		t.Errorf("collapse cap without the collapse set: %v", err)
	}
	if m := MachineMemory(); ProcSupported && (m.Bytes <= 0 || DefaultConfig().RSSCap > max(m.Bytes*3/4, 1<<20)) {
		t.Errorf("machine %+v: default RSS cap %d", m, DefaultConfig().RSSCap)
	}
}
