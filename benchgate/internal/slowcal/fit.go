package main

import (
	"errors"
	"math"
	"slices"

	"github.com/writegc/writegc/internal/stat"
)

// point is one measurement: ns/op at a number of spin iterations.
type point struct{ x, y float64 }

// theilSen fits y = intercept + slope*x robustly: the slope is the median of
// the slopes between every two points at different x, the intercept the
// median of y - slope*x. One wild measurement (a neighbour's build) moves
// neither much, unlike least squares.
func theilSen(pts []point) (intercept, slope float64, err error) {
	var slopes []float64
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			if dx := pts[j].x - pts[i].x; dx != 0 {
				slopes = append(slopes, (pts[j].y-pts[i].y)/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return 0, 0, errors.New("fit: need points at two different spin counts at least")
	}
	slope = stat.Median(slopes)
	res := make([]float64, len(pts))
	for i, p := range pts {
		res[i] = p.y - slope*p.x
	}
	return stat.Median(res), slope, nil
}

// spinsFor is the spin count at which the line intercept + slope*x reaches
// base*(1+pct/100), rounded to a whole count of at least 1.
func spinsFor(base, intercept, slope, pct float64) (int, error) {
	if !(slope > 0) {
		return 0, errors.New("fit: ns/op does not grow with the spin count (slope <= 0): the site is not on this benchmark's path, or the runs are too noisy")
	}
	x := (base*(1+pct/100) - intercept) / slope
	return max(1, int(math.Round(x))), nil
}

// verified is one verification pass: the measured slowdown (%) of the tagged
// build at spins against the untagged build.
type verified struct {
	spins    int
	measured float64
}

// nextSpins chooses the spin count to verify next, after the passes in vs
// (at least one): the secant through the two passes closest to pct when they
// are at different counts and the slowdown grows between them, else a Newton
// step from the last pass with the fitted slope (base and slope in ns/op and
// ns/op per iteration), held within 4x of the last count or up to reach.
// Both are interpolation on a measured curve, not a
// rescaling by nominal/measured, so they do not oscillate on a noisy pass.
func nextSpins(vs []verified, pct, base, slope float64, reach int) int {
	last := vs[len(vs)-1]
	byDist := slices.Clone(vs)
	slices.SortStableFunc(byDist, func(a, b verified) int {
		da, db := math.Abs(a.measured-pct), math.Abs(b.measured-pct)
		switch {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return 0
	})
	x := float64(last.spins) + (pct-last.measured)/100*base/slope
	if len(byDist) >= 2 {
		a, b := byDist[0], byDist[1]
		if a.spins != b.spins {
			if s := (b.measured - a.measured) / float64(b.spins-a.spins); s > 0 {
				x = float64(a.spins) + (pct-a.measured)/s
			}
		}
	}
	// A secant through two noisy passes close together can point far away:
	// move at most 4x from the last count, or up to reach (the top of the
	// fit's grid) when that is further.
	x = min(max(x, float64(last.spins)/4), float64(max(last.spins*4, reach)))
	return max(1, int(math.Round(x)))
}

// best is the pass whose measured slowdown is closest to pct.
func best(vs []verified, pct float64) verified {
	b := vs[0]
	for _, v := range vs[1:] {
		if math.Abs(v.measured-pct) < math.Abs(b.measured-pct) {
			b = v
		}
	}
	return b
}
