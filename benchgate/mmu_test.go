package benchgate

import (
	"strings"
	"testing"
)

// gcstress's trace units (issue 50) gate as their Unit lines say: the MMU
// (mmu-10ms, a fraction) is better higher, so a drop regresses and a rise
// improves; the assist share of the slowest writes is better lower. An
// MMU without its Unit line has no direction and is reported only.
func TestTraceUnitsDirection(t *testing.T) {
	const meta = "Unit mmu-10ms better=higher assume=nothing\nUnit assist-share-slow-% better=lower assume=nothing\n"
	side := func(meta, unit string, v float64) *Set {
		var b strings.Builder
		b.WriteString(meta)
		for i := range 10 {
			b.WriteString(lines("BenchmarkGCStress/set=matrix/kind=heap/value=100", unit, v*(1+float64(i%3)/100)))
		}
		return parseString(t, b.String())
	}
	for _, tc := range []struct {
		meta, unit string
		base, head float64
		want       Verdict
	}{
		{meta, "mmu-10ms", 0.8, 0.4, Regressed},
		{meta, "mmu-10ms", 0.4, 0.8, Improved},
		{meta, "assist-share-slow-%", 20, 80, Regressed},
		{meta, "assist-share-slow-%", 80, 20, Improved},
		{"", "mmu-10ms", 0.8, 0.4, NotGated},
	} {
		rep, err := Compare(side(tc.meta, tc.unit, tc.base), side(tc.meta, tc.unit, tc.head), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rows) != 1 || rep.Rows[0].Verdict != tc.want {
			t.Errorf("%s %v -> %v (Unit line %v): rows %+v, want %v", tc.unit, tc.base, tc.head, tc.meta != "", rep.Rows, tc.want)
		}
	}
}
