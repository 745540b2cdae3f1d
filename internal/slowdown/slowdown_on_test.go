//go:build gateslow

package slowdown

import (
	"testing"
	"time"
)

// With the tag, Inject's cost grows with the configured iterations
// (go test -tags gateslow ./internal/slowdown).
func TestInjectSpins(t *testing.T) {
	if !Enabled {
		t.Fatal("Enabled is false in a gateslow build")
	}
	saved := spins
	defer func() { spins = saved }()
	timeIt := func(n uint64) time.Duration {
		spins[GateSynth] = n
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
