package child

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/writegc/writegc/gcstress/results"
)

// MinTestReads is the fewest reads each side (in mark, outside) needs
// before Compare tests them (results.MinMarkTestReads, the one figure the
// reports quote).
const MinTestReads = results.MinMarkTestReads

// Test is whether the reads that overlapped a mark phase took a different
// time than the others, at the bulk and in the tail. A plain value.
type Test struct {
	// P50P is the two-sided p-value of a Mann-Whitney U test of the two
	// sides' latencies: a shift of the bulk, read beside the medians.
	P50P float64
	// P99P is the two-sided p-value of Fisher's exact test on how many
	// reads of each side lie above the pooled p99 (P99Ns): a difference
	// in the tail, which a rank test of the bulk does not see.
	P99P float64
	// P99Ns is the p99 of both sides together; AboveIn and AboveOut the
	// reads of each side above it.
	P99Ns             int64
	AboveIn, AboveOut int64
}

// Compare tests in (the in-mark reads' latencies, ns) against out; ok is
// false when either side has fewer than MinTestReads reads. It sorts
// both slices.
func Compare(in, out []float64) (t Test, ok bool) {
	if int64(len(in)) < MinTestReads || int64(len(out)) < MinTestReads {
		return Test{}, false
	}
	slices.Sort(in)
	slices.Sort(out)
	all := append(slices.Clone(in), out...)
	slices.Sort(all)
	t.P50P = 1
	if all[0] != all[len(all)-1] { // all tied: the U test's normal approximation divides by zero
		th := benchmath.DefaultThresholds
		t.P50P = benchmath.AssumeNothing.Compare(benchmath.NewSample(in, &th), benchmath.NewSample(out, &th)).P
	}
	p99 := all[min(len(all)-1, int(math.Ceil(0.99*float64(len(all))))-1)]
	t.P99Ns = int64(p99)
	t.AboveIn, t.AboveOut = above(in, p99), above(out, p99)
	t.P99P = FisherExact(t.AboveIn, int64(len(in))-t.AboveIn, t.AboveOut, int64(len(out))-t.AboveOut)
	return t, true
}

// above counts the values of sorted s greater than v.
func above(s []float64, v float64) int64 {
	i, _ := slices.BinarySearch(s, math.Nextafter(v, math.Inf(1)))
	return int64(len(s) - i)
}

// FisherExact is the two-sided p-value of Fisher's exact test on the 2x2
// table [[a, b], [c, d]]: the probability, with the margins fixed, of a
// table at most as likely as this one. 1 when a margin is empty.
func FisherExact(a, b, c, d int64) float64 {
	r1, c1, n := a+b, a+c, a+b+c+d
	if r1 == 0 || c1 == 0 || r1 == n || c1 == n {
		return 1
	}
	lo, hi := max(0, r1+c1-n), min(r1, c1)
	logP := func(x int64) float64 { return lchoose(c1, x) + lchoose(n-c1, r1-x) - lchoose(n, r1) }
	// A relative tolerance: tables as likely as the observed one up to
	// rounding count as "at most as likely" (R's fisher.test does the same).
	obs := logP(a) + 1e-7
	p := 0.0
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= obs {
			p += math.Exp(lp)
		}
	}
	return min(p, 1)
}

// lchoose is log(n choose k).
func lchoose(n, k int64) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
