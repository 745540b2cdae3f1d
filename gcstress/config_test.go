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
