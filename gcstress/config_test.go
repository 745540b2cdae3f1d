package gcstress

import (
	"errors"
	"strings"
	"testing"
	"time"
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
