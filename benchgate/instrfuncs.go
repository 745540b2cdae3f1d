package benchgate

import (
	"cmp"
	"fmt"
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

// instrFuncs sums, per side and leaf, each function's instructions per op
// over the rounds, for the per-function comparison of regressed benchmarks.
// It is used by one goroutine (runInstrRounds, between rounds).
type instrFuncs struct {
	sums   map[string]map[string]callgrind.FuncPerOp // by side name + "\x00" + leaf
	rounds map[string]int
}

func newInstrFuncs() *instrFuncs {
	return &instrFuncs{sums: map[string]map[string]callgrind.FuncPerOp{}, rounds: map[string]int{}}
}

// add records one measurement of a side's leaf.
func (f *instrFuncs) add(side, leaf string, funcs map[string]callgrind.FuncPerOp) {
	if f == nil || funcs == nil {
		return
	}
	k := side + "\x00" + leaf
	s := f.sums[k]
	if s == nil {
		s = make(map[string]callgrind.FuncPerOp, len(funcs))
		f.sums[k] = s
	}
	for name, v := range funcs {
		c := s[name]
		c.Self += v.Self
		c.Incl += v.Incl
		s[name] = c
	}
	f.rounds[k]++
}

// mean is a side's leaf's per-function instructions per op, averaged over
// its rounds; nil when it has none.
func (f *instrFuncs) mean(side, leaf string) map[string]callgrind.FuncPerOp {
	k := side + "\x00" + leaf
	n := f.rounds[k]
	if n == 0 {
		return nil
	}
	out := make(map[string]callgrind.FuncPerOp, len(f.sums[k]))
	for name, c := range f.sums[k] {
		out[name] = callgrind.FuncPerOp{Self: c.Self / float64(n), Incl: c.Incl / float64(n)}
	}
	return out
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
