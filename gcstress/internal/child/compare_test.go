package child

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFisherExact: the two-sided p-values R's fisher.test gives for
// textbook tables, and 1 for a table with an empty margin.
func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int64
		want       float64
	}{
		{3, 1, 1, 3, 0.4857},    // the lady tasting tea
		{1, 9, 11, 3, 0.002759}, // Wikipedia's dieting example
		{10, 0, 0, 10, 1.083e-05},
		{5, 5, 5, 5, 1},
		{0, 0, 4, 6, 1},
	} {
		got := FisherExact(c.a, c.b, c.c, c.d)
		if math.Abs(got-c.want) > 1e-3*c.want+1e-9 {
			t.Errorf("FisherExact(%d,%d,%d,%d) = %.4g, want %.4g", c.a, c.b, c.c, c.d, got, c.want)
		}
	}
}

// latencies draws n latencies around median ns (log-normal, sigma 0.3)
// with a share tail of them tailX times slower.
func latencies(r *rand.Rand, n int, median, tail, tailX float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = median * math.Exp(0.3*r.NormFloat64())
		if r.Float64() < tail {
			s[i] *= tailX
		}
	}
	return s
}

// TestCompare: a bulk 12x slower in mark is significant at p50 (and in
// the tail, since the shifted bulk passes the pooled p99); the same
// distribution on both sides is not; a tail slower in mark with the bulk
// unchanged is significant at p99 only; too few reads are not tested.
func TestCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name           string
		in, out        []float64
		sig50, sig99   bool
		wantAboveInGT0 bool
	}{
		{"bulk 12x", latencies(r, 400, 12e5, 0, 1), latencies(r, 8000, 1e5, 0, 1), true, true, true},
		{"same", latencies(r, 400, 1e5, 0.01, 20), latencies(r, 8000, 1e5, 0.01, 20), false, false, false},
		{"tail only", latencies(r, 1000, 1e5, 0.03, 30), latencies(r, 8000, 1e5, 0.002, 30), false, true, true},
	} {
		tt, ok := Compare(c.in, c.out)
		if !ok {
			t.Fatalf("%s: not tested", c.name)
		}
		if got := tt.P50P < 0.01; got != c.sig50 {
			t.Errorf("%s: p50 p=%.3g, want significant %v", c.name, tt.P50P, c.sig50)
		}
		if got := tt.P99P < 0.01; got != c.sig99 {
			t.Errorf("%s: p99 p=%.3g (above in %d, out %d), want significant %v", c.name, tt.P99P, tt.AboveIn, tt.AboveOut, c.sig99)
		}
		if c.wantAboveInGT0 && tt.AboveIn == 0 {
			t.Errorf("%s: no in-mark read above the pooled p99 %d", c.name, tt.P99Ns)
		}
	}
	if _, ok := Compare(latencies(r, int(MinTestReads)-1, 1e6, 0, 1), latencies(r, 1000, 1e5, 0, 1)); ok {
		t.Errorf("tested with %d reads in mark", MinTestReads-1)
	}
	same := make([]float64, 100)
	for i := range same {
		same[i] = 5000
	}
	if tt, ok := Compare(same[:40], same[40:]); !ok || tt.P50P != 1 || tt.P99P != 1 {
		t.Errorf("all reads equal: %+v, %v; want p=1 at both", tt, ok)
	}
}
