package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/writegc/writegc/gcstress/internal/mix"
	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
)

// The reader tables, sentences and charts of mixed workloads
// (Scenario.Mixed): per mix, one row per scenario and operation type
// (latency from intended start), and one row per scenario of its reads
// inside and outside the collector's mark phases.

// mixGroup is a mix's results, in run order.
type mixGroup struct {
	mix string
	rs  []results.Result
}

// mixGroups gathers the mixed scenarios with an end record by mix, in
// order of first appearance.
func mixGroups(rs []results.Result) []mixGroup {
	var gs []mixGroup
	for _, r := range rs {
		if !r.Scenario.Mixed() || r.End == nil {
			continue
		}
		i := slices.IndexFunc(gs, func(g mixGroup) bool { return g.mix == r.Scenario.Mix })
		if i < 0 {
			i = len(gs)
			gs = append(gs, mixGroup{mix: r.Scenario.Mix})
		}
		gs[i].rs = append(gs[i].rs, r)
	}
	return gs
}

// mixTitle is a mix's heading: "mix b (95% read, 5% update)".
func mixTitle(name string) string {
	m, err := mix.Parse(name)
	if err != nil {
		return "mix " + name
	}
	return fmt.Sprintf("mix %s (%s)", name, m.Describe())
}

// opsTable is one row per scenario and operation type of g.
func opsTable(g mixGroup) (header []string, rows [][]string) {
	header = []string{"Scenario", "Op", "Ops", "Timed", "Misses", "p50", "p99", "p99.9", "max", "p99 service"}
	for _, r := range g.rs {
		for _, op := range mix.Ops() {
			o, ok := r.End.Ops[op.String()]
			if !ok {
				continue
			}
			rows = append(rows, []string{r.Scenario.RunLabel(), op.String(), commas(o.Count), commas(o.N), commas(o.Misses),
				view.NS(o.ILatP50), view.NS(o.ILatP99), view.NS(o.ILatP999), view.NS(o.ILatMax), view.NS(o.LatP99)})
		}
	}
	return header, rows
}

// markTable is one row per scenario of g: its reads in and outside mark,
// the slow reads' overlap with the collector, and the trace's cost.
func markTable(g mixGroup) (header []string, rows [][]string) {
	header = []string{"Scenario", "Reads in mark", "In mark p50/p99/p99.9", "Outside mark p50/p99/p99.9", "Slow reads in GC", "mark / pause / assist", "Time in mark", "Trace"}
	for _, r := range g.rs {
		e := r.End
		a := e.ReadAttribution
		if a == nil {
			continue
		}
		if a.Source != results.AttributionTrace {
			rows = append(rows, []string{r.Scenario.RunLabel(), "-", "-", "-", "-", "-", "-", "off: " + a.Note})
			continue
		}
		in, out := e.ReadInMark, e.ReadOutsideMark
		slow := "-"
		if e.SlowReadsInGCPct != nil {
			slow = fmt.Sprintf("%.0f%%", *e.SlowReadsInGCPct)
		}
		rows = append(rows, []string{r.Scenario.RunLabel(), fmt.Sprintf("%s (%.1f%%)", commas(in.N), a.AllInMarkPct), readText(in), readText(out), slow,
			fmt.Sprintf("%.0f%% / %.0f%% / %.0f%%", a.SlowInMarkPct, a.SlowInPausePct, a.SlowInAssistPct),
			fmt.Sprintf("%.1f%% (%d cycle(s))", a.MarkPct, a.Cycles), fmt.Sprintf("%.1f MiB, %s events, parsed in %.2fs", float64(a.TraceBytes)/(1<<20), commas(a.TraceEvents), a.ParseSeconds)})
	}
	return header, rows
}

func readText(l *results.ReadLatency) string {
	if l == nil || l.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%s/%s/%s", view.NS(l.ILatP50), view.NS(l.ILatP99), view.NS(l.ILatP999))
}

// readerNote explains the reader tables.
const readerNote = "Latency from each operation's intended start on the open-loop schedule (its actual start when not late, or in a closed loop); " +
	"one operation in -latency-every timed; misses are reads that found nothing (a record already flushed, where flushes keep nothing) and are timed like hits. " +
	"A read is in mark when its interval overlapped a GC mark phase (with the sweep and mark termination pauses that bracket it), from a runtime trace of the measured phase; " +
	"slow reads are those at or above the p99 of all reads, and their overlap with a mark phase, a stop-the-world pause or a mark assist on the reader's goroutine is the share of them that did. " +
	"The trace's cost is its size and parse time (after the run); the tracer's CPU is measured by a run with -read-trace off (results/readers-under-gc)."

// readerSentence is the conclusion of one scenario's readers: "heap's
// readers (100B, mix b): p99 2.1ms during mark vs 40µs outside; 38% of
// the slow reads overlapped GC work".
func readerSentence(r results.Result, esc func(string) string) string {
	e := r.End
	if e.ReadInMark == nil || e.ReadOutsideMark == nil {
		return ""
	}
	s := fmt.Sprintf("%s's readers (%s, mix %s): ", esc(r.Scenario.Kind), workload.FormatSize(r.Scenario.Value), esc(r.Scenario.Mix))
	if e.ReadInMark.N == 0 {
		s += fmt.Sprintf("no read overlapped a mark phase; p99 %s", view.NS(e.ReadOutsideMark.ILatP99))
	} else {
		s += fmt.Sprintf("p99 %s during mark vs %s outside", view.NS(e.ReadInMark.ILatP99), view.NS(e.ReadOutsideMark.ILatP99))
	}
	if e.SlowReadsInGCPct != nil {
		s += fmt.Sprintf("; %.0f%% of the slow reads overlapped GC work", *e.SlowReadsInGCPct)
	}
	return s + "."
}

// readerConclusions is every mixed scenario's reader sentence.
func readerConclusions(rs []results.Result, esc func(string) string) []string {
	var out []string
	for _, g := range mixGroups(rs) {
		for _, r := range g.rs {
			if s := readerSentence(r, esc); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// writeReaderTables writes, per mix, its heading (md: a Markdown heading;
// else a terminal line), the operations table, the mark table and the
// note; nothing without mixed scenarios.
func writeReaderTables(w io.Writer, rs []results.Result, md bool, esc func(string) string) {
	for _, g := range mixGroups(rs) {
		if md {
			fmt.Fprintf(w, "\n## Readers under GC: %s\n\n", esc(mixTitle(g.mix)))
		} else {
			fmt.Fprintf(w, "\nReaders under GC, %s:\n", esc(mixTitle(g.mix)))
		}
		h, rows := opsTable(g)
		renderTable(w, h, rows, esc)
		fmt.Fprintln(w)
		h, rows = markTable(g)
		renderTable(w, h, rows, esc)
		fmt.Fprintln(w)
		for _, s := range readerConclusions(g.rs, esc) {
			fmt.Fprintf(w, "- %s\n", s)
		}
		fmt.Fprintf(w, "\n%s\n", readerNote)
	}
}

// readerWebTables are the same tables for report.html.
func readerWebTables(rs []results.Result) []webTable {
	var ts []webTable
	for _, g := range mixGroups(rs) {
		h, rows := opsTable(g)
		ts = append(ts, webTable{Title: "Readers under GC: " + mixTitle(g.mix), Note: readerNote, Header: h, Rows: rows})
		h, rows = markTable(g)
		ts = append(ts, webTable{Title: "Reads in and outside mark: " + mixTitle(g.mix), Note: joinSentences(readerConclusions(g.rs, noEscape)), Header: h, Rows: rows})
	}
	return ts
}

// webReaders is one mix's reader chart in report.html: per scenario
// (labels), each series' nanoseconds (0: none).
type webReaders struct {
	Title  string            `json:"title"`
	Labels []string          `json:"labels"`
	Series []webReaderSeries `json:"series"`
}

// webReaderSeries is one line of a reader chart.
type webReaderSeries struct {
	Label string  `json:"label"`
	Color string  `json:"color"`
	Dash  bool    `json:"dash"`
	NS    []int64 `json:"ns"`
}

// readerWebCharts are report.html's reader charts, the data of
// readerPlot's PNG.
func readerWebCharts(rs []results.Result) []webReaders {
	var out []webReaders
	for _, g := range mixGroups(rs) {
		w := webReaders{Title: "Readers under GC, " + mixTitle(g.mix) + ": read latency from intended start"}
		w.Series = make([]webReaderSeries, 4)
		for i, l := range []string{"p99 in mark", "p99 outside mark", "p50 in mark", "p50 outside mark"} {
			w.Series[i].Label, w.Series[i].Dash = l, i >= 2
			w.Series[i].Color = map[bool]string{true: "#c03030", false: "#3060b0"}[i%2 == 0]
		}
		for _, r := range g.rs {
			in, out := r.End.ReadInMark, r.End.ReadOutsideMark
			if in == nil || out == nil {
				continue
			}
			w.Labels = append(w.Labels, r.Scenario.Kind+" "+workload.FormatSize(r.Scenario.Value))
			for i, v := range []int64{in.ILatP99, out.ILatP99, in.ILatP50, out.ILatP50} {
				w.Series[i].NS = append(w.Series[i].NS, v)
			}
		}
		if len(w.Labels) > 0 {
			out = append(out, w)
		}
	}
	return out
}

func joinSentences(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// isReaderChart reports whether stem is a reader chart's.
func isReaderChart(stem string) bool {
	return len(stem) > len("readers-") && stem[:len("readers-")] == "readers-"
}

// writeReaderCharts draws readers-<mix>.{svg,png} per mix: each
// scenario's read p50 and p99 inside and outside mark, on a log scale.
func writeReaderCharts(o Sink, rs []results.Result) ([]string, error) {
	var files []string
	for _, g := range mixGroups(rs) {
		p := readerPlot(g)
		if p == nil {
			continue
		}
		base := "readers-" + g.mix
		if err := saveTiles(o, base, []*panel{p}, 9*vg.Inch, 5*vg.Inch); err != nil {
			return files, err
		}
		files = append(files, base+".svg", base+".png")
	}
	return files, nil
}

// readerPlot is one mix's chart; nil when no scenario has attributed reads.
func readerPlot(g mixGroup) *panel {
	var labels []string
	series := []struct {
		name string
		fig  func(e *results.Sample) int64
	}{
		{"p99 in mark", func(e *results.Sample) int64 { return e.ReadInMark.ILatP99 }},
		{"p99 outside mark", func(e *results.Sample) int64 { return e.ReadOutsideMark.ILatP99 }},
		{"p50 in mark", func(e *results.Sample) int64 { return e.ReadInMark.ILatP50 }},
		{"p50 outside mark", func(e *results.Sample) int64 { return e.ReadOutsideMark.ILatP50 }},
	}
	xys := make([]plotter.XYs, len(series))
	var pointLabels [4][]string
	lo, hi := math.Inf(1), 0.0
	for _, r := range g.rs {
		e := r.End
		if e.ReadInMark == nil || e.ReadOutsideMark == nil {
			continue
		}
		x := float64(len(labels))
		labels = append(labels, escape.Terminal(r.Scenario.Kind+" "+workload.FormatSize(r.Scenario.Value)))
		for i, s := range series {
			v := float64(s.fig(e)) / 1e3
			if v <= 0 {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			xys[i] = append(xys[i], plotter.XY{X: x + 0.1*(float64(i)-1.5), Y: v})
			pointLabels[i] = append(pointLabels[i], view.NS(s.fig(e)))
		}
	}
	if len(labels) == 0 || hi == 0 {
		return nil
	}
	p := newPanel()
	p.Title.Text = "Readers under GC, " + mixTitle(g.mix) + ": read latency from intended start (µs, log scale)"
	p.Y.Label.Text = "µs"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo/2, hi*2
	inMark, outside := color.RGBA{R: 0xc0, G: 0x30, B: 0x30, A: 0xff}, color.RGBA{R: 0x30, G: 0x60, B: 0xb0, A: 0xff}
	dashed := []vg.Length{vg.Points(4), vg.Points(3)}
	styles := []lineStyle{{colour: inMark}, {colour: outside}, {colour: inMark, dashes: dashed}, {colour: outside, dashes: dashed}}
	for i, s := range series {
		throughputLine(p, xys[i], pointLabels[i], styles[i], s.name)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	return p
}
