package benchgate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/writegc/writegc/benchgate/internal/callgrind"
)

// SampleInstructions is the ProfileDiff.SampleType of instruction mode's
// per-function comparison: instructions executed per op, from callgrind's
// per-function counts of the same difference of runs as the per-op figures
// (flat: the function's own code; cum: with its calls, as far as callgrind's
// call tracking follows Go's goroutine switches).
const SampleInstructions = "instructions"

// minInstrGrowth is the smallest rise, in instructions per op, a function
// needs to be listed.
const minInstrGrowth = 1

// noiseSDs is how many standard deviations of its rounds a function's mean
// per-op count must exceed to be told from noise: below, it reads 0.
const noiseSDs = 2

// instrFuncs sums, per side and leaf, each function's instructions per op
// (and their squares) over the rounds, for the per-function comparison of
// regressed benchmarks. It is used by one goroutine (runInstrRounds,
// between rounds).
type instrFuncs struct {
	sums   map[string]map[string]funcSums // by side name + "\x00" + leaf
	rounds map[string]int
}

// funcSums are one function's sums over rounds: of its per-op counts and
// of their squares.
type funcSums struct{ self, incl, selfSq, inclSq float64 }

func newInstrFuncs() *instrFuncs {
	return &instrFuncs{sums: map[string]map[string]funcSums{}, rounds: map[string]int{}}
}

// add records one measurement of a side's leaf.
func (f *instrFuncs) add(side, leaf string, funcs map[string]callgrind.FuncPerOp) {
	if f == nil || funcs == nil {
		return
	}
	k := side + "\x00" + leaf
	s := f.sums[k]
	if s == nil {
		s = make(map[string]funcSums, len(funcs))
		f.sums[k] = s
	}
	for name, v := range funcs {
		c := s[name]
		c.self += v.Self
		c.incl += v.Incl
		c.selfSq += v.Self * v.Self
		c.inclSq += v.Incl * v.Incl
		s[name] = c
	}
	f.rounds[k]++
}

// mean is a side's leaf's per-function instructions per op, averaged over
// its rounds (a round without a function counts 0 for it); nil when it has
// none. A count per op is never negative and never noise: a mean below 0
// (a fixed cost that differed between the two calls) or within noiseSDs
// standard deviations of its rounds reads 0.
func (f *instrFuncs) mean(side, leaf string) map[string]callgrind.FuncPerOp {
	k := side + "\x00" + leaf
	n := f.rounds[k]
	if n == 0 {
		return nil
	}
	out := make(map[string]callgrind.FuncPerOp, len(f.sums[k]))
	for name, c := range f.sums[k] {
		out[name] = callgrind.FuncPerOp{Self: resolved(c.self, c.selfSq, n), Incl: resolved(c.incl, c.inclSq, n)}
	}
	return out
}

// resolved is the mean of n rounds from their sum and sum of squares, or 0
// when it is negative or within noiseSDs of their standard deviation.
func resolved(sum, sumSq float64, n int) float64 {
	m := sum / float64(n)
	sd := 0.0
	if n > 1 {
		sd = math.Sqrt(max(0, (sumSq-float64(n)*m*m)/float64(n-1)))
	}
	if m <= 0 || m <= noiseSDs*sd {
		return 0
	}
	return m
}

// diffs compares base and head per function for each benchmark of names
// (at most max of them): the top functions whose own instructions per op
// grew most, as DiffProfiles ranks a CPU profile's, leaving out the same
// bookkeeping (the testing harness, the scheduler) and rises under
// minInstrGrowth.
func (f *instrFuncs) diffs(names []string, max, top int) []ProfileDiff {
	if f == nil {
		return nil
	}
	if max > 0 && len(names) > max {
		names = names[:max]
	}
	var out []ProfileDiff
	for _, name := range names {
		d := ProfileDiff{Benchmark: name, SampleType: SampleInstructions}
		base, head := f.mean("base", name), f.mean("head", name)
		if base == nil || head == nil {
			d.Err = fmt.Sprintf("no per-function counts (base %d rounds, head %d)",
				f.rounds["base\x00"+name], f.rounds["head\x00"+name])
			out = append(out, d)
			continue
		}
		for fn, h := range head {
			if isBookkeeping(fn) {
				continue
			}
			b := base[fn]
			c := FuncCost{Func: fn, BaseFlat: b.Self, HeadFlat: h.Self, BaseCum: b.Incl, HeadCum: h.Incl}
			if c.FlatGrowth() >= minInstrGrowth || c.CumGrowth() >= minInstrGrowth {
				d.Funcs = append(d.Funcs, c)
			}
		}
		sortFuncCosts(d.Funcs)
		if top > 0 && len(d.Funcs) > top {
			d.Funcs = d.Funcs[:top]
		}
		out = append(out, d)
	}
	return out
}

// sortFuncCosts ranks by the growth of flat cost, then of cum cost, then by
// name.
func sortFuncCosts(fs []FuncCost) {
	slices.SortFunc(fs, func(a, b FuncCost) int {
		if c := cmp.Compare(b.FlatGrowth(), a.FlatGrowth()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.CumGrowth(), a.CumGrowth()); c != 0 {
			return c
		}
		return cmp.Compare(a.Func, b.Func)
	})
}
