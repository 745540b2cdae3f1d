package main

import (
	"fmt"
	"io"
	"math"

	"github.com/writegc/writegc/internal/stat"
)

// untagged is the spin count that means "the untagged build" to a measurer.
const untagged = -1

// measurer runs the benchmark once and returns its ns/op: the untagged build
// for spins == untagged, else the gateslow build at spins iterations.
type measurer func(spins int) (float64, error)

// config is what calibrate needs besides the measurer.
type config struct {
	pct       float64 // the slowdown to reach, in percent of the untagged ns/op
	tol       float64 // a pass within tol points of pct ends the calibration
	rounds    int     // rounds of the fit (untagged and each grid count per round)
	verify    int     // rounds of each verification pass (untagged and tagged)
	passes    int     // verification passes at most
	nsPerSpin float64 // a first estimate of one iteration's cost, to place the grid
}

// result is a calibration's outcome.
type result struct {
	spins             int     // the verified count closest to pct
	measured          float64 // its measured slowdown, percent
	base              float64 // median untagged ns/op of the fit rounds
	intercept, slope  float64 // the fitted line: ns/op = intercept + slope*spins
	grid              [3]int  // the fit's spin counts
	passes            []verified
	withinTol, extrap bool // the best pass is within tol; the fit extrapolated beyond the grid
}

// calibrate finds the spin count that slows the benchmark by cfg.pct: rounds
// of interleaved runs (untagged, and tagged at three counts placed from a
// first estimate) fit ns/op = intercept + slope*spins by Theil-Sen; the count
// that line gives is verified by a pass of interleaved untagged and tagged
// runs, and refined by interpolation while a pass misses by more than tol.
func calibrate(m measurer, cfg config, log io.Writer) (result, error) {
	var r result
	first, err := m(untagged)
	if err != nil {
		return r, err
	}
	a := max(1, int(math.Round(cfg.pct/100*first/cfg.nsPerSpin)))
	r.grid = [3]int{a, 2 * a, 4 * a}
	var pts []point
	var bases []float64
	for round := range cfg.rounds {
		order := []int{untagged, r.grid[0], r.grid[1], r.grid[2]}
		rotate(order, round)
		for _, s := range order {
			ns, err := m(s)
			if err != nil {
				return r, err
			}
			if s == untagged {
				bases = append(bases, ns)
			} else {
				pts = append(pts, point{float64(s), ns})
			}
		}
	}
	r.base = stat.Median(bases)
	if r.intercept, r.slope, err = theilSen(pts); err != nil {
		return r, err
	}
	s, err := spinsFor(r.base, r.intercept, r.slope, cfg.pct)
	if err != nil {
		return r, err
	}
	r.extrap = s > r.grid[2] || s < r.grid[0]
	fmt.Fprintf(log, "slowcal: fit over %v: untagged %.4g ns/op, ns/op = %.4g + %.4g*spins -> %d spins for %g%%\n",
		r.grid, r.base, r.intercept, r.slope, s, cfg.pct)
	for pass := range cfg.passes {
		if pass > 0 {
			s = nextSpins(r.passes, cfg.pct, r.base, r.slope, r.grid[2])
		}
		v, err := verifyPass(m, s, cfg.verify)
		if err != nil {
			return r, err
		}
		r.passes = append(r.passes, v)
		fmt.Fprintf(log, "slowcal: pass %d: %d spins measured %+.2f%% (nominal %g%%)\n", pass+1, s, v.measured, cfg.pct)
		if math.Abs(v.measured-cfg.pct) <= cfg.tol {
			break
		}
	}
	b := best(r.passes, cfg.pct)
	r.spins, r.measured = b.spins, b.measured
	r.withinTol = math.Abs(b.measured-cfg.pct) <= cfg.tol
	return r, nil
}

// verifyPass runs rounds of untagged and tagged-at-spins in ABBA order and
// returns the slowdown of the medians, as the gate computes a delta.
func verifyPass(m measurer, spins, rounds int) (verified, error) {
	var base, head []float64
	for round := range rounds {
		order := []int{untagged, spins}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, s := range order {
			ns, err := m(s)
			if err != nil {
				return verified{}, err
			}
			if s == untagged {
				base = append(base, ns)
			} else {
				head = append(head, ns)
			}
		}
	}
	return verified{spins, (stat.Median(head)/stat.Median(base) - 1) * 100}, nil
}

// rotate rotates xs left by k, so that across len(xs) rounds every
// configuration runs at every position of a round.
func rotate(xs []int, k int) {
	k %= len(xs)
	tmp := append(append([]int{}, xs[k:]...), xs[:k]...)
	copy(xs, tmp)
}
