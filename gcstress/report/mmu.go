package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
)

// The collector over time (issue 50): the MMU curves of every traced
// scenario (mmu.{svg,png} and report.html's MMU chart) and the mark-assist
// conclusion. A scenario without a trace has no curve and no clause.

// mmuChart is the chart files' stem.
const mmuChart = "mmu"

// Evidence for an assist clause: a trace that saw at least minAssistCycles
// GC cycles, and at least minAssistSlow ops in the slowest 1% (a share of
// fewer is a handful of ops, not a share).
const (
	minAssistCycles = 2
	minAssistSlow   = 10
)

// mmuRuns are the scenarios with an MMU curve, in order: no capacity step
// or frontier point (one short run each; their tables have them).
func mmuRuns(rs []results.Result) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if r.End != nil && len(r.End.MMU) > 0 && r.Scenario.Group != results.SetCapacity && r.Scenario.Group != results.SetFrontier {
			out = append(out, r)
		}
	}
	return out
}

// mmuLabel is a curve's legend: the scenario's run label.
func mmuLabel(r results.Result) string { return escape.Terminal(r.Scenario.RunLabel()) }

// writeMMUChart draws mmu.{svg,png}: one MMU curve per traced scenario in
// its kind's colour, utilization (0 to 1) against the window on a log
// scale (100 µs to 1 s); nothing without one.
func writeMMUChart(o Sink, rs []results.Result) ([]string, error) {
	runs := mmuRuns(rs)
	if len(runs) == 0 {
		return nil, nil
	}
	p := newPanel()
	p.Title.Text = "Minimum mutator utilization (runtime trace; pauses, background mark workers and assists taken out)"
	p.X.Label.Text = "window (ms, log scale)"
	p.Y.Label.Text = "MMU (share of CPU left to the program)"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	kinds := make([]string, len(runs))
	for i, r := range runs {
		kinds[i] = r.Scenario.Kind
	}
	styles := stylesOf(kinds, true)
	for i, r := range runs {
		var xys plotter.XYs
		for _, pt := range r.End.MMU {
			xys = append(xys, plotter.XY{X: float64(pt.WindowNs) / 1e6, Y: pt.Util})
		}
		addLine(p, xys, styles[i], nil, mmuLabel(r), true)
	}
	if err := saveTiles(o, mmuChart, []*panel{p}, 9*vg.Inch, 5*vg.Inch); err != nil {
		return nil, err
	}
	return []string{mmuChart + ".svg", mmuChart + ".png"}, nil
}

// webMMU is report.html's MMU chart: the windows (ms) and one curve per
// traced scenario.
type webMMU struct {
	WindowsMs []float64      `json:"windows_ms"`
	Series    []webMMUSeries `json:"series"`
}

// webMMUSeries is one scenario's curve (null where it has no point).
type webMMUSeries struct {
	Label string     `json:"label"`
	Color string     `json:"color"`
	Util  []*float64 `json:"util"`
}

// mmuWebChart is the chart's data; nil without a traced scenario.
func mmuWebChart(rs []results.Result) *webMMU {
	runs := mmuRuns(rs)
	if len(runs) == 0 {
		return nil
	}
	var windows []int64
	for _, pt := range runs[0].End.MMU {
		windows = append(windows, pt.WindowNs)
	}
	w := &webMMU{}
	for _, ns := range windows {
		w.WindowsMs = append(w.WindowsMs, float64(ns)/1e6)
	}
	for _, r := range runs {
		s := webMMUSeries{Label: r.Scenario.RunLabel(), Color: view.KindColourHex(r.Scenario.Kind)}
		for _, ns := range windows {
			if u, ok := results.MMUAt(r.End.MMU, ns); ok {
				s.Util = append(s.Util, &u)
			} else {
				s.Util = append(s.Util, nil)
			}
		}
		w.Series = append(w.Series, s)
	}
	return w
}

// opNoun is how a sentence names an operation kind's ops.
func opNoun(kind string, r results.Result) string {
	if kind == results.AssistRead {
		return "reads"
	}
	if r.Scenario.Mixed() {
		return "writes"
	}
	return "Puts"
}

// assistConclusions is one sentence on the mark assists of the traced
// scenarios and their MMU at 10 ms, or none without a trace.
func assistConclusions(rs []results.Result, esc func(string) string) []string {
	runs := mmuRuns(rs)
	if len(runs) == 0 {
		return nil
	}
	var clauses, mmus []string
	for _, r := range runs {
		name := fmt.Sprintf("%s (%s", esc(r.Scenario.Kind), workload.FormatSize(r.Scenario.Value))
		if r.Scenario.Mixed() {
			name += ", mix " + esc(r.Scenario.Mix)
		}
		name += ")"
		if u, ok := results.MMUAt(r.End.MMU, results.MMUWorstWindow); ok {
			mmus = append(mmus, fmt.Sprintf("%s %.2f", name, u))
		}
		for _, kind := range []string{results.AssistWrite, results.AssistRead} {
			if a, ok := r.End.OpAssist[kind]; ok {
				clauses = append(clauses, name+": "+assistClause(r, kind, a))
			}
		}
	}
	s := "Mark assists (runtime trace): " + strings.Join(clauses, "; ") + "."
	if len(clauses) == 0 {
		s = ""
	}
	if len(mmus) > 0 {
		s = strings.TrimSpace(s + " MMU at 10 ms: " + strings.Join(mmus, ", ") + ".")
	}
	return []string{s}
}

// assistClause says what the assists did to one kind of op of r, or why
// that is inconclusive.
func assistClause(r results.Result, kind string, a results.OpAssist) string {
	noun := opNoun(kind, r)
	var cycles int
	if g := r.End.GCTrace; g != nil {
		cycles = g.Cycles
	}
	switch {
	case cycles < minAssistCycles:
		return fmt.Sprintf("inconclusive (its trace saw %d GC cycle(s), fewer than %d)", cycles, minAssistCycles)
	case a.OpsWithAssistPct == 0:
		return fmt.Sprintf("its %s never assisted (%s timed over %d cycles)", noun, commas(a.Ops), cycles)
	case a.SlowestPctWithAssistPct == nil || a.Slowest < minAssistSlow:
		return fmt.Sprintf("inconclusive (%s timed %s: too few for a slowest 1%%)", commas(a.Ops), noun)
	}
	s := fmt.Sprintf("assists were in %.0f%% of its slowest 1%% of %s (%.1f%% of all)", *a.SlowestPctWithAssistPct, noun, a.OpsWithAssistPct)
	if a.P99WithAssistNs != nil && a.P99WithoutAssistNs != nil {
		if d := *a.P99WithAssistNs - *a.P99WithoutAssistNs; d > 0 {
			s += fmt.Sprintf(" and added %s at p99 (%s with an assist, %s without)", view.NS(d), view.NS(*a.P99WithAssistNs), view.NS(*a.P99WithoutAssistNs))
		} else {
			s += fmt.Sprintf(", p99 %s with an assist and %s without", view.NS(*a.P99WithAssistNs), view.NS(*a.P99WithoutAssistNs))
		}
	}
	return s + fmt.Sprintf("; %s of assist per op", view.NS(max(int64(a.AssistNsPerOp), 1)))
}

// mmuTable is the MMU and assist figures per traced scenario: MMU at 1,
// 10 and 100 ms, the worst 10 ms window and when, and per op kind the
// share of ops and of the slowest 1% with an assist and the p99s.
func mmuTable(rs []results.Result) ([]string, [][]string) {
	h := []string{"Scenario", "MMU 1ms", "MMU 10ms", "MMU 100ms", "Worst 10ms at", "Ops", "With assist", "Slowest 1% with assist", "Assist/op", "p99 with", "p99 without", "Trace"}
	var rows [][]string
	for _, r := range mmuRuns(rs) {
		e := r.End
		row := []string{r.Scenario.RunLabel()}
		for _, w := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond} {
			row = append(row, mmuCell(e.MMU, int64(w)))
		}
		worst := "n/a"
		if len(e.MMUWorst) > 0 {
			worst = fmt.Sprintf("%.2f at %.2f s", e.MMUWorst[0].Util, float64(e.MMUWorst[0].StartNs)/1e9)
		}
		row = append(row, worst)
		trace := "n/a"
		if g := e.GCTrace; g != nil && g.Traced {
			trace = fmt.Sprintf("%.1f s, %d cycles", float64(g.SpanNs)/1e9, g.Cycles)
		}
		for _, kind := range []string{results.AssistWrite, results.AssistRead} {
			a, ok := e.OpAssist[kind]
			if !ok {
				continue
			}
			rows = append(rows, append(append(append([]string{}, row...), assistCells(kind, a)...), trace))
		}
	}
	return h, rows
}

// mmuCell is the MMU at window ns, or n/a.
func mmuCell(pts []results.MMUPoint, ns int64) string {
	if u, ok := results.MMUAt(pts, ns); ok {
		return fmt.Sprintf("%.3f", u)
	}
	return "n/a"
}

// assistCells are one op kind's assist cells.
func assistCells(kind string, a results.OpAssist) []string {
	slow, with, without := "n/a", "n/a", "n/a"
	if a.SlowestPctWithAssistPct != nil {
		slow = fmt.Sprintf("%.0f%% of %s", *a.SlowestPctWithAssistPct, commas(a.Slowest))
	}
	if a.P99WithAssistNs != nil {
		with = view.NS(*a.P99WithAssistNs)
	}
	if a.P99WithoutAssistNs != nil {
		without = view.NS(*a.P99WithoutAssistNs)
	}
	per := "0"
	if a.AssistNsPerOp >= 1 {
		per = view.NS(int64(a.AssistNsPerOp))
	}
	return []string{commas(a.Ops) + " " + kind + "s", fmt.Sprintf("%.1f%%", a.OpsWithAssistPct), slow, per, with, without}
}

// mmuNote is the table's note.
const mmuNote = "From the runtime trace of each measured phase (bounded: a long run is traced from its start only; Trace is the span traced). " +
	"MMU: the least share of the CPU the program's goroutines had in any window of that length, the collector's pauses, background mark workers and assists taken out. " +
	"An op is with assist when its own goroutine did a mark assist during it; the slowest 1% are those at or above the p99 of all timed ops of the kind."

// writeMMUTable writes the MMU and assist table under heading (a format
// whose %s is the note), for report.md and the terminal; nothing without
// a traced scenario.
func writeMMUTable(w io.Writer, rs []results.Result, heading string, esc func(string) string) {
	h, rows := mmuTable(rs)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, heading, mmuNote)
	renderTable(w, h, rows, esc)
}
