package child

import (
	"math"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// Only utilizations reach the end line: a timeline without utilization
// data (not from a trace) gives no curve and no worst window, and NaN or
// a value outside [0, 1] is never a point (summary.json has no NaN).
func TestFillMMU(t *testing.T) {
	var e results.Sample
	fillMMU(&e, &Phases{})
	if e.MMU != nil || e.MMUWorst != nil {
		t.Errorf("no utilization data: mmu %v worst %v", e.MMU, e.MMUWorst)
	}
	for _, c := range []struct {
		u    float64
		want bool
	}{{0, true}, {0.5, true}, {1, true}, {math.NaN(), false}, {-0.1, false}, {1.01, false}, {math.Inf(1), false}} {
		if got := isUtil(c.u); got != c.want {
			t.Errorf("isUtil(%v) = %v", c.u, got)
		}
	}
}
