package benchgate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// maxSummaryThresholds bounds the calibrated thresholds a summary lists:
// a file may hold one per benchmark.
const maxSummaryThresholds = 3

// thresholdsSummary names the thresholds that judged the report's rows, for
// its summary line: "threshold 10%" when Options.Threshold judged every
// gated row (or there is none), else each threshold with what it judged,
// grouped by its source, so that an instruction-mode summary names the 1%
// and 2% unit gates that decided rather than a default no row used:
// "thresholds 1% instructions/op, 2% est-cycles/op, 5% and +0.5pt
// D1-misses/op and LL-misses/op (unit gates)".
func (r *Report) thresholdsSummary() string {
	type group struct {
		source string
		byTh   map[string][]string // threshold text -> units (or benchmarks)
		order  []string
	}
	var groups []*group
	find := func(source string) *group {
		for _, g := range groups {
			if g.source == source {
				return g
			}
		}
		g := &group{source: source, byTh: map[string][]string{}}
		groups = append(groups, g)
		return g
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Exact || row.ThresholdFrom == "" {
			continue
		}
		source, what := summarySource(row.ThresholdFrom), summaryName(row.Unit)
		g := find(source)
		th := row.thresholdAmount()
		if _, ok := g.byTh[th]; !ok {
			g.order = append(g.order, th)
		}
		if !slices.Contains(g.byTh[th], what) {
			g.byTh[th] = append(g.byTh[th], what)
		}
	}
	if len(groups) == 0 || len(groups) == 1 && groups[0].source == "default" {
		return "threshold " + formatPct(r.Options.Threshold)
	}
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		var ths []string
		for _, th := range g.order {
			if g.source == "unit gates" {
				ths = append(ths, th+" "+joinAnd(g.byTh[th]))
			} else {
				ths = append(ths, th)
			}
		}
		if g.source != "unit gates" && len(ths) > maxSummaryThresholds {
			ths = append(ths[:maxSummaryThresholds], fmt.Sprintf("%d more", len(ths)-maxSummaryThresholds))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(ths, ", "), g.source))
	}
	return "thresholds " + strings.Join(parts, "; ")
}

// summarySource is a threshold's source as the summary names it: the unit
// gates together, a calibrated file by its base name (no local path in a
// report).
func summarySource(from string) string {
	switch {
	case strings.HasPrefix(from, "unit gate"):
		return "unit gates"
	case strings.HasPrefix(from, "calibrated "):
		return "calibrated " + summaryName(filepath.Base(strings.TrimPrefix(from, "calibrated ")))
	}
	return summaryName(from)
}

// summaryName is s when it is plain text (letters, digits and -_./%+),
// else "?": the summary heads the Markdown report, where a unit or file
// name from the inputs must not render as markup.
func summaryName(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./%+", r)) {
			return "?"
		}
	}
	return s
}

// thresholdAmount prints a row's threshold without its source (see
// thresholdCell).
func (row *Row) thresholdAmount() string {
	switch {
	case row.ThresholdAbs:
		return fmt.Sprintf("+%gpt", row.Threshold)
	case row.ThresholdFloor > 0:
		return fmt.Sprintf("%s and +%gpt", formatPct(round4(row.Threshold)), row.ThresholdFloor)
	}
	return formatPct(round4(row.Threshold))
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
