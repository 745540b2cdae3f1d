package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
	"github.com/writegc/writegc/internal/workload"
)

// The conclusion sentences: one per comparison, that is per set of
// scenarios that differ only in their kind (the same group, value size, key
// count and settings), and one per capacity value size searched for more
// than one kind. Every figure is read from the results; a figure a scenario
// lacks leaves its clause out, a comparison of one kind has no sentence.
// The terminal, Markdown and HTML reports print the same sentences, each
// kind name escaped for its format by the esc it passes.

// tieRatio: two figures closer than this ratio read "about the same".
const tieRatio = 1.1

// comparison is one set of scenarios that differ only in kind, in order of
// first appearance.
type comparison struct {
	first results.Scenario
	rs    []results.Result
}

// comparisonKey is a scenario without what names it or tells its kind
// apart: two scenarios with equal keys are compared.
func comparisonKey(s results.Scenario) results.Scenario {
	s.Name, s.Kind, s.Dir, s.Seed, s.Profile, s.Flight = "", "", "", 0, "", false
	return s
}

// comparisons groups rs by comparisonKey, capacity steps left out (the
// capacity searches have sentences of their own).
func comparisons(rs []results.Result) []comparison {
	var out []comparison
	at := map[results.Scenario]int{}
	for _, r := range rs {
		if r.Scenario.Group == results.SetCapacity || r.Scenario.Group == results.SetFrontier {
			continue // each has sentences of its own
		}
		k := comparisonKey(r.Scenario)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, comparison{first: r.Scenario})
		}
		out[i].rs = append(out[i].rs, r)
	}
	return out
}

// conclusions is every comparison's sentence, then every capacity value
// size's; kind names go through esc.
func conclusions(sum *results.Summary, esc func(string) string) []string {
	var out []string
	for _, c := range comparisons(sum.Results) {
		if s := c.sentence(esc); s != "" {
			out = append(out, s)
		}
	}
	out = append(out, readerConclusions(sum.Results, esc)...)
	out = append(out, assistConclusions(sum.Results, esc)...) // mmu.go
	out = append(out, envConclusions(sum.Results, esc)...)
	out = append(out, capacityConclusions(sum.Capacity, esc)...)
	out = append(out, capacityEnvConclusions(sum.Capacity, esc)...)
	return append(out, frontierConclusions(sum, esc)...)
}

// kindFigures are one kind's figures in a comparison: the median of its
// runs that have each figure (has* say whether any has), and its worst
// run (the one its health clause reports).
type kindFigures struct {
	kind            string
	objects, gcNs   float64
	hasObj, hasCost bool
	// noCycle: a run of the kind has a cost that rests on too few GC
	// cycles (its GC CPU per Put reads fewCycles, not 0) and none has
	// one that does not.
	noCycle bool
	r       results.Result
}

// kindsIn gathers a comparison's results by kind, in order of first
// appearance.
func kindsIn(rs []results.Result) []kindFigures {
	var ks []kindFigures
	for _, kind := range kindsOf(rs) {
		k := kindFigures{kind: kind}
		var objs, gcs []float64
		for _, r := range rs {
			if r.Scenario.Kind != kind {
				continue
			}
			if k.r.Scenario.Name == "" || worse(r, k.r) {
				k.r = r
			}
			if e := r.End; e != nil && e.Entries > 0 {
				objs = append(objs, e.ObjectsPerEntry)
			}
			if e := r.End; e != nil && e.Cost != (results.Cost{}) {
				if !e.CostResolved() {
					k.noCycle = true // too few cycles: its GC CPU-ns per Put is no figure
				} else {
					gcs = append(gcs, e.GCCPUNsPerPut)
				}
			}
		}
		k.objects, k.hasObj = stat.MedianOr(objs, 0), len(objs) > 0
		k.gcNs, k.hasCost = stat.MedianOr(gcs, 0), len(gcs) > 0
		k.noCycle = k.noCycle && !k.hasCost
		ks = append(ks, k)
	}
	return ks
}

// worse says whether a's health is worse than b's: a higher rank, or an
// earlier failure.
func worse(a, b results.Result) bool {
	ra, rb := a.Verdict.Class.Rank(), b.Verdict.Class.Rank()
	if ra != rb {
		return ra > rb
	}
	return ra == results.Failed.Rank() && a.Verdict.FailedAt < b.Verdict.FailedAt
}

// sentence is the comparison's conclusion ("" with fewer than two kinds).
func (c comparison) sentence(esc func(string) string) string {
	ks := kindsIn(c.rs)
	if len(ks) < 2 {
		return ""
	}
	var clauses []string
	prev := [2]int{-1, -1}
	for _, f := range []struct {
		fig clauseFigure
		v   func(kindFigures) (float64, bool)
	}{
		{clauseFigure{"holds", "heap objects per entry", "fewer", objectsResolved, objectsText}, func(k kindFigures) (float64, bool) { return k.objects, k.hasObj }},
		{clauseFigure{"costs", "GC CPU-ns per Put", "less", nil, figure}, func(k kindFigures) (float64, bool) { return k.gcNs, k.hasCost }},
	} {
		lo, hi, n := extremes(ks, f.v)
		if n < 2 {
			continue
		}
		again := prev == [2]int{lo, hi}
		v := func(k kindFigures) float64 { return mustFig(f.v, k) }
		clauses = append(clauses, compareClause(ks[lo], ks[hi], n, again, f.fig, esc, v))
		prev = [2]int{lo, hi}
		if a, b := v(ks[lo]), v(ks[hi]); tied(a, b) || !f.fig.ok(a) && !f.fig.ok(b) {
			prev = [2]int{-1, -1} // a tie names both kinds: the next clause names its own
		}
	}
	var none []string
	for _, k := range ks {
		if k.noCycle {
			none = append(none, esc(k.kind))
		}
	}
	if len(none) > 0 {
		clauses = append(clauses, joinAnd(none)+" GC CPU per Put "+fewCycles())
	}
	s := comparisonLabel(c.first) + ", "
	if c.first.BuildEnv != "" {
		s = comparisonLabel(c.first) + " in build environment " + esc(c.first.BuildEnv) + ", "
	}
	if len(clauses) > 0 {
		s += strings.Join(clauses, " and ") + "; "
	}
	return s + healthClause(ks, esc) + "."
}

// comparisonLabel opens a sentence: "At 100B values (400K keys)" for the
// matrix, "In the failure scenario (10B values)" for the others.
func comparisonLabel(s results.Scenario) string {
	keys := workload.FormatCount(s.Keys) + " keys"
	if s.Keys >= results.UnboundedKeys {
		keys = "keys unbounded"
	}
	if s.Group == results.SetMatrix {
		return fmt.Sprintf("At %s values (%s)", workload.FormatSize(s.Value), keys)
	}
	return fmt.Sprintf("In the %s scenario (%s values)", s.Group, workload.FormatSize(s.Value))
}

// extremes are the indexes of the lowest and highest figure among the
// kinds that have it, and how many have it.
func extremes(ks []kindFigures, fig func(kindFigures) (float64, bool)) (lo, hi, n int) {
	lo, hi = -1, -1
	for i, k := range ks {
		v, has := fig(k)
		if !has {
			continue
		}
		n++
		if lo < 0 || v < mustFig(fig, ks[lo]) {
			lo = i
		}
		if hi < 0 || v > mustFig(fig, ks[hi]) {
			hi = i
		}
	}
	return lo, hi, n
}

func mustFig(fig func(kindFigures) (float64, bool), k kindFigures) float64 {
	v, _ := fig(k)
	return v
}

// clauseFigure is a figure a conclusion compares: its verb, unit and
// comparative, and how it reads (text) and whether a value is resolved
// (resolved; nil: every value the kinds have is).
type clauseFigure struct {
	verb, unit, fewer string
	resolved          func(float64) bool
	text              func(float64) string
}

func (f clauseFigure) ok(v float64) bool { return f.resolved == nil || f.resolved(v) }

// compareClause is one clause: the cheapest kind's figure against the most
// expensive's ("arena holds 0.041 heap objects per entry against heap's
// 2.01 (49x fewer)"), or "about the same" when they are within tieRatio or
// both below what the run resolves ("(both ~0)"); a ratio only when both
// are resolved (resolve.go). With more than two kinds having the figure
// (n), the two are named the cheapest and the most expensive. again (the
// previous clause named the same two kinds in the same order) leaves the
// names out: "and costs 21 ... against 412".
func compareClause(lo, hi kindFigures, n int, again bool, f clauseFigure, esc func(string) string, v func(kindFigures) float64) string {
	a, b := v(lo), v(hi)
	if both := !f.ok(a) && !f.ok(b); both || tied(a, b) {
		who := esc(lo.kind) + " and " + esc(hi.kind)
		if n > 2 {
			who = fmt.Sprintf("all %d kinds", n)
		}
		span := fmt.Sprintf("(%s to %s)", f.text(a), f.text(b))
		switch {
		case both && n > 2:
			span = "(all " + approxZero + ")"
		case both:
			span = "(both " + approxZero + ")"
		}
		return fmt.Sprintf("%s %s about the same %s %s", who, strings.TrimSuffix(f.verb, "s"), f.unit, span)
	}
	var notes []string
	if n > 2 && !again {
		notes = append(notes, "the most expensive")
	}
	if a > 0 && f.ok(a) && f.ok(b) {
		notes = append(notes, ratioText(b/a)+" "+f.fewer)
	}
	paren := ""
	if len(notes) > 0 {
		paren = " (" + strings.Join(notes, "; ") + ")"
	}
	if again {
		return fmt.Sprintf("%s %s %s against %s%s", f.verb, f.text(a), f.unit, f.text(b), paren)
	}
	cheap := esc(lo.kind)
	if n > 2 {
		// "the fewest" / "the least", never "the cheapest": two clauses
		// of one sentence may name two kinds, and only one is cheapest.
		cheap += fmt.Sprintf(" (the %s of %d)", superlative[f.fewer], n)
	}
	return fmt.Sprintf("%s %s %s %s against %s's %s%s", cheap, f.verb, f.text(a), f.unit, esc(hi.kind), f.text(b), paren)
}

// superlative is each comparative's: "fewer" objects, "less" CPU.
var superlative = map[string]string{"fewer": "fewest", "less": "least"}

// tied says whether the lowest figure a and the highest b read "about
// the same": within tieRatio, or both zero.
func tied(a, b float64) bool { return b <= 0 || (a > 0 && b/a < tieRatio) }

// figure prints a figure with three significant digits, whole above 100,
// with thousands separators.
func figure(v float64) string {
	if v >= 100 {
		return commas(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// ratioText prints a ratio: "1,500x", "20x", "3.5x".
func ratioText(r float64) string {
	if r >= 10 {
		return commas(int64(math.Round(r))) + "x"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "x"
}

// healthClause says how each kind ended: the failed ones first (the one
// that failed earliest "first" when several did), then the others by
// class, worst first ("heap was elevated, arena and offheap healthy");
// "all 3 were healthy" when every kind had one class.
func healthClause(ks []kindFigures, esc func(string) string) string {
	byClass := map[results.Class][]string{}
	var classes []results.Class
	first, nFailed := -1, 0
	for i, k := range ks {
		c := k.r.Verdict.Class
		if c == results.Failed {
			nFailed++
			if first < 0 || worse(k.r, ks[first].r) {
				first = i
			}
			continue
		}
		if _, ok := byClass[c]; !ok {
			classes = append(classes, c)
		}
		byClass[c] = append(byClass[c], esc(k.kind))
	}
	if nFailed == 0 && len(classes) == 1 {
		return fmt.Sprintf("all %d were %s", len(ks), classes[0])
	}
	var parts []string
	if first >= 0 {
		parts = append(parts, failedClause(ks[first], nFailed > 1, esc))
	}
	for i, k := range ks {
		if i != first && k.r.Verdict.Class == results.Failed {
			parts = append(parts, failedClause(k, false, esc))
		}
	}
	slices.SortStableFunc(classes, func(a, b results.Class) int { return b.Rank() - a.Rank() })
	for j, c := range classes {
		names := byClass[c]
		verb := "was"
		if len(names) > 1 {
			verb = "were"
		}
		if c == results.Healthy && nFailed > 0 {
			verb = "stayed"
		}
		if j > 0 && verb != "stayed" {
			verb = "" // "heap was elevated, arena and offheap healthy"
		}
		parts = append(parts, strings.TrimSpace(joinAnd(names)+" "+verb)+" "+string(c))
	}
	return strings.Join(parts, ", ")
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// failedClause is "heap hit the RSS cap (failed at 65%)", "heap died
// (failed at 8%)" or "heap failed at 60%"; first adds "first".
func failedClause(k kindFigures, first bool, esc func(string) string) string {
	what := "failed"
	switch {
	case k.r.Exit.RSSCap:
		what = "hit the RSS cap"
	case k.r.Exit.Stalled:
		what = "stalled"
	case k.r.Exit.Died:
		what = "died"
	case k.r.Verdict.FailedAt > 0:
		what = "could not hold the heap under GOMEMLIMIT"
	}
	if first {
		what += " first"
	}
	return fmt.Sprintf("%s %s (failed at %.0f%%)", esc(k.kind), what, 100*k.r.Verdict.FailedAt)
}

// capacityConclusions is one sentence per value size (and build
// environment) searched for more than one kind: which kind sustains the
// highest rate, against which.
func capacityConclusions(cs []results.Capacity, esc func(string) string) []string {
	type key struct {
		value int64
		env   string
	}
	var out []string
	var values []key
	by := map[key][]results.Capacity{}
	for _, c := range cs {
		k := key{c.Value, c.Env}
		if _, ok := by[k]; !ok {
			values = append(values, k)
		}
		by[k] = append(by[k], c)
	}
	for _, v := range values {
		g := by[v]
		if len(g) < 2 {
			continue
		}
		lo, hi := 0, 0
		for i, c := range g {
			if c.SustainableMBps < g[lo].SustainableMBps {
				lo = i
			}
			if c.SustainableMBps > g[hi].SustainableMBps {
				hi = i
			}
		}
		out = append(out, capacitySentence(v.value, v.env, g, lo, hi, esc))
	}
	return out
}

// capacitySentence compares the highest and lowest sustainable rate of one
// value size (in build environment env, "" for none), each as capacityFigure reads it (a contended one as a bound).
// Rates whose intervals overlap are about the same; a ratio against a
// contended figure is a bound too ("at least", when the higher one is the
// contended one) or not given (the lower one is: its quiet rate may be
// higher).
func capacitySentence(v int64, env string, g []results.Capacity, lo, hi int, esc func(string) string) string {
	s := fmt.Sprintf("Capacity at %s values: ", workload.FormatSize(v))
	if env != "" {
		s = fmt.Sprintf("Capacity at %s values in build environment %s: ", workload.FormatSize(v), esc(env))
	}
	h, l := g[hi], g[lo]
	a, b := h.SustainableMBps, l.SustainableMBps
	overlap := !h.Contended && !l.Contended && h.SustainableLoMBps > 0 && l.SustainableHiMBps >= h.SustainableLoMBps
	if tied(b, a) || overlap {
		return s + fmt.Sprintf("%s and %s sustain about the same rate (%s and %s).", esc(h.Kind), esc(l.Kind), capacityFigure(h, true), capacityFigure(l, true))
	}
	ratio := "none sustained"
	switch {
	case b > 0 && l.Contended:
		ratio = "its own figure a lower bound"
	case b > 0 && h.Contended:
		ratio = "at least " + ratioText(a/b) + " more"
	case b > 0:
		ratio = ratioText(a/b) + " more"
	}
	s += fmt.Sprintf("%s sustains %s healthy against %s's %s (%s)", esc(h.Kind), capacityFigure(h, true), esc(l.Kind), capacityFigure(l, true), ratio)
	if lim := l.Limit; lim != results.LimitNone {
		s += fmt.Sprintf("; %s is first limited by %s", esc(l.Kind), esc(string(lim)))
	}
	return s + "."
}
