package health

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"
)

// TestShareClass: each band gives its class and cause, the GC share first
// and the degraded thresholds before the healthy ones; CauseNone exactly
// when healthy.
func TestShareClass(t *testing.T) {
	th := DefaultThresholds()
	for _, c := range []struct {
		gc, assist float64
		class      Class
		cause      Cause
	}{
		{0, 0, Healthy, CauseNone}, {9.9, 1.9, Healthy, CauseNone},
		{10, 0, Elevated, CauseGCCPU}, {0, 2, Elevated, CauseAssist}, {12, 3, Elevated, CauseGCCPU},
		{25, 0, Degraded, CauseGCCPU}, {0, 5, Degraded, CauseAssist}, {12, 6, Degraded, CauseAssist}, {30, 6, Degraded, CauseGCCPU},
	} {
		cls, cause := ShareClass(c.gc, c.assist, th)
		if cls != c.class || cause != c.cause {
			t.Errorf("ShareClass(%v, %v) = %s %q, want %s %q", c.gc, c.assist, cls, cause, c.class, c.cause)
		}
		if (cls == Healthy) != (cause == CauseNone) {
			t.Errorf("ShareClass(%v, %v): class %s with cause %q", c.gc, c.assist, cls, cause)
		}
	}
}

// TestRank: the scale orders healthy to failed; the non-verdicts and an
// unknown class are off it.
func TestRank(t *testing.T) {
	for i, c := range []Class{Healthy, Elevated, Degraded, Failed} {
		if c.Rank() != i {
			t.Errorf("%s.Rank() = %d, want %d", c, c.Rank(), i)
		}
	}
	for _, c := range []Class{Interrupted, Inconclusive, "unknown"} {
		if c.Rank() != -1 {
			t.Errorf("%s.Rank() = %d, want -1", c, c.Rank())
		}
	}
}

// TestWindowRules: the heap-goal, limiter and spiral rules at their edges.
func TestWindowRules(t *testing.T) {
	if OverGoal(10, 0) || OverGoal(10, 10) || !OverGoal(11, 10) {
		t.Error("OverGoal: a zero goal is unknown, the goal itself is not over it, one byte past is")
	}
	if LimiterEngaged(5, 5, 9) || !LimiterEngaged(5, 6, 9) || !LimiterEngaged(5, 5, 5) || LimiterEngaged(0, 0, 0) {
		t.Error("LimiterEngaged: advanced or naming the cycle in progress, else not")
	}
	const limit = 100
	for _, c := range []struct {
		live, limit uint64
		gc          float64
		limiter     bool
		want        bool
	}{{95, limit, 50, false, true}, {94, limit, 99, true, false}, {95, limit, 49, false, false}, {95, limit, 0, true, true}, {1 << 40, 0, 99, true, false}} {
		if got := InSpiral(c.live, c.limit, c.gc, c.limiter, SpiralHeapPct, SpiralGCPct); got != c.want {
			t.Errorf("InSpiral(%d of %d, GC %v%%, limiter %v) = %v", c.live, c.limit, c.gc, c.limiter, got)
		}
	}
}

// TestValidate: the defaults pass; each bad field is refused with a
// *ThresholdError naming its flag.
func TestValidate(t *testing.T) {
	if err := DefaultThresholds().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag string
		set  func(*Thresholds)
	}{
		{"healthy-gc", func(t *Thresholds) { t.HealthyGC = 101 }}, {"share", func(t *Thresholds) { t.Share = math.NaN() }},
		{"fail-live", func(t *Thresholds) { t.FailLive = -1 }}, {"healthy-gc", func(t *Thresholds) { t.HealthyGC = 30 }},
		{"healthy-assist", func(t *Thresholds) { t.HealthyAssist = 6 }}, {"fail-windows", func(t *Thresholds) { t.FailWindows = 0 }},
		{"warmup", func(t *Thresholds) { t.Warmup = -time.Second }},
	} {
		th := DefaultThresholds()
		c.set(&th)
		var te *ThresholdError
		if err := th.Validate(); !errors.As(err, &te) || te.Flag != c.flag {
			t.Errorf("%+v: %v, want a ThresholdError for -%s", th, err, c.flag)
		}
	}
}

// TestThresholdsJSON: snake_case keys out; current and CamelCase keys in,
// a current key winning over a former one; null leaves the value.
func TestThresholdsJSON(t *testing.T) {
	b, err := json.Marshal(DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	var got Thresholds
	if err := json.Unmarshal(b, &got); err != nil || got != DefaultThresholds() {
		t.Fatalf("round trip %s: %v %+v", b, err, got)
	}
	old := `{"HealthyGC":7,"DegradedGC":30,"degraded_gc":31,"Warmup":1000000000}`
	got = Thresholds{}
	if err := json.Unmarshal([]byte(old), &got); err != nil || got.HealthyGC != 7 || got.DegradedGC != 31 || got.Warmup != time.Second {
		t.Fatalf("old keys: %v %+v", err, got)
	}
	if err := json.Unmarshal([]byte(`null`), &got); err != nil || got.HealthyGC != 7 {
		t.Fatalf("null: %v %+v", err, got)
	}
	if err := json.Unmarshal([]byte(`{"share":"x"}`), &got); err == nil {
		t.Fatal("a bad value decoded")
	}
}
