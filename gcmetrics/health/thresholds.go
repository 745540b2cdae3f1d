package health

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Thresholds are the classifier's settings. Percentages are of busy CPU
// (total minus idle). The share fields (HealthyGC, HealthyAssist,
// DegradedGC, DegradedAssist) judge any window; the others judge a
// scenario, which has a throughput, a warm-up and windows to share out.
// JSON keys are snake_case; the CamelCase keys of older files still decode
// (UnmarshalJSON). A plain value.
type Thresholds struct {
	HealthyGC      float64       `json:"healthy_gc"`      // healthy: GC CPU below this (%)
	HealthyAssist  float64       `json:"healthy_assist"`  // ... and assists below this (%)
	DegradedGC     float64       `json:"degraded_gc"`     // degraded: GC CPU at or above this (%)
	DegradedAssist float64       `json:"degraded_assist"` // ... or assists at or above this (%)
	FailLive       float64       `json:"fail_live"`       // failed: live heap at or above this % of GOMEMLIMIT ...
	FailThroughput float64       `json:"fail_throughput"` // ... limiter engaged, MB/s below this % of the best window ...
	FailWindows    int           `json:"fail_windows"`    // ... for this many windows in a row
	Warmup         time.Duration `json:"warmup"`          // windows ending before this do not count toward the scenario's class (ns)
	Share          float64       `json:"share"`           // a scenario takes the worst class held by at least this % of its windows
}

// DefaultThresholds returns the default thresholds: healthy below 10% GC
// CPU and 2% assists, degraded from 25% GC CPU or 5% assists, failed at 90%
// of GOMEMLIMIT with throughput under 25% of the best window for 3 windows;
// a 2 s warm-up and a 25% share.
func DefaultThresholds() Thresholds {
	return Thresholds{HealthyGC: 10, HealthyAssist: 2, DegradedGC: 25, DegradedAssist: 5,
		FailLive: 90, FailThroughput: 25, FailWindows: 3, Warmup: 2 * time.Second, Share: 25}
}

// ThresholdError is a bad threshold, named as its flag spells it without
// the dash (healthy-gc, fail-windows, ...), so a command reports it as a
// usage error of that flag.
type ThresholdError struct {
	Flag string
	Msg  string
}

func (e *ThresholdError) Error() string { return "-" + e.Flag + ": " + e.Msg }

func thresholdErr(flagName, format string, args ...any) error {
	return &ThresholdError{Flag: flagName, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks the thresholds; an error is a *ThresholdError naming
// the bad field's flag.
func (t Thresholds) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"healthy-gc", t.HealthyGC}, {"healthy-assist", t.HealthyAssist}, {"degraded-gc", t.DegradedGC},
		{"degraded-assist", t.DegradedAssist}, {"fail-live", t.FailLive}, {"fail-throughput", t.FailThroughput}, {"share", t.Share}} {
		if f.v < 0 || f.v > 100 || math.IsNaN(f.v) {
			return thresholdErr(f.name, "%v: a percentage from 0 to 100", f.v)
		}
	}
	if t.HealthyGC > t.DegradedGC {
		return thresholdErr("healthy-gc", "%v is above -degraded-gc %v", t.HealthyGC, t.DegradedGC)
	}
	if t.HealthyAssist > t.DegradedAssist {
		return thresholdErr("healthy-assist", "%v is above -degraded-assist %v", t.HealthyAssist, t.DegradedAssist)
	}
	if t.FailWindows < 1 {
		return thresholdErr("fail-windows", "%d: at least 1", t.FailWindows)
	}
	if t.Warmup < 0 {
		return thresholdErr("warmup", "negative")
	}
	return nil
}

// String prints the thresholds as every report shows them.
func (t Thresholds) String() string {
	return fmt.Sprintf("healthy: GC CPU < %g%% and assist < %g%%; degraded: GC CPU >= %g%% or assist >= %g%% or heap above goal; "+
		"failed: live heap >= %g%% of GOMEMLIMIT with the limiter engaged and MB/s < %g%% of the best window for %d windows in a row, "+
		"or RSS above the hard cap, or the child died; a scenario takes the worst class held by at least %g%% of its windows after a %v warm-up, "+
		"and is at least degraded when its writers spent %g%% or more of their time after the warm-up blocked by backpressure",
		t.HealthyGC, t.HealthyAssist, t.DegradedGC, t.DegradedAssist, t.FailLive, t.FailThroughput, t.FailWindows, t.Share, t.Warmup, BlockedDegraded)
}

// thresholdsRenamed maps the CamelCase keys of files written before the
// snake_case rename to their current names.
var thresholdsRenamed = map[string]string{"HealthyGC": "healthy_gc", "HealthyAssist": "healthy_assist",
	"DegradedGC": "degraded_gc", "DegradedAssist": "degraded_assist", "FailLive": "fail_live",
	"FailThroughput": "fail_throughput", "FailWindows": "fail_windows", "Warmup": "warmup", "Share": "share"}

// UnmarshalJSON decodes Thresholds under their current or former
// (CamelCase) key names; a current key wins over a former one.
func (t *Thresholds) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil { // null
		return nil
	}
	for old, cur := range thresholdsRenamed {
		raw, ok := m[old]
		if !ok {
			continue
		}
		delete(m, old)
		if _, dup := m[cur]; !dup {
			m[cur] = raw
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	type plain Thresholds // without this method: no recursion
	return json.Unmarshal(b, (*plain)(t))
}
