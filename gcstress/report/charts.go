package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
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
	return stem == "throughput" || stem == "capacity" || strings.HasPrefix(stem, "timeline-")
}

// WriteCharts draws the run's charts into dir, each as SVG and PNG, and
// returns their file names (relative to dir):
//   - timeline-<value>.{svg,png} per matrix value size, and
//     timeline-failure.{svg,png} for the failure and stall scenarios: three
//     panels over time, one line per kind: MB/s; heap live (solid), goal
//     (dashed) and GOMEMLIMIT (dotted); GC CPU % of busy CPU (per span of
//     windows holding a completed cycle, as classified);
//     A scenario's end record is its line's last point, and a line of one
//     point is drawn as a marker, so a run that ended within its first
//     window still shows;
//   - throughput.{svg,png}: MB/s by value size, one line of points per kind
//     on a log scale (MB/s spans orders of magnitude from 10 B to 10 KB
//     values), each point labelled with its figure; a failed scenario has
//     no point (the addendum's "?").
//
// Each file goes through the sink (written atomically and recorded in
// the folder's manifest).
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
		plots := timelinePlots(title, g.rs)
		if err := saveTiles(o, base, plots, 9*vg.Inch, 10*vg.Inch); err != nil {
			return files, err
		}
		files = append(files, base+".svg", base+".png")
	}
	knee, err := writeKneeChart(o, sum.Capacity)
	if err != nil {
		return files, err
	}
	files = append(files, knee...)
	if len(group(sum.Results, "matrix")) > 0 {
		p := throughputPlot(group(sum.Results, "matrix"))
		if err := saveTiles(o, "throughput", []*plot.Plot{p}, 8*vg.Inch, 5*vg.Inch); err != nil {
			return files, err
		}
		files = append(files, "throughput.svg", "throughput.png")
	}
	return files, nil
}

// lineLabel is a line's legend: control characters escaped (they are not
// valid XML in the SVG; vgsvg escapes the rest).
func lineLabel(r results.Result) string {
	if r.Scenario.Group == "matrix" {
		return escape.Terminal(r.Scenario.Kind)
	}
	return escape.Terminal(r.Scenario.Name)
}

func timelinePlots(title string, rs []results.Result) []*plot.Plot {
	mbps, heap, gc := plot.New(), plot.New(), plot.New()
	mbps.Title.Text = title
	mbps.Y.Label.Text = "MB/s (10^6 B/s)"
	heap.Y.Label.Text = "heap MiB (live solid, goal dashed, limit dotted)"
	gc.Y.Label.Text = "GC CPU % of busy CPU"
	gc.X.Label.Text = "seconds"
	for _, p := range []*plot.Plot{mbps, heap, gc} {
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		p.Y.Min = 0
	}
	for i, r := range rs {
		c := plotutil.Color(i)
		var xm, live, goal, lim, gcp plotter.XYs
		for j, w := range r.Windows {
			xm = append(xm, plotter.XY{X: w.T, Y: w.MBps})
			live = append(live, plotter.XY{X: w.T, Y: float64(w.HeapLive) / (1 << 20)})
			goal = append(goal, plotter.XY{X: w.T, Y: float64(w.HeapGoal) / (1 << 20)})
			if w.MemLimit > 0 {
				lim = append(lim, plotter.XY{X: w.T, Y: float64(w.MemLimit) / (1 << 20)})
			}
			g := w.GCPct
			if j < len(r.Verdict.Windows) {
				g = r.Verdict.Windows[j].GCPct
			}
			gcp = append(gcp, plotter.XY{X: w.T, Y: g})
		}
		if e := r.End; e != nil && (len(xm) == 0 || e.T > xm[len(xm)-1].X) {
			// The end record: the run's last point (MB/s over the whole run).
			xm = append(xm, plotter.XY{X: e.T, Y: e.MBps})
			live = append(live, plotter.XY{X: e.T, Y: float64(e.HeapLive) / (1 << 20)})
			goal = append(goal, plotter.XY{X: e.T, Y: float64(e.HeapGoal) / (1 << 20)})
			if e.MemLimit > 0 {
				lim = append(lim, plotter.XY{X: e.T, Y: float64(e.MemLimit) / (1 << 20)})
			}
			gcp = append(gcp, plotter.XY{X: e.T, Y: e.GCPct})
		}
		addLine(mbps, xm, c, nil, lineLabel(r))
		addLine(heap, live, c, nil, lineLabel(r))
		addLine(heap, goal, c, []vg.Length{vg.Points(5), vg.Points(3)}, "")
		if len(lim) > 0 {
			addLine(heap, lim, c, []vg.Length{vg.Points(1), vg.Points(3)}, "")
		}
		addLine(gc, gcp, c, nil, lineLabel(r))
	}
	return []*plot.Plot{mbps, heap, gc}
}

func addLine(p *plot.Plot, xys plotter.XYs, c color.Color, dashes []vg.Length, label string) {
	if len(xys) == 0 {
		return
	}
	l, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	l.Color = c
	l.Width = vg.Points(1.5)
	l.Dashes = dashes
	p.Add(l)
	if len(xys) <= 3 { // too few points for a line to be seen: mark them
		pts.Color = c
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(3)
		p.Add(pts)
	}
	if label != "" {
		p.Legend.Add(label, l)
	}
}

func throughputPlot(rs []results.Result) *plot.Plot {
	p := plot.New()
	p.Title.Text = "Random write throughput by value size (MB/s, log scale; failed = no point)"
	p.Y.Label.Text = "MB/s (key+value, MB = 10^6 B)"
	tp := throughputData(rs)
	lo, hi := math.Inf(1), 0.0
	for _, k := range tp.Kinds {
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
	n := len(tp.Kinds)
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
		if len(xys) == 0 {
			continue
		}
		c := plotutil.Color(ki)
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		l.Color, l.Width = c, vg.Points(1)
		pts.Color, pts.Shape, pts.Radius = c, draw.CircleGlyph{}, vg.Points(4)
		p.Add(l, pts)
		p.Legend.Add(escape.Terminal(k.Kind), l, pts)
		if lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels}); err == nil {
			lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
			for i := range lb.TextStyle {
				lb.TextStyle[i].Font.Size = vg.Points(8)
				lb.TextStyle[i].Color = c
			}
			p.Add(lb)
		}
	}
	p.NominalX(tp.Values...)
	p.X.Min, p.X.Max = -0.5, float64(len(tp.Values))-0.5
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// mbpsLabel is a figure for a point's label: whole MB/s, one decimal below 10.
func mbpsLabel(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// saveTiles draws plots stacked vertically into base.svg and base.png.
func saveTiles(o Sink, base string, plots []*plot.Plot, w, h vg.Length) error {
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(12), PadY: vg.Points(10)}
	draws := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		canv := plot.Align(rows, tiles, dc)
		for i := range rows {
			rows[i][0].Draw(canv[i][0])
		}
	}
	svg := vgsvg.New(w, h)
	draws(svg)
	if err := o.Write(base+".svg", writerTo(svg)); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))
	draws(img)
	return o.Write(base+".png", writerTo(vgimg.PngCanvas{Canvas: img}))
}

func writerTo(wt io.WriterTo) func(io.Writer) error {
	return func(w io.Writer) error { _, err := wt.WriteTo(w); return err }
}
