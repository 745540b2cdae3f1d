package child

import (
	"bytes"
	"context"
	"runtime/trace"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// nopEngine allocates nothing: what a test of the harness's own
// allocations drives.
type nopEngine struct{}

func (nopEngine) Put(key, value []byte) error { return nil }
func (nopEngine) Stats() EngineStats          { return EngineStats{} }
func (nopEngine) Close() error                { return nil }

// TestHarnessAllocatesNothingPerPut: the child's write path around the
// engine's Put (key generation, timing every Put, open-loop pacing off and
// on, and a trace region every regionEvery Puts while tracing) allocates
// nothing, so an engine's allocation figures are its own.
func TestHarnessAllocatesNothingPerPut(t *testing.T) {
	spec := results.Scenario{Name: "nop", Kind: "nop", Value: 100, Keys: 1 << 40, Writers: 1, LatencyEvery: 1}
	out := proto.NewStream(&bytes.Buffer{}, spec.Name, 0)
	c := newChild(context.Background(), spec, nopEngine{}, out)
	defer c.cancel()
	key, value := make([]byte, workload.KeySize), workload.Value(int(spec.Value))
	rec := c.recs[0]
	var base int64
	run := func() {
		if err := c.putRange(0, key, value, base, base+regionEvery, rec); err != nil {
			t.Fatal(err)
		}
		base += regionEvery
	}
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Fatalf("%v allocations per %d Puts, want 0", n, regionEvery)
	}
	// Traced as every measured phase is, regions on (a profile running),
	// the timed Puts kept for the assist attribution.
	c.tr, c.regions = StartOpTrace(spec, time.Now(), false), true
	if !trace.IsEnabled() {
		_, why := c.tr.End(&results.Sample{}, nil)
		t.Skipf("trace: %s", why)
	}
	n := testing.AllocsPerRun(100, run)
	c.tr.Stop()
	if n != 0 {
		t.Fatalf("tracing: %v allocations per %d Puts, want 0", n, regionEvery)
	}
	// Open loop: the schedule is far in the past, so no Put sleeps.
	c.interval, c.t0 = 1, time.Now().Add(-time.Hour)
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Fatalf("open loop: %v allocations per %d Puts, want 0", n, regionEvery)
	}
}
