package report

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// frontierChartPrefix starts every frontier chart's name:
// frontier-<kind>.{svg,png}.
const frontierChartPrefix = "frontier-"

// writeFrontierCharts draws frontier-<kind>.{svg,png} per kind of the
// frontier (frontier-<kind>-env-<env> per kind and build environment): GC CPU-s per GB against peak RSS (MiB), every point labelled
// with its setting (GOGC/GOMEMLIMIT), the Pareto set joined by a line in
// the kind's colour (filled circles), other measured points as rings,
// inconclusive ones as grey squares, failed ones as red crosses, the
// recommended one ringed large, and the container and its budget (less
// headroom) as vertical lines. No frontier, no chart.
func writeFrontierCharts(o Sink, sum *results.Summary) ([]string, error) {
	var files []string
	for _, se := range frontierKinds(sum.Frontier) {
		p := frontierPanel(sum, se)
		base := se.stem()
		if err := saveTiles(o, base, []*panel{p}, 10*vg.Inch, 6*vg.Inch); err != nil {
			return files, err
		}
		files = append(files, base+".svg", base+".png")
	}
	return files, nil
}

// frontierGlyphs are the point styles of a frontier chart, by role.
var (
	failedColour       = color.RGBA{R: 0xb7, G: 0x1c, B: 0x1c, A: 0xff}
	inconclusiveColour = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
)

// frontierPanel is one kind's (and build environment's) frontier chart.
func frontierPanel(sum *results.Summary, se frontierSeries) *panel {
	p := newPanel()
	k := escape.Terminal(se.label())
	p.Title.Text = fmt.Sprintf("%s: GC CPU per GB against peak RSS per GOGC/GOMEMLIMIT setting (Pareto set joined)", k)
	p.X.Label.Text = "peak RSS (MiB)"
	p.Y.Label.Text = "GC CPU-s per GB written"
	p.Y.Min = 0
	st := lineStyle{colour: view.EnvColour(se.kind, view.EnvIndex(sum.BuildEnvs, se.env))}
	var pareto, other, incon, failed plotter.XYs
	var labels plotter.XYLabels
	var ps []results.FrontierPoint
	for _, pt := range sum.Frontier {
		if se.has(pt.Kind, pt.Env) {
			ps = append(ps, pt)
		}
	}
	slices.SortFunc(ps, func(a, b results.FrontierPoint) int { return cmp.Compare(a.PeakRSS, b.PeakRSS) })
	for _, pt := range ps {
		xy := plotter.XY{X: float64(pt.PeakRSS) / (1 << 20), Y: finite(pt.GCCPUSPerGB)}
		switch {
		case pt.Pareto:
			pareto = append(pareto, xy)
		case pt.Class == results.Failed:
			failed = append(failed, xy)
		case pt.Class == results.Inconclusive || pt.Class == results.Interrupted:
			incon = append(incon, xy)
		default:
			other = append(other, xy)
		}
		labels.XYs = append(labels.XYs, xy)
		labels.Labels = append(labels.Labels, pointLabel(pt))
	}
	addLine(p, pareto, lineStyle{colour: st.colour, glyph: draw.CircleGlyph{}}, nil, k+" Pareto set", true)
	scatter(p, other, st.colour, draw.RingGlyph{}, k+" dominated")
	scatter(p, incon, inconclusiveColour, draw.SquareGlyph{}, "inconclusive (too few GC cycles)")
	scatter(p, failed, failedColour, draw.CrossGlyph{}, "failed (memlimit-spiral, rss-cap)")
	if rec := recommendedXY(sum, se, ps); rec != nil {
		scatterSized(p, plotter.XYs{*rec}, color.Black, draw.RingGlyph{}, vg.Points(9), "recommended")
	}
	if l, err := plotter.NewLabels(labels); err == nil && len(labels.XYs) > 0 {
		for i := range l.TextStyle {
			l.TextStyle[i] = annotationStyle(color.Black)
		}
		l.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
		p.Add(l)
	}
	if fr := sum.FrontierRun; fr != nil && fr.Container > 0 {
		c := float64(fr.Container) / (1 << 20)
		solid := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		m := &marker{t: c, text: fmt.Sprintf("container %s", results.MiB(uint64(fr.Container))), style: solid}
		p.Add(m)
		p.addLegend(m.text, nil, m)
		dashed := draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: goalDashes}
		b := &marker{t: c * (1 - fr.Headroom), text: fmt.Sprintf("less %.0f%% headroom", 100*fr.Headroom), row: 1, style: dashed}
		p.Add(b)
		p.addLegend(b.text, nil, b)
	}
	p.X.Min = 0
	return p
}

// recommendedXY is where the series' recommended point lies (nil: none,
// or not confirmed).
func recommendedXY(sum *results.Summary, se frontierSeries, ps []results.FrontierPoint) *plotter.XY {
	for _, r := range sum.Recommendation {
		if !se.has(r.Kind, r.Env) || !r.Confirmed {
			continue
		}
		for _, pt := range ps {
			if pt.GOGC == r.GOGC && pt.MemLimit == r.MemLimit {
				return &plotter.XY{X: float64(pt.PeakRSS) / (1 << 20), Y: finite(pt.GCCPUSPerGB)}
			}
		}
	}
	return nil
}

// scatter adds points in one glyph and colour, with a legend entry.
func scatter(p *panel, xys plotter.XYs, c color.Color, g draw.GlyphDrawer, label string) {
	scatterSized(p, xys, c, g, vg.Points(4), label)
}

func scatterSized(p *panel, xys plotter.XYs, c color.Color, g draw.GlyphDrawer, r vg.Length, label string) {
	if len(xys) == 0 {
		return
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return
	}
	sc.Color, sc.Shape, sc.Radius = c, g, r
	p.Add(sc)
	p.series = append(p.series, seriesRecord{name: label, colour: c, xys: xys})
	p.addLegend(label, c, sc)
}
