package gcstress

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestOpenLoopPacing runs a child on a schedule of 5K Puts/s for 2 s (slow
// enough for a race-instrumented child on a busy machine): it
// must take the schedule's time (not run flat out), never beat its rate,
// and report latency from intended start at least the service
// time in every window and at the end.
func TestOpenLoopPacing(t *testing.T) {
	s := tinyScenario(t, "arena/100B@open", "arena", 10_000)
	s.Rate = 5_000
	res, err := (&Runner{}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	e := res.End
	if e == nil || e.Reason != results.StopKeys {
		t.Fatalf("end %+v stderr %s", e, res.Stderr)
	}
	want := float64(s.Keys) / s.Rate
	if e.T < 0.95*want {
		t.Errorf("ran %.2f s, the schedule takes %.2f s: not paced", e.T, want)
	}
	// Never faster than the schedule; slower only as far as a busy machine
	// and the race detector make it (the 10% figure is checked on the real
	// binary in results/gcstress/openloop).
	if math.Abs(e.TargetMBps-s.TargetMBps()) > 1e-9 || e.MBps > 1.05*e.TargetMBps || e.MBps < 0.5*e.TargetMBps {
		t.Errorf("achieved %.3f MB/s, target %.3f (end says %.3f)", e.MBps, s.TargetMBps(), e.TargetMBps)
	}
	if e.ILatP50 <= 0 || e.ILatP99 < e.LatP99 || e.ILatMax < e.LatMax || e.ILatP999 < e.ILatP99 {
		t.Errorf("end: ilat p50 %d p99 %d p99.9 %d max %d; lat p99 %d max %d", e.ILatP50, e.ILatP99, e.ILatP999, e.ILatMax, e.LatP99, e.LatMax)
	}
	for _, w := range res.Windows {
		if w.LatN > 0 && (w.ILatP99 < w.LatP99 || w.TargetMBps == 0) {
			t.Errorf("window at %.2f s: ilat p99 %d < lat p99 %d or no target (%v)", w.T, w.ILatP99, w.LatP99, w.TargetMBps)
		}
	}
	if e.SteadyMBps <= 0 {
		t.Errorf("no steady-state rate: %+v", e)
	}
}

// TestClosedLoopHasNoIntendedLatency: without a rate, no ilat_* fields.
func TestClosedLoopHasNoIntendedLatency(t *testing.T) {
	res, err := (&Runner{}).Run(context.Background(), tinyScenario(t, "arena/100B", "arena", 5_000))
	if err != nil {
		t.Fatal(err)
	}
	if e := res.End; e == nil || e.ILatP99 != 0 || e.TargetMBps != 0 || e.LatP99 == 0 {
		t.Fatalf("closed loop end %+v", e)
	}
}

// TestWriteOnlyPreload: a write-only scenario with Preload writes those
// records closed loop first, reported apart (end.Preload), then its Keys
// keys on the open-loop schedule timed from the measured phase's start:
// the run takes the schedule's time, not that plus the preload's slots.
func TestWriteOnlyPreload(t *testing.T) {
	s := tinyScenario(t, "heap/100B@preload", "heap", 10_000)
	s.Rate, s.Preload = 5_000, 50_000
	res, err := (&Runner{}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	e := res.End
	if e == nil || e.Reason != results.StopKeys || e.Keys != s.Keys {
		t.Fatalf("end %+v stderr %s", e, res.Stderr)
	}
	if e.Preload == nil || e.Preload.Records != s.Preload || e.Preload.Seconds <= 0 {
		t.Fatalf("preload %+v, want %d records", e.Preload, s.Preload)
	}
	want := float64(s.Keys) / s.Rate // 2 s; the preload's keys would be 10 s of slots more
	if e.T < 0.95*want || e.T > 3*want {
		t.Errorf("ran %.2f s, the measured schedule takes %.2f s", e.T, want)
	}
	if !strings.Contains(s.Describe(), "50K records preloaded closed loop first") {
		t.Errorf("describe: %s", s.Describe())
	}
}
