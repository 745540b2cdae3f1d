package view

import (
	"bytes"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestCounterPastThePlan: scenarios past the planned count (capacity
// steps) are numbered without a total, never "[21/21]".
func TestCounterPastThePlan(t *testing.T) {
	var b bytes.Buffer
	pr := New(&b, 2)
	for i := 0; i < 4; i++ {
		pr.Start(i, results.Scenario{Name: "s", Kind: "heap"})
	}
	out := b.String()
	for _, want := range []string{"[1/2] s", "[2/2] s", "[step 3] s", "[step 4] s"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[3/3]") || strings.Contains(out, "[4/4]") {
		t.Errorf("a total raised to the step's number:\n%s", out)
	}
}

// TestDoneWording: a failed scenario's line names the failure once
// ("failed at 65% (RSS cap): ...", not "... failed: ..."); an interrupted
// one says interrupted, never healthy; a capacity step that failed its
// latency limit says the step was unhealthy though its collector was
// healthy.
func TestDoneWording(t *testing.T) {
	failed := results.Result{Scenario: results.Scenario{Name: "failure/heap"}, Exit: results.Exit{RSSCap: true},
		Verdict: results.Health{Class: results.Failed, FailedAt: 0.65, Why: "resident memory passed the hard cap"}}
	interrupted := results.Result{Scenario: results.Scenario{Name: "failure/shardmap"}, Stopped: results.StopInterrupted,
		Last:    results.Sample{Progress: 0.23, T: 2, Bytes: 2e6},
		Verdict: results.Health{Class: results.Interrupted, Why: "interrupted at 23% (2.0 s) before its load ended"}}
	step := results.Result{Scenario: results.Scenario{Name: "capacity/heap/100B@12MB/s", Group: results.SetCapacity},
		End: &results.Sample{T: 6, Bytes: 72e6, Reason: results.StopDuration, Progress: 1}, Verdict: results.Health{Class: results.Healthy}}
	st := results.CapacityStep{Healthy: false, Limit: results.LimitLatency, Why: "p99 from intended start 80.0ms > 50ms"}
	var b bytes.Buffer
	pr := New(&b, 3)
	pr.Start(0, failed.Scenario)
	pr.Done(failed)
	pr.Start(1, interrupted.Scenario)
	pr.Done(interrupted)
	pr.Start(2, step.Scenario)
	pr.DoneStep(step, st)
	out := b.String()
	for _, want := range []string{"failed at 65% (RSS cap): resident memory passed the hard cap",
		"(interrupted at 23%) interrupted: interrupted at 23%", "step unhealthy (latency): p99 from intended start 80.0ms > 50ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, bad := range []string{"(RSS cap) failed", "healthy: p99", "interrupted at 23%) healthy"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q in:\n%s", bad, out)
		}
	}
}
