package report

import (
	"fmt"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// The capacity search under build environments (-build-envs): every kind
// x value size is searched once per environment (results.Capacity.Env),
// and its rows, chart lines and notes name the environment; per kind x
// value size (and round) one sentence compares each other environment's
// sustainable rate with the first's. Two rates read the same when their
// intervals (SustainableLoMBps to SustainableHiMBps) overlap, or, for a
// search without one, when they are within tieRatio; a contended
// search's rate is a lower bound and is compared as one.

// capacityKind is a search's name in the capacity table, chart and notes:
// its kind, and its build environment when it has one ("heap env=classic",
// as kindColumn names a scenario).
func capacityKind(c results.Capacity) string {
	if c.Env == "" {
		return c.Kind
	}
	return c.Kind + " env=" + c.Env
}

// capacityLabel is a search in the notes and the chart's legend: kind,
// value size and build environment ("heap 100B env=classic", as
// results.Scenario.Label writes a scenario).
func capacityLabel(c results.Capacity) string {
	s := c.Kind + " " + workload.FormatSize(c.Value)
	if c.Env != "" {
		s += " env=" + c.Env
	}
	return s
}

// capacityEnvKey is what a search is compared under: all but its
// environment.
type capacityEnvKey struct {
	kind   string
	value  int64
	repeat int
}

// capacityEnvGroups groups cs by capacityEnvKey in order of first
// appearance, keeping the groups searched in more than one environment.
func capacityEnvGroups(cs []results.Capacity) [][]results.Capacity {
	var out [][]results.Capacity
	at := map[capacityEnvKey]int{}
	for _, c := range cs {
		if c.Env == "" {
			continue
		}
		k := capacityEnvKey{c.Kind, c.Value, c.Repeat}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	kept := out[:0]
	for _, g := range out {
		if len(g) > 1 {
			kept = append(kept, g)
		}
	}
	return kept
}

// capacityEnvConclusions is one sentence per kind x value size (and round)
// searched under more than one build environment: each other environment
// against the first.
func capacityEnvConclusions(cs []results.Capacity, esc func(string) string) []string {
	var out []string
	for _, g := range capacityEnvGroups(cs) {
		for _, c := range g[1:] {
			out = append(out, capacityEnvSentence(g[0], c, esc))
		}
	}
	return out
}

// capacityEnvSentence compares search c's sustainable rate with base's
// (the same kind and value size in another build environment).
func capacityEnvSentence(base, c results.Capacity, esc func(string) string) string {
	s := fmt.Sprintf("Capacity of %s %s", esc(c.Kind), workload.FormatSize(c.Value))
	if c.Repeat > 0 {
		s += fmt.Sprintf(" (round %d)", c.Repeat)
	}
	n, bn := esc(c.Env), esc(base.Env)
	figs := fmt.Sprintf("%s against %s", capacityFigure(c, true), capacityFigure(base, true))
	a, b := c.SustainableMBps, base.SustainableMBps
	switch {
	case a <= 0 && b <= 0:
		return s + fmt.Sprintf(": neither %s nor %s sustained a rate.", n, bn)
	case capacityOverlap(c, base):
		return s + fmt.Sprintf(": %s and %s sustain the same rate (%s; the intervals overlap).", n, bn, figs)
	case !hasInterval(c) && !hasInterval(base) && !c.Contended && !base.Contended && tied(min(a, b), max(a, b)):
		return s + fmt.Sprintf(": %s and %s sustain about the same rate (%s, within %.0f%%).", n, bn, figs, 100*(tieRatio-1))
	}
	hi, lo, more := c, base, "higher"
	if a < b {
		hi, lo, more = base, c, "lower"
	}
	if lo.Contended {
		// Its quiet rate may be as high as the other's: no order.
		return s + fmt.Sprintf(": not compared: %s's %s is a lower bound (other load took CPU from its steps), below %s's %s.",
			esc(lo.Env), capacityFigure(lo, true), esc(hi.Env), capacityFigure(hi, true))
	}
	ratio := "none sustained"
	switch {
	case lo.SustainableMBps > 0 && hi.Contended:
		ratio = "at least " + ratioText(hi.SustainableMBps/lo.SustainableMBps)
	case lo.SustainableMBps > 0:
		ratio = ratioText(hi.SustainableMBps / lo.SustainableMBps)
	}
	s += fmt.Sprintf(": %s sustains a %s rate than %s (%s; %s)", n, more, bn, figs, ratio)
	if lim := lo.Limit; lim != results.LimitNone {
		s += fmt.Sprintf("; %s is first limited by %s", esc(lo.Env), esc(string(lim)))
	}
	return s + "."
}

// hasInterval says whether a search has an interval around its
// sustainable rate (a summary written before the fit has none).
func hasInterval(c results.Capacity) bool {
	return c.SustainableHiMBps > 0 && c.SustainableLoMBps > 0
}

// capacityOverlap says whether two searches' intervals overlap: neither
// contended (a lower bound has no upper end) and both with an interval.
func capacityOverlap(a, b results.Capacity) bool {
	if a.Contended || b.Contended || !hasInterval(a) || !hasInterval(b) {
		return false
	}
	return a.SustainableLoMBps <= b.SustainableHiMBps && b.SustainableLoMBps <= a.SustainableHiMBps
}
