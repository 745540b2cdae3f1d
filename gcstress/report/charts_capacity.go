package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// writeKneeChart draws capacity.{svg,png}: for every search (kind x value
// size), its steps by target rate (log scale) against the worst GC CPU %
// after warm-up (top) and the p99 from intended start (bottom, log
// scale); healthy steps are filled circles, unhealthy ones crosses, and
// the latency panel marks the p99 limit (SLO). The fits are dotted, the
// sustainable rate's interval a bar along its limit (kneeFits). Each search is in its
// kind's colour (a second value size or build environment of one kind
// dashed), its legend right of the panels, naming the environment. No searches, no chart.
func writeKneeChart(o Sink, cs []results.Capacity) ([]string, error) {
	panels := kneePanels(cs)
	if panels == nil {
		return nil, nil
	}
	if err := saveTiles(o, "capacity", panels, 11*vg.Inch, 8*vg.Inch); err != nil {
		return nil, err
	}
	return []string{"capacity.svg", "capacity.png"}, nil
}

// kneePanels are the capacity chart's two panels (writeKneeChart); nil
// without a search that has steps.
func kneePanels(cs []results.Capacity) []*panel {
	gc, lat := newPanel(), newPanel()
	gc.Title.Text = "Capacity search: each step's GC CPU and p99 from intended start by target rate (o healthy, x unhealthy)"
	gc.Y.Label.Text = "GC CPU % after warm-up (the step's mean; its worst window in older searches)"
	lat.Y.Label.Text = "p99 from intended start (ms)"
	lat.X.Label.Text = "target MB/s (key+value, log scale)"
	lo, hi := math.Inf(1), 0.0
	for _, c := range cs {
		for _, st := range c.Steps {
			lo, hi = math.Min(lo, st.TargetMBps), math.Max(hi, st.TargetMBps)
		}
	}
	if hi == 0 {
		return nil // no search or none with steps (every probe died): nothing to draw
	}
	for _, p := range []*panel{gc, lat} {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = lo/1.5, hi*1.5
	}
	gc.Y.Min = 0
	lat.Y.Scale, lat.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	kinds := make([]string, len(cs))
	for i, c := range cs {
		kinds[i] = c.Kind
	}
	styles := stylesOf(kinds, false)
	for i, c := range cs {
		kneeLines(gc, lat, c, styles[i])
	}
	if lat.Y.Max <= lat.Y.Min { // one p99 for every step: widen, a log axis cannot pad down to 0
		lat.Y.Min, lat.Y.Max = lat.Y.Min/2, lat.Y.Max*2
	}
	if th := thresholdLine(cs[0]); th != nil {
		lat.Add(th)
		lat.addLegend(th.text, nil, th)
	}
	return []*panel{gc, lat}
}

// kneeFits draws a search's fits: the GC share's and the p99's fitted
// curves (dotted; an older search's GC fit, a share of unhealthy spans,
// and the share of failing steps, other units, are not drawn), and, on the panel of the figure that gave the
// sustainable rate, its interval as a bar along the limit with the
// crossing marked.
func kneeFits(gc, lat *panel, c results.Capacity, st lineStyle) {
	dots := []vg.Length{vg.Points(1), vg.Points(3)}
	for _, f := range c.Fits {
		p := gc
		switch f.Figure {
		case results.FigureGCPct:
		case results.FigureP99:
			p = lat
		case results.FigureUnhealthy:
		default:
			continue
		}
		limit, curve := f.Limit, f.Curve
		if f.Model == results.FitUnhealthySpans || f.Model == results.FitShare {
			// Its curve is a share of spans or steps, not of CPU:
			// only the interval is drawn, along the GC share's limit.
			limit, curve = f.Threshold, nil
		}
		var xys plotter.XYs
		for _, pt := range curve {
			xys = append(xys, plotter.XY{X: pt.MBps, Y: math.Max(pt.Value, 1e-3)})
		}
		if l, err := plotter.NewLine(xys); err == nil && len(xys) > 1 {
			l.Color, l.Width, l.Dashes = st.colour, vg.Points(1), dots
			p.Add(l)
		}
		if f.Figure != c.FitFigure || c.SustainableHiMBps <= 0 {
			continue
		}
		bar := plotter.XYs{{X: c.SustainableLoMBps, Y: limit}, {X: c.SustainableHiMBps, Y: limit}}
		if l, err := plotter.NewLine(bar); err == nil {
			l.Color, l.Width = st.colour, vg.Points(5)
			p.Add(l)
		}
		if sc, err := plotter.NewScatter(plotter.XYs{{X: c.SustainableMBps, Y: limit}}); err == nil {
			sc.Color, sc.Shape, sc.Radius = color.Black, draw.PyramidGlyph{}, vg.Points(4)
			p.Add(sc)
		}
	}
}

// kneeLines adds one search's steps, in rate order, to both panels.
func kneeLines(gc, lat *panel, c results.Capacity, st lineStyle) {
	steps := slices.Clone(c.Steps)
	slices.SortFunc(steps, func(a, b results.CapacityStep) int {
		return cmp.Compare(a.TargetMBps, b.TargetMBps)
	})
	var g, l, gBad, lBad plotter.XYs
	mean := meanJudged(c)
	for _, st := range steps {
		ms := math.Max(float64(st.P99)/1e6, 1e-3) // a log axis has no 0
		y := st.GCPct
		if mean {
			y = st.SteadyGCPct
		}
		g = append(g, plotter.XY{X: st.TargetMBps, Y: y})
		l = append(l, plotter.XY{X: st.TargetMBps, Y: ms})
		if !st.Healthy {
			gBad = append(gBad, plotter.XY{X: st.TargetMBps, Y: y})
			lBad = append(lBad, plotter.XY{X: st.TargetMBps, Y: ms})
		}
	}
	// A contended search's figure reads as a lower bound (capacityFigure).
	label := fmt.Sprintf("%s (sustains %s)", escape.Terminal(capacityLabel(c)), capacityFigure(c, true))
	addLine(gc, g, st, nil, label, true)
	addLine(lat, l, st, nil, label, true)
	kneeFits(gc, lat, c, st)
	for _, pair := range []struct {
		p   *panel
		xys plotter.XYs
	}{{gc, gBad}, {lat, lBad}} {
		if len(pair.xys) == 0 {
			continue
		}
		if sc, err := plotter.NewScatter(pair.xys); err == nil {
			sc.Color, sc.Shape, sc.Radius = st.colour, draw.CrossGlyph{}, vg.Points(6)
			pair.p.Add(sc)
		}
	}
}

// meanJudged reports whether c's steps were judged on their mean GC share
// (SteadyGCPct, what its gc_pct fit is drawn in): a search recorded with
// steady figures and without span-count fits. Older searches were judged
// on each step's worst window (GCPct).
func meanJudged(c results.Capacity) bool {
	for _, f := range c.Fits {
		if f.Model == results.FitUnhealthySpans {
			return false
		}
	}
	return slices.ContainsFunc(c.Steps, func(st results.CapacityStep) bool { return st.CPUSPerGB > 0 || st.SteadyGCPct > 0 })
}

// thresholdLine is the SLO as a dashed, labelled horizontal line (nil
// without one).
func thresholdLine(c results.Capacity) *level {
	if c.SLO <= 0 {
		return nil
	}
	return &level{y: float64(c.SLO) / 1e6, text: fmt.Sprintf("p99 limit %s", view.NS(int64(c.SLO))),
		style: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
}
