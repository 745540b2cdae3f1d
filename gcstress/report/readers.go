package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/writegc/writegc/gcstress/internal/proto"
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
	m, err := proto.Parse(name)
	if err != nil {
		return "mix " + name
	}
	return fmt.Sprintf("mix %s (%s)", name, m.Describe())
}

// writeMatrix is the matrix scenarios of rs that are no mix: what the
// write-throughput table and chart show (a mix's throughput is its own
// table, mixThroughputTable).
func writeMatrix(rs []results.Result) []results.Result {
	var out []results.Result
	for _, r := range group(rs, results.SetMatrix) {
		if !r.Scenario.Mixed() {
			out = append(out, r)
		}
	}
	return out
}

// mixThroughputTable is one row per scenario of g: its operations per
// second over the measured phase, split into reads (gets and scans) and
// writes (updates, inserts and read-modify-writes), the key+value bytes
// they moved, and its health.
func mixThroughputTable(g mixGroup) (header []string, rows [][]string) {
	header = []string{"Scenario", "Ops/s", "Reads/s", "Writes/s", "Key+value MB/s (read and written)", "Health"}
	for _, r := range g.rs {
		e := r.End
		var reads, writes int64
		for op, o := range e.Ops {
			if op == proto.Read.String() || op == proto.Scan.String() {
				reads += o.Count
			} else {
				writes += o.Count
			}
		}
		rate := func(n int64) string {
			if e.T <= 0 {
				return "-"
			}
			return commas(int64(math.Round(float64(n) / e.T)))
		}
		rows = append(rows, []string{r.Scenario.RunLabel(), rate(reads + writes), rate(reads), rate(writes),
			fmt.Sprintf("%.3g", e.MBps), r.Verdict.Label()})
	}
	return header, rows
}

// mixThroughputNote says what the mix throughput table counts.
var mixThroughputNote = "Operations per second over the measured phase (after the preload): reads are gets and scans, writes are updates, inserts and read-modify-writes; " +
	"MB/s counts the key+value bytes the operations read and wrote (MB = 10^6 B). " +
	fmt.Sprintf("A mix whose measured phase completed fewer than %d GC cycles is inconclusive: its collector hardly ran.", results.MinMixCycles)

// opsTable is one row per scenario and operation type of g.
func opsTable(g mixGroup) (header []string, rows [][]string) {
	header = []string{"Scenario", "Op", "Ops", "Timed", "Misses", "p50", "p99", "p99.9", "max", "p99 service"}
	for _, r := range g.rs {
		for _, op := range proto.Ops() {
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
// the test of their difference at p50 and p99, the slow reads' overlap
// with the collector, and the trace's cost. A scenario whose measured
// phase completed too few GC cycles has n/a for every in-mark figure.
func markTable(g mixGroup) (header []string, rows [][]string) {
	header = []string{"Scenario", "Reads in mark", "In mark p50/p99/p99.9", "Outside mark p50/p99/p99.9", "p50 in/out", "p99 in/out",
		"Slow reads in GC", "mark / pause / assist", "Time in mark", "Trace"}
	for _, r := range g.rs {
		e := r.End
		a := e.ReadAttribution
		if a == nil {
			continue
		}
		if a.Source != results.AttributionTrace {
			rows = append(rows, []string{r.Scenario.RunLabel(), "-", "-", "-", "-", "-", "-", "-", "-", "off: " + a.Note})
			continue
		}
		trace := fmt.Sprintf("%.1f MiB, %s events, parsed in %.2fs", float64(a.TraceBytes)/(1<<20), commas(a.TraceEvents), a.ParseSeconds)
		inMark := fmt.Sprintf("%.1f%% (%d cycle(s))", a.MarkPct, a.Cycles)
		if na := markNA(r); na != "" {
			rows = append(rows, []string{r.Scenario.RunLabel(), na, "n/a", readText(e.ReadOutsideMark), "n/a", "n/a", "n/a", "n/a", inMark, trace})
			continue
		}
		in, out := e.ReadInMark, e.ReadOutsideMark
		slow := "-"
		if e.SlowReadsInGCPct != nil {
			slow = fmt.Sprintf("%.0f%%", *e.SlowReadsInGCPct)
		}
		p50, p99 := testCells(in, out, a.Test)
		rows = append(rows, []string{r.Scenario.RunLabel(), fmt.Sprintf("%s (%.1f%%)", commas(in.N), a.AllInMarkPct), readText(in), readText(out), p50, p99, slow,
			fmt.Sprintf("%.0f%% / %.0f%% / %.0f%%", a.SlowInMarkPct, a.SlowInPausePct, a.SlowInAssistPct), inMark, trace})
	}
	return header, rows
}

// markNA is why r's in-mark figures are n/a ("n/a (no GC cycle)"), or ""
// when they stand: its verdict found too few GC cycles in the measured
// phase, or the trace saw no mark phase.
func markNA(r results.Result) string {
	switch {
	case r.Verdict.Cause == results.CauseNoCycle && r.Verdict.FewMixCycles():
		return "n/a (no GC cycle)"
	case r.Verdict.FewMixCycles():
		return "n/a (few GC cycles)"
	case r.End.ReadAttribution != nil && r.End.ReadAttribution.Source == results.AttributionTrace && r.End.ReadAttribution.Cycles == 0:
		return "n/a (no mark phase)"
	}
	return ""
}

// testCells are the p50 and p99 cells of the mark table: the ratio in
// mark / outside and the test's p-value ("12x, p<0.001"), "~" for a
// difference the test does not support; "untested" without a test.
func testCells(in, out *results.ReadLatency, t *results.MarkTest) (p50, p99 string) {
	if in == nil || out == nil || t == nil {
		return "untested", "untested"
	}
	cell := func(a, b int64, p float64) string {
		if p >= results.MixAlpha {
			return "~, " + pText(p)
		}
		return timesText(a, b) + ", " + pText(p)
	}
	return cell(in.ILatP50, out.ILatP50, t.P50P), cell(in.ILatP99, out.ILatP99, t.P99P)
}

// pText is a p-value as the reports print it: "p<0.001", "p=0.03".
func pText(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + strconv.FormatFloat(p, 'g', 2, 64)
}

// timesText is a / b as "12x" or "0.45x"; "-" when b is 0.
func timesText(a, b int64) string {
	if b <= 0 {
		return "-"
	}
	x := float64(a) / float64(b)
	if x >= 10 {
		return fmt.Sprintf("%.0fx", x)
	}
	return strconv.FormatFloat(x, 'g', 2, 64) + "x"
}

func readText(l *results.ReadLatency) string {
	if l == nil || l.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%s/%s/%s", view.NS(l.ILatP50), view.NS(l.ILatP99), view.NS(l.ILatP999))
}

// readerNote explains the reader tables.
var readerNote = "Latency from each operation's intended start on the open-loop schedule (its actual start when not late, or in a closed loop); " +
	"one operation in -latency-every timed; misses are reads that found nothing (a record already flushed, where flushes keep nothing) and are timed like hits. " +
	"A read is in mark when its interval overlapped a GC mark phase (with the sweep and mark termination pauses that bracket it), from a runtime trace of the measured phase; " +
	"slow reads are those at or above the p99 of all reads, and their overlap with a mark phase, a stop-the-world pause or a mark assist on the reader's goroutine is the share of them that did. " +
	"p50 in/out is a Mann-Whitney U test of the reads in mark against the others, p99 in/out Fisher's exact test on how many of each lie above the p99 of both; " +
	fmt.Sprintf("a ratio is given below p=%g, \"~\" otherwise (not distinguishable); the reads of one run are not independent draws, so read a p-value as optimistic. ", results.MixAlpha) +
	fmt.Sprintf("A scenario whose measured phase completed fewer than %d GC cycles has no in-mark figure (n/a). ", results.MinMixCycles) +
	"The trace's cost is its size and parse time (after the run); the tracer's CPU is measured by a run with -read-trace off (results/readers-under-gc)."

// readerSentence is the conclusion of one scenario's readers, saying only
// what its test supports: "heap's readers (100B, mix a): p50 1.2ms during
// mark vs 100.0µs outside (12x, p<0.001); p99 not distinguishable (3.0ms
// vs 2.9ms, p=0.3); n=4,210 in mark, 81,000 outside; 38% of the slow reads
// overlapped GC work (5.3% of all reads overlapped mark)". A scenario whose
// collector hardly ran says so instead, with no in-mark figure.
func readerSentence(r results.Result, esc func(string) string) string {
	e := r.End
	if e.ReadInMark == nil || e.ReadOutsideMark == nil {
		return ""
	}
	in, out, a := e.ReadInMark, e.ReadOutsideMark, e.ReadAttribution
	s := fmt.Sprintf("%s's readers (%s, mix %s): ", esc(r.Scenario.Kind), workload.FormatSize(r.Scenario.Value), esc(r.Scenario.Mix))
	if na := markNA(r); na != "" {
		if r.Verdict.FewMixCycles() {
			s += r.Verdict.Label() + ": " + esc(strings.SplitN(r.Verdict.Why, ";", 2)[0])
		} else {
			s += "the trace saw no mark phase"
		}
		return s + fmt.Sprintf("; in-mark figures n/a; p99 of all reads %s.", view.NS(out.ILatP99))
	}
	n := fmt.Sprintf("n=%s in mark, %s outside", commas(in.N), commas(out.N))
	switch {
	case a != nil && a.Test != nil:
		s += quantileClause("p50", in.ILatP50, out.ILatP50, a.Test.P50P) + "; " + quantileClause("p99", in.ILatP99, out.ILatP99, a.Test.P99P) + "; " + n
	case in.N < results.MinMarkTestReads || out.N < results.MinMarkTestReads:
		s += fmt.Sprintf("only %s reads overlapped a mark phase (of %s), too few to compare", commas(in.N), commas(in.N+out.N))
	default:
		s += fmt.Sprintf("p50 %s during mark vs %s outside, p99 %s vs %s (untested: recorded before the test); %s",
			view.NS(in.ILatP50), view.NS(out.ILatP50), view.NS(in.ILatP99), view.NS(out.ILatP99), n)
	}
	if e.SlowReadsInGCPct != nil && a != nil {
		s += fmt.Sprintf("; %.0f%% of the slow reads overlapped GC work (%.1f%% of all reads overlapped mark)", *e.SlowReadsInGCPct, a.AllInMarkPct)
	}
	return s + "."
}

// quantileClause states one quantile's comparison as far as its p-value
// supports it: "p50 1.2ms during mark vs 100.0µs outside (12x, p<0.001)",
// or "p99 not distinguishable (3.0ms vs 2.9ms, p=0.3)".
func quantileClause(q string, in, out int64, p float64) string {
	if p >= results.MixAlpha {
		return fmt.Sprintf("%s not distinguishable (%s vs %s, %s)", q, view.NS(in), view.NS(out), pText(p))
	}
	return fmt.Sprintf("%s %s during mark vs %s outside (%s, %s)", q, view.NS(in), view.NS(out), timesText(in, out), pText(p))
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
// else a terminal line), the throughput table (ops/s, reads and writes,
// health), the operations table, the mark table and the note; nothing
// without mixed scenarios.
func writeReaderTables(w io.Writer, rs []results.Result, md bool, esc func(string) string) {
	for _, g := range mixGroups(rs) {
		if md {
			fmt.Fprintf(w, "\n## Readers under GC: %s\n\n", esc(mixTitle(g.mix)))
		} else {
			fmt.Fprintf(w, "\nReaders under GC, %s:\n", esc(mixTitle(g.mix)))
		}
		h, rows := mixThroughputTable(g)
		renderTable(w, h, rows, esc)
		fmt.Fprintf(w, "\n%s\n\n", mixThroughputNote)
		h, rows = opsTable(g)
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
		h, rows := mixThroughputTable(g)
		ts = append(ts, webTable{Title: "Throughput of " + mixTitle(g.mix) + ": ops/s, reads and writes", Note: mixThroughputNote, Header: h, Rows: rows})
		h, rows = opsTable(g)
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
			na := markNA(r) != ""
			for i, v := range []int64{in.ILatP99, out.ILatP99, in.ILatP50, out.ILatP50} {
				if na && i%2 == 0 {
					v = 0 // no in-mark figure: no point
				}
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
// A scenario whose in-mark figures are n/a (markNA) has outside points only.
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
		na := markNA(r) != ""
		for i, s := range series {
			v := float64(s.fig(e)) / 1e3
			if v <= 0 || na && i%2 == 0 { // in-mark series: no point where they are n/a
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
