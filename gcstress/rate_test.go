package gcstress

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Rate
	}{
		{"", Rate{}},
		{"0", Rate{}},
		{"20MB", Rate{20, RateMBps}},
		{"20MB/s", Rate{20, RateMBps}},
		{"20mb/s", Rate{20, RateMBps}},
		{"1.5GB/s", Rate{1500, RateMBps}},
		{"500KB", Rate{0.5, RateMBps}},
		{"50000ops", Rate{50000, RatePuts}},
		{"50Kops/s", Rate{50000, RatePuts}},
		{"2Mops", Rate{2e6, RatePuts}},
	} {
		got, err := ParseRate(c.in)
		if err != nil || got.Unit != c.want.Unit || math.Abs(got.PerSec-c.want.PerSec) > 1e-9 {
			t.Errorf("ParseRate(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if c.want.Unit != 0 {
			back, err := ParseRate(got.String())
			if err != nil || back != got {
				t.Errorf("ParseRate(%q.String() = %q) = %+v, %v", c.in, got.String(), back, err)
			}
		}
	}
	for _, bad := range []string{"20", "fast", "-5MB", "NaNMB", "InfMB", "1e9GB", "0ops", "2e9ops", "MB", "ops", "5TB/s"} {
		if r, err := ParseRate(bad); !errors.Is(err, ErrRate) {
			t.Errorf("ParseRate(%q) = %+v, %v; want ErrRate", bad, r, err)
		}
	}
}

func TestRatePuts(t *testing.T) {
	// 100 B values + 16 B keys: 20 MB/s is 20e6/116 Puts/s.
	if got, want := (Rate{20, RateMBps}).Puts(100), 20e6/116; math.Abs(got-want) > 1e-6 {
		t.Errorf("Puts = %v, want %v", got, want)
	}
	if got := (Rate{1000, RatePuts}).Puts(100); got != 1000 {
		t.Errorf("Puts = %v", got)
	}
	if got := (Rate{}).Puts(100); got != 0 {
		t.Errorf("zero Rate Puts = %v", got)
	}
	s := Scenario{Value: 100, Rate: 20e6 / 116}
	if got := s.TargetMBps(); math.Abs(got-20) > 1e-9 {
		t.Errorf("TargetMBps = %v", got)
	}
}

// TestConfigValidatesRates: a Rate built by hand is checked like a parsed one.
func TestConfigValidatesRates(t *testing.T) {
	for _, r := range []Rate{{PerSec: -1, Unit: RateMBps}, {PerSec: math.NaN(), Unit: RatePuts}, {PerSec: 5}, {PerSec: 1e12, Unit: RatePuts}} {
		c := DefaultConfig()
		c.Rate = r
		if err := c.Validate(); !errors.Is(err, ErrUsage) {
			t.Errorf("Rate %+v: %v, want ErrUsage", r, err)
		}
	}
	for _, slo := range []time.Duration{-time.Millisecond, 2 * time.Hour} {
		c := DefaultConfig()
		c.SLO = slo
		if err := c.Validate(); !errors.Is(err, ErrUsage) {
			t.Errorf("SLO %v: %v, want ErrUsage", slo, err)
		}
	}
	c := DefaultConfig()
	c.FailRate = Rate{PerSec: 0, Unit: RateMBps}
	if err := c.Validate(); !errors.Is(err, ErrUsage) {
		t.Errorf("FailRate of 0 MB/s: %v, want ErrUsage", err)
	}
}
