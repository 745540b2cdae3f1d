package gcstress

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// thirdParty is results/third-party: its run.sh and its frontier's
// committed summary.json, the measured truth the estimate is held to.
const thirdParty = "../results/third-party"

// thirdPartyFrontier is the Config of run.sh's frontier part: frontier
// -kinds fastcache,otter,shardmap -values 100 -container 512MiB -rate
// 20MB, every other flag at its default.
func thirdPartyFrontier(t *testing.T) Config {
	t.Helper()
	sh, err := os.ReadFile(filepath.Join(thirdParty, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// The flags below are run.sh's: a change there must change them here.
	for _, want := range []string{"CACHES=fastcache,otter,shardmap\n", "RATE=${RATE:-20MB}\n",
		`frontier) gcstress_run "$bin" "$R" frontier frontier -kinds "$CACHES" -values 100 -container 512MiB -rate "$RATE" ;;`} {
		if !strings.Contains(string(sh), want) {
			t.Fatalf("run.sh's frontier part changed: no %q", want)
		}
	}
	c := DefaultConfig()
	c.Sets, c.Kinds = []string{SetFrontier}, []string{"fastcache", "otter", "shardmap"}
	c.Values, c.CapacityValues, c.Frontier.Container = []int64{100}, []int64{100}, 512<<20
	if c.Rate, err = ParseRate("20MB"); err != nil {
		t.Fatal(err)
	}
	return c
}

// measuredFrontier is the third-party frontier's summary.json, checked to
// be the run thirdPartyFrontier plans.
func measuredFrontier(t *testing.T, c Config) results.Summary {
	t.Helper()
	got, err := results.ReadSummary(filepath.Join(thirdParty, "frontier"))
	if err != nil {
		t.Fatal(err)
	}
	sum := *got
	fr, f := sum.FrontierRun, c.Frontier
	if fr == nil || fr.Container != f.Container || fr.PointDuration != f.PointDuration || fr.ConfirmFor != f.ConfirmDuration ||
		fr.Settle != f.Settle || fr.Adaptive != f.Adaptive || fr.RateMBps != frontierRateMBps(c) || fr.Elapsed <= 0 {
		t.Fatalf("summary.json is not run.sh's frontier: %+v", fr)
	}
	return sum
}

// TestThirdPartyFrontierEstimate: the estimate printed before run.sh's
// frontier over three third-party caches is within 25% of what the run
// took, and the run lies in its range. The truth is the summary's: each
// run's settle phase and load (the points' settle_s and run_s, the
// confirmations' end records), each with a child's start
// (EstimateChildStart: the child's wall time beside its settle and load,
// which its wall_s holds), and the frontier's elapsed time.
func TestThirdPartyFrontierEstimate(t *testing.T) {
	c := thirdPartyFrontier(t)
	sum := measuredFrontier(t, c)
	e := frontierPlan(c, frontierRateMBps(c), nil).Estimate()
	if st := PlanRun(c).Stages[0]; st.Set != SetFrontier || st.Estimate != e.Expected || !strings.Contains(st.Text, e.Range(EstimateText)) {
		t.Fatalf("the plan's stage is not the estimate: %+v, want %v", st, e.Expected)
	}
	var truth, wall time.Duration
	runs := 0
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for _, p := range sum.Frontier {
		truth += sec(p.SettleSeconds+p.RunSeconds) + EstimateChildStart
		runs++
	}
	for _, r := range sum.Results {
		wall += sec(r.Wall)
		if !strings.Contains(r.Scenario.Name, "/confirm/") {
			continue
		}
		if r.End == nil || r.End.Settle == nil {
			t.Fatalf("%s: no end record with its settle phase", r.Scenario.Name)
		}
		truth += sec(r.End.Settle.Seconds+r.End.T) + EstimateChildStart
		runs++
	}
	if runs != len(sum.Results) || runs == 0 {
		t.Fatalf("%d runs counted of %d", runs, len(sum.Results))
	}
	// The counted truth stands for the wall time: each child's start and
	// exit beside its settle and load is within a child's start on average.
	if d := math.Abs((truth - wall).Seconds()); d > float64(runs)*EstimateChildStart.Seconds() {
		t.Errorf("settle + load + start %v against the runs' wall time %v", truth, wall)
	}
	for _, real := range []time.Duration{truth, sum.FrontierRun.Elapsed} {
		if off := (e.Expected - real).Seconds() / real.Seconds(); math.Abs(off) > 0.25 {
			t.Errorf("estimate %v (%v to %v), the run %v: %+.0f%%, want within 25%%", e.Expected, e.Low, e.High, real, 100*off)
		}
		if real < e.Low || real > e.High {
			t.Errorf("the run %v outside the estimate's range %v to %v", real, e.Low, e.High)
		}
	}
	t.Logf("estimate %s; the run %v (settle + load + start %v)", e.Range(EstimateText), sum.FrontierRun.Elapsed, truth.Round(time.Second))
}
