//go:build gateslow

package slowdown

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// With the tag, Inject's cost grows with the configured iterations
// (go test -tags gateslow ./internal/slowdown).
func TestInjectSpins(t *testing.T) {
	if !Enabled {
		t.Fatal("Enabled is false in a gateslow build")
	}
	saved := amounts
	defer func() { amounts = saved }()
	timeIt := func(n uint64) time.Duration {
		amounts[GateSynth] = Amount{Spins: n, Every: 1}
		best := time.Duration(1 << 62)
		for range 5 {
			t0 := time.Now()
			for range 100 {
				Inject(GateSynth)
			}
			best = min(best, time.Since(t0))
		}
		return best
	}
	off, on := timeIt(0), timeIt(100_000)
	if on < 20*off || on < 100*time.Microsecond {
		t.Errorf("100 calls: %v at 0 iterations, %v at 100000: the spin is not running", off, on)
	}
}

// An Amount with Every k fires on exactly one call in k, whatever the
// interleaving of concurrent callers, and one without an Every on each.
func TestFireEvery(t *testing.T) {
	saved := amounts
	defer func() { amounts = saved }()
	amounts[GateSynth] = Amount{Spins: 5, Every: 4}
	amounts[ArenaAlloc] = Amount{Spins: 3, Every: 1}
	amounts[MemtablePut] = Amount{}
	calls[GateSynth].Store(0)
	var fired, spun, every, never atomic.Uint64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				if n := fire(GateSynth); n != 0 {
					fired.Add(1)
					spun.Add(n)
				}
				if fire(ArenaAlloc) == 3 {
					every.Add(1)
				}
				if fire(MemtablePut) != 0 {
					never.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if fired.Load() != 1000 || spun.Load() != 5000 {
		t.Errorf("synth=5/4 over 4000 calls fired %d times (%d steps), want 1000 (5000)", fired.Load(), spun.Load())
	}
	if every.Load() != 4000 || never.Load() != 0 {
		t.Errorf("arena=3 fired %d of 4000, memtable unset fired %d", every.Load(), never.Load())
	}
}
