package gcstress

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
	"github.com/writegc/writegc/memtable"
)

// smallFailure is the failure scenario scaled down (1M keys of 10 B at
// 8 MB/s, a 128 MiB cap with GOMEMLIMIT at 90%) so that it runs in a few
// seconds per kind. The heap layout needs about 175 MiB for these keys (at
// a 112 MiB cap it failed at 64%), the arena about 85 MiB; under -race
// beside heavy load (a load average of 15) the arena once touched a 112 MiB
// cap, so the cap leaves it 40 MiB. (offheap is left out at this scale: its fixed
// overhead of mapped chunks brings it within 10 MiB of the cap; the full
// size keeps it 40 MiB under.)
func smallFailure(t *testing.T) []Scenario {
	c := DefaultConfig()
	c.Kinds = []string{memtable.KindHeap, memtable.KindArena}
	c.Sets = []string{SetFailure}
	c.Memstore, c.FailKeys, c.FailRate = 4<<20, 1_000_000, Rate{PerSec: 8, Unit: RateMBps}
	c.FailRSSCap = 128 << 20
	c.FailMemLimit = c.FailRSSCap / 10 * 9
	c.Window, c.Thresholds.Warmup = 250*time.Millisecond, time.Second
	c.Out = t.TempDir()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return Expand(c)
}

// hog keeps n goroutines spinning until the returned func is called: two
// busy loops on a 2-core machine, like the neighbours that used to turn
// heap's "degraded" into "failed".
func hog(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for {
				select {
				case <-done:
					return
				default:
					for j := 0; j < 1e6; j++ {
						x += j
					}
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// TestFailureClassesHoldUnderLoad: the
// memory-capped failure scenario gives heap "failed" and arena "healthy"
// on a quiet machine, with two busy loops taking the CPUs, and with the
// children at GOMAXPROCS 1.
func TestFailureClassesHoldUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs six children: not in -short")
	}
	bin := testkit.Build(t, "github.com/writegc/writegc/cmd/gcstress", "gcstress")
	want := map[string]results.Class{memtable.KindHeap: results.Failed, memtable.KindArena: results.Healthy}
	for _, cond := range []struct {
		name       string
		gomaxprocs string
		hogs       int
	}{{"quiet", "", 0}, {"hog", "", 2}, {"gomaxprocs=1", "1", 0}} {
		t.Run(cond.name, func(t *testing.T) {
			if cond.gomaxprocs != "" {
				t.Setenv("GOMAXPROCS", cond.gomaxprocs)
			} else {
				os.Unsetenv("GOMAXPROCS")
			}
			stop := hog(cond.hogs)
			defer stop()
			for _, s := range smallFailure(t) {
				res, err := (&Runner{Exe: bin, StopOnFail: true}).Run(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict.Class != want[s.Kind] {
					t.Errorf("%s: %s (%s), want %s; peak RSS %s, stderr %s", s.Name, res.Verdict.Class, res.Verdict.Why, want[s.Kind], results.MiB(res.Last.RSS), res.Stderr)
				} else {
					t.Logf("%s: %s at %.0f%% (%s)", s.Name, res.Verdict.Class, 100*res.Last.Progress, res.Verdict.Why)
				}
			}
		})
	}
}

// TestCollapseVerdicts runs the collapse scenario at its defaults (2M keys
// of 10 B, closed loop, GOMEMLIMIT 192 MiB): heap's collector cannot keep
// up, so it is degraded or failed; arena and offheap finish the same work
// in 1-3 s, and their finer sampling (DefaultCollapseWindow after
// DefaultCollapseWarmup) with the least run time (a kind that finished in
// 1.2 s on a quiet machine writes on to 1.7 s) leaves enough windows for a
// healthy verdict, not an inconclusive one.
func TestCollapseVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs three children of 3-10 s: not in -short")
	}
	bin := testkit.Build(t, "github.com/writegc/writegc/cmd/gcstress", "gcstress")
	c := DefaultConfig()
	c.Sets, c.Out = []string{SetCollapse}, t.TempDir()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, s := range Expand(c) {
		res, err := (&Runner{Exe: bin, StopOnFail: true}).Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict
		ok := v.Class == results.Healthy
		if s.Kind == memtable.KindHeap {
			ok = v.Class == results.Degraded || v.Class == results.Failed
		}
		if !ok {
			t.Errorf("%s: %s (%s) after %.1f s, %d windows; peak RSS %s, stderr %s",
				s.Name, v.Class, v.Why, res.Last.T, len(res.Windows), results.MiB(res.Last.RSS), res.Stderr)
		} else {
			t.Logf("%s: %s after %.1f s, %d windows (%s)", s.Name, v.Class, res.Last.T, len(res.Windows), v.Why)
		}
	}
}
