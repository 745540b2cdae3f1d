package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Charts names the chart files of a results folder (PNG and SVG): the
// timelines, the throughput chart and the capacity knee chart.
const Charts Name = "charts"

var chartsFormat = Format{Name: Charts, When: AtRun | AtRebuild, Owns: isChart,
	Files: func(sink Sink, sum *results.Summary, _ []string) ([]string, error) { return WriteCharts(sink, sum) }}

// isChart reports whether name is a chart a run writes.
func isChart(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".svg" && ext != ".png" {
		return false
	}
	stem := strings.TrimSuffix(name, ext)
	return stem == "throughput" || stem == "capacity" || stem == mmuChart || strings.HasPrefix(stem, "timeline-") || strings.HasPrefix(stem, frontierChartPrefix) || isReaderChart(stem)
}

// WriteCharts draws the run's charts into dir, each as SVG and PNG, and
// returns their file names (relative to dir):
//   - timeline-<value>.{svg,png} per matrix value size, and
//     timeline-failure.{svg,png} for the failure and stall scenarios: four
//     panels over time, one line per scenario: MB/s; heap object bytes
//     (solid: the figure the "heap above goal" rule compares with the
//     goal), the heap goal (dashed) and GOMEMLIMIT (dotted); RSS, with
//     the hard RSS cap as a labelled line in the failure chart (and in any
//     whose scenario stopped at the cap); GC CPU % of busy CPU (per span of
//     windows holding a completed cycle, as classified). A failed scenario
//     is marked by a vertical line at its failure time in every panel,
//     labelled with its class in the RSS panel. A scenario's end record
//     is its line's last point, and a line of one point is drawn as a
//     marker, so a run that ended within its first window still shows;
//   - throughput.{svg,png}: MB/s by value size, one line of points per kind
//     on a log scale (MB/s spans orders of magnitude from 10 B to 10 KB
//     values), each point labelled with its figure; a failed scenario has
//     no point (the addendum's "?").
//
// Every line is in its kind's colour (view.KindColour: the same on
// report.html and the live page), and every legend sits right of its
// panel's plotting area, never on the data (drawPanels). Each file goes
// through the sink (written atomically and recorded in the folder's
// manifest).
func WriteCharts(o Sink, sum *results.Summary) ([]string, error) {
	var files []string
	type grp struct {
		name string
		rs   []results.Result
	}
	var groups []grp
	idx := map[string]int{}
	for _, r := range sum.Results {
		if len(r.Windows) == 0 && r.End == nil {
			continue // nothing to draw: a child that died before its first window
		}
		name := workload.FormatSize(r.Scenario.Value)
		switch r.Scenario.Group {
		case results.SetMatrix:
		case results.SetCapacity:
			continue // one short run per step: the knee chart draws them (charts_capacity.go)
		case results.SetFrontier:
			continue // one run per grid point: the frontier charts draw them (charts_frontier.go)
		case results.SetCollapse:
			name = results.SetCollapse
		default:
			name = results.SetFailure // the failure scenario and its stall variant
		}
		i, ok := idx[name]
		if !ok {
			i = len(groups)
			idx[name] = i
			groups = append(groups, grp{name: name})
		}
		groups[i].rs = append(groups[i].rs, r)
	}
	for _, g := range groups {
		base := "timeline-" + g.name
		title := "values " + g.name
		switch g.name {
		case results.SetFailure:
			title = "failure scenario (memory cap, flush slower than ingest, backpressure off; stall = on)"
		case results.SetCollapse:
			title = "collapse scenario (closed loop under GOMEMLIMIT; depends on the machine's spare CPU)"
		}
		panels := timelinePanels(title, g.rs, g.name == results.SetFailure || stoppedAtCap(g.rs))
		if err := saveTiles(o, base, panels, 12*vg.Inch, 12*vg.Inch); err != nil {
			return files, err
		}
		files = append(files, base+".svg", base+".png")
	}
	knee, err := writeKneeChart(o, sum.Capacity)
	if err != nil {
		return files, err
	}
	files = append(files, knee...)
	front, err := writeFrontierCharts(o, sum)
	if err != nil {
		return files, err
	}
	files = append(files, front...)
	if len(writeMatrix(sum.Results)) > 0 { // a mix has its own charts (readers.go)
		p := throughputPlot(writeMatrix(sum.Results))
		if err := saveTiles(o, "throughput", []*panel{p}, 9*vg.Inch, 5*vg.Inch); err != nil {
			return files, err
		}
		files = append(files, "throughput.svg", "throughput.png")
	}
	mmu, err := writeMMUChart(o, sum.Results) // mmu.go
	if err != nil {
		return files, err
	}
	files = append(files, mmu...)
	readers, err := writeReaderCharts(o, sum.Results) // readers.go
	return append(files, readers...), err
}

// stoppedAtCap reports whether a scenario of rs stopped at its hard RSS cap.
func stoppedAtCap(rs []results.Result) bool {
	return slices.ContainsFunc(rs, func(r results.Result) bool { return r.Exit.RSSCap })
}

// lineLabel is a line's legend: control characters escaped (they are not
// valid XML in the SVG; vgsvg escapes the rest).
func lineLabel(r results.Result) string {
	if r.Scenario.Group == "matrix" {
		return escape.Terminal(kindColumn(r.Scenario)) // the kind, with its build environment when it has one
	}
	return escape.Terminal(r.Scenario.Name)
}

// The heap panel's dash patterns: the heap goal and GOMEMLIMIT.
var (
	goalDashes  = []vg.Length{vg.Points(5), vg.Points(3)}
	limitDashes = []vg.Length{vg.Points(1), vg.Points(3)}
)

// HeapAxisLabel names the heap panel's solid lines: the figure the "heap
// above goal" rule compares with the goal (results.Sample.HeapObjects,
// /gc/heap/objects:bytes), not the live heap.
const heapAxisLabel = "heap object bytes, MiB"

// timeline is one scenario's points over time, one series per figure.
type timeline struct{ mbps, objects, goal, limit, rss, gc plotter.XYs }

func (tl *timeline) add(w results.Sample, gcPct float64) {
	tl.mbps = append(tl.mbps, plotter.XY{X: w.T, Y: w.MBps})
	tl.objects = append(tl.objects, plotter.XY{X: w.T, Y: float64(w.HeapObjects) / (1 << 20)})
	tl.goal = append(tl.goal, plotter.XY{X: w.T, Y: float64(w.HeapGoal) / (1 << 20)})
	if w.MemLimit > 0 {
		tl.limit = append(tl.limit, plotter.XY{X: w.T, Y: float64(w.MemLimit) / (1 << 20)})
	}
	tl.rss = append(tl.rss, plotter.XY{X: w.T, Y: float64(w.RSS) / (1 << 20)})
	tl.gc = append(tl.gc, plotter.XY{X: w.T, Y: gcPct})
}

// timelineOf is r's windows, the GC share of each as classified (per
// span), then its end record as the last point (MB/s over the whole run).
func timelineOf(r results.Result) timeline {
	var tl timeline
	for j, w := range r.Windows {
		g := w.GCPct
		if j < len(r.Verdict.Windows) {
			g = r.Verdict.Windows[j].GCPct
		}
		tl.add(w, g)
	}
	if e := r.End; e != nil && (len(tl.mbps) == 0 || e.T > tl.mbps[len(tl.mbps)-1].X) {
		tl.add(*e, e.GCPct)
	}
	return tl
}

// timelinePanels are a timeline chart's panels, one line per scenario in
// its kind's colour: MB/s; heap object bytes (solid: what "heap above
// goal" compares), heap goal (dashed) and GOMEMLIMIT (dotted); RSS, with
// the hard RSS cap when withCap; GC CPU %. A failed scenario is marked in
// every panel at its failure time (markFailures).
func timelinePanels(title string, rs []results.Result, withCap bool) []*panel {
	mbps, heap, rss, gc := newPanel(), newPanel(), newPanel(), newPanel()
	mbps.Title.Text = title
	mbps.Y.Label.Text = "MB/s (10^6 B/s)"
	heap.Y.Label.Text = heapAxisLabel
	rss.Y.Label.Text = "RSS MiB"
	gc.Y.Label.Text = "GC CPU % of busy CPU"
	gc.X.Label.Text = "seconds"
	panels := []*panel{mbps, heap, rss, gc}
	for _, p := range panels {
		p.Y.Min = 0
	}
	kinds := make([]string, len(rs))
	for i, r := range rs {
		kinds[i] = r.Scenario.Kind
	}
	styles, limits := stylesOf(kinds, true), false
	for i, r := range rs {
		tl, st, name := timelineOf(r), styles[i], lineLabel(r)
		addLine(mbps, tl.mbps, st, nil, name, true)
		addLine(heap, tl.objects, st, nil, name, true)
		addLine(heap, tl.goal, st, goalDashes, name+" heap goal", false)
		addLine(heap, tl.limit, st, limitDashes, name+" GOMEMLIMIT", false)
		addLine(rss, tl.rss, st, nil, name, true)
		addLine(gc, tl.gc, st, nil, name, true)
		limits = limits || len(tl.limit) > 0
	}
	heap.addLegend("solid: heap object bytes", nil, keyLine(nil))
	heap.addLegend("dashed: heap goal", nil, keyLine(goalDashes))
	if limits {
		heap.addLegend("dotted: GOMEMLIMIT", nil, keyLine(limitDashes))
	}
	if withCap {
		addRSSCaps(rss, rs)
	}
	markFailures(panels, rss, rs, styles)
	return panels
}

// addRSSCaps draws each distinct hard RSS cap of rs as a labelled
// horizontal line ("RSS cap 200 MiB").
func addRSSCaps(rss *panel, rs []results.Result) {
	var caps []int64
	for _, r := range rs {
		if c := r.Scenario.RSSCap; c > 0 && !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	slices.Sort(caps)
	for _, c := range caps {
		text := fmt.Sprintf("RSS cap %s", results.MiB(uint64(c)))
		l := &level{y: float64(c) / (1 << 20), text: text,
			style: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
		rss.Add(l)
		rss.addLegend(text, nil, l)
	}
}

// failureOf is when r failed, in seconds since its load started: the
// verdict's failure time, else (no window before it failed) its end
// record's; ok is false for a scenario that did not fail.
func failureOf(r results.Result) (t float64, ok bool) {
	if r.Verdict.Class != results.Failed {
		return 0, false
	}
	t = r.Verdict.FailedT
	if t == 0 && r.End != nil {
		t = r.End.T
	}
	return t, true
}

// failCause is a failed scenario's cause in a few words.
func failCause(r results.Result) string {
	switch {
	case r.Exit.RSSCap:
		return "RSS cap"
	case r.Exit.Stalled:
		return "stalled"
	case r.Exit.Died:
		return "died"
	}
	return "live heap near GOMEMLIMIT, throughput collapsed"
}

// markFailures draws a vertical line in every panel, in the scenario's
// style, where each failed scenario of rs failed; in the RSS panel it is
// labelled with the scenario and its class, and named in the legend with
// the time and cause.
func markFailures(panels []*panel, rss *panel, rs []results.Result, styles []lineStyle) {
	row := 0
	for i, r := range rs {
		t, ok := failureOf(r)
		if !ok {
			continue
		}
		sty := draw.LineStyle{Color: styles[i].colour, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
		for _, p := range panels {
			m := &marker{t: t, style: sty}
			if p == rss {
				m.text, m.row = fmt.Sprintf("%s %s", lineLabel(r), r.Verdict.Class), row
				p.addLegend(fmt.Sprintf("%s %s at %.1f s (%s)", lineLabel(r), r.Verdict.Class, t, failCause(r)), nil, m)
			}
			p.Add(m)
		}
		row++
	}
}

func throughputPlot(rs []results.Result) *panel {
	p := newPanel()
	p.Title.Text = "Random write throughput by value size (MB/s, log scale; failed = no point)"
	p.Y.Label.Text = "MB/s (key+value, MB = 10^6 B)"
	tp := throughputData(rs)
	lo, hi := math.Inf(1), 0.0
	kinds := make([]string, len(tp.Kinds))
	for i, k := range tp.Kinds {
		kinds[i] = k.Kind
		for _, v := range k.MBps {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == 0 { // every scenario failed: an empty log axis
		lo, hi = 1, 10
	}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo/2, hi*2
	styles, n := stylesOf(kinds, false), len(tp.Kinds)
	for ki, k := range tp.Kinds {
		off := 0.12 * (float64(ki) - float64(n-1)/2) // side by side, as bars were
		var xys plotter.XYs
		var labels []string
		for vi, v := range k.MBps {
			if v > 0 {
				xys = append(xys, plotter.XY{X: float64(vi) + off, Y: v})
				labels = append(labels, mbpsLabel(v))
			}
		}
		throughputLine(p, xys, labels, styles[ki], escape.Terminal(k.Kind))
	}
	p.NominalX(tp.Values...)
	p.X.Min, p.X.Max = -0.5, float64(len(tp.Values))-0.5
	return p
}

// throughputLine adds one kind's points, each labelled with its figure.
func throughputLine(p *panel, xys plotter.XYs, labels []string, st lineStyle, name string) {
	if len(xys) == 0 {
		return
	}
	l, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	l.Color, l.Width, l.Dashes = st.colour, vg.Points(1), st.dashes
	pts.Color, pts.Shape, pts.Radius = st.colour, draw.CircleGlyph{}, vg.Points(4)
	p.Add(l, pts)
	p.series = append(p.series, seriesRecord{name: name, colour: st.colour, xys: xys})
	p.addLegend(name, st.colour, l, pts)
	if lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels}); err == nil {
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = vg.Points(8)
			lb.TextStyle[i].Color = st.colour
		}
		p.Add(lb)
	}
}

// mbpsLabel is a figure for a point's label: whole MB/s, one decimal below 10.
func mbpsLabel(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func writerTo(wt io.WriterTo) func(io.Writer) error {
	return func(w io.Writer) error { _, err := wt.WriteTo(w); return err }
}
