package report

import (
	"image/color"
	"math"

	"github.com/writegc/writegc/gcstress/internal/view"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// What every chart file shares: panels whose legends are drawn beside the
// plotting area (never on the data), each scenario in its kind's colour
// (view.KindColour, as on report.html and the live page), and the
// markers and limit lines drawn across a panel.

// panel is one plot of a chart file and its legend. The plot's own Legend
// stays empty: drawPanels draws the panel's legend in a strip right of
// the plots. series records every line added, for the tests.
type panel struct {
	*plot.Plot
	legend []legendEntry
	series []seriesRecord
}

// legendEntry is one line of a panel's legend: its text, the colour of
// the scenario it names (nil for a key to a style, a limit or a marker)
// and the thumbnails drawn before it.
type legendEntry struct {
	label  string
	colour color.Color
	thumbs []plot.Thumbnailer
}

// seriesRecord is a line a panel draws: its name, colour and points.
type seriesRecord struct {
	name   string
	colour color.Color
	xys    plotter.XYs
}

func newPanel() *panel {
	p := plot.New()
	p.Add(plotter.NewGrid())
	return &panel{Plot: p}
}

func (pn *panel) addLegend(label string, c color.Color, thumbs ...plot.Thumbnailer) {
	pn.legend = append(pn.legend, legendEntry{label: label, colour: c, thumbs: thumbs})
}

// Legend and annotation text sizes.
const (
	legendFontSize = 9
	markFontSize   = 8
	legendGap      = 10 // points between the plots' right edge and the legends
	legendMargin   = 6  // points right of the legends
)

// plotLegend is the panel's legend as gonum draws it, top-left anchored.
func (pn *panel) plotLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(legendFontSize)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(18)
	for _, e := range pn.legend {
		l.Add(e.label, e.thumbs...)
	}
	return l
}

// tileArea is where drawPanels drew one panel: its plot (axes and title
// included) and its legend.
type tileArea struct{ plot, legend vg.Rectangle }

// drawPanels draws panels stacked top to bottom into c, their data areas
// aligned, each panel's legend in a strip right of the plots (which are
// narrowed to leave it room), and returns where each went.
func drawPanels(c draw.Canvas, panels []*panel) []tileArea {
	legends := make([]plot.Legend, len(panels))
	var strip vg.Length
	for i, pn := range panels {
		legends[i] = pn.plotLegend()
		if len(pn.legend) > 0 {
			strip = max(strip, legends[i].Rectangle(c).Size().X+vg.Points(legendGap+legendMargin))
		}
	}
	plotC := c
	plotC.Max.X -= strip
	rows := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		rows[i] = []*plot.Plot{pn.Plot}
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(6), PadY: vg.Points(10)}
	canv := plot.Align(rows, tiles, plotC)
	areas := make([]tileArea, len(panels))
	for i, pn := range panels {
		pc := canv[i][0]
		pn.Draw(pc)
		lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: plotC.Max.X + vg.Points(legendGap), Y: pc.Min.Y}, Max: vg.Point{X: c.Max.X, Y: pc.Max.Y}}}
		areas[i].plot = pc.Rectangle
		if len(pn.legend) > 0 {
			legends[i].Draw(lc)
			size := legends[i].Rectangle(lc).Size()
			areas[i].legend = vg.Rectangle{Min: vg.Point{X: lc.Min.X, Y: lc.Max.Y - size.Y}, Max: vg.Point{X: lc.Min.X + size.X, Y: lc.Max.Y}}
		}
	}
	return areas
}

// saveTiles draws panels (drawPanels) into base.svg and base.png.
func saveTiles(o Sink, base string, panels []*panel, w, h vg.Length) error {
	svg := vgsvg.New(w, h)
	drawPanels(draw.New(svg), panels)
	if err := o.Write(base+".svg", writerTo(svg)); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))
	drawPanels(draw.New(img), panels)
	return o.Write(base+".png", writerTo(vgimg.PngCanvas{Canvas: img}))
}

// lineStyle is how one scenario's lines are drawn: its kind's colour and,
// for a later scenario of the same colour in one chart (failure/heap and
// stall/heap, or two user kinds whose colours collide), a glyph at every
// point or a dash pattern, so the lines stay apart.
type lineStyle struct {
	colour color.Color
	glyph  draw.GlyphDrawer // nil: points are marked only when too few for a line
	dashes []vg.Length
}

// repeatGlyphs are the glyphs of the 2nd, 3rd, ... scenario of one colour.
var repeatGlyphs = []draw.GlyphDrawer{draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}}

// repeatDashes are the dash patterns of the 2nd, 3rd, ... line of one
// colour where glyphs mark something else (the capacity chart).
var repeatDashes = [][]vg.Length{{vg.Points(6), vg.Points(3)}, {vg.Points(1), vg.Points(3)}, {vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}}

// stylesOf gives each of kinds (one per line, in drawing order) its kind's
// colour; a line whose colour an earlier one has takes a glyph (useGlyphs)
// or a dash pattern.
func stylesOf(kinds []string, useGlyphs bool) []lineStyle {
	seen := map[color.RGBA]int{}
	out := make([]lineStyle, len(kinds))
	for i, k := range kinds {
		c := view.KindColour(k)
		n := seen[c]
		seen[c] = n + 1
		out[i].colour = c
		switch {
		case n == 0:
		case useGlyphs:
			out[i].glyph = repeatGlyphs[(n-1)%len(repeatGlyphs)]
		default:
			out[i].dashes = repeatDashes[(n-1)%len(repeatDashes)]
		}
	}
	return out
}

// addLine draws xys in style st (dashes overrides st's own) and records
// it under name; legend adds name to the panel's legend. A line of three
// points or fewer is marked with circles (one point draws no line).
func addLine(pn *panel, xys plotter.XYs, st lineStyle, dashes []vg.Length, name string, legend bool) {
	if len(xys) == 0 {
		return
	}
	l, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	if dashes == nil {
		dashes = st.dashes
	}
	l.Color, l.Width, l.Dashes = st.colour, vg.Points(1.5), dashes
	pn.Add(l)
	thumbs := []plot.Thumbnailer{l}
	glyph := st.glyph
	if glyph == nil && len(xys) <= 3 {
		glyph = draw.CircleGlyph{}
	}
	if glyph != nil {
		pts.Color, pts.Shape, pts.Radius = st.colour, glyph, vg.Points(3)
		pn.Add(pts)
		thumbs = append(thumbs, pts)
	}
	pn.series = append(pn.series, seriesRecord{name: name, colour: st.colour, xys: xys})
	if legend {
		pn.addLegend(name, st.colour, thumbs...)
	}
}

// keyLine is a black line in a dash pattern: a legend's key to a style.
func keyLine(dashes []vg.Length) plot.Thumbnailer {
	return &plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5), Dashes: dashes}}
}

func annotationStyle(c color.Color) draw.TextStyle {
	return draw.TextStyle{Color: c, Font: font.From(plot.DefaultFont, vg.Points(markFontSize)), Handler: plot.DefaultTextHandler}
}

// marker is a vertical line across a panel's data area at X value t, with
// its text (if any) at the top, on row row of the markers' texts: where a
// scenario failed.
type marker struct {
	t     float64
	text  string
	row   int
	style draw.LineStyle
}

func (m *marker) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(m.t)
	c.StrokeLine2(m.style, x, c.Min.Y, x, c.Max.Y)
	if m.text == "" {
		return
	}
	sty := annotationStyle(m.style.Color)
	h := sty.Rectangle(m.text).Size().Y
	pt := vg.Point{X: x + vg.Points(2), Y: c.Max.Y - h*vg.Length(m.row+1)}
	if x > c.Center().X { // near the right edge, where runs end: text left of the line
		sty.XAlign = draw.XRight
		pt.X = x - vg.Points(2)
	}
	c.FillText(sty, pt, m.text)
}

// DataRange makes the X axis reach t; the Y axis is left to the data.
func (m *marker) DataRange() (xmin, xmax, ymin, ymax float64) {
	return m.t, m.t, math.Inf(1), math.Inf(-1)
}

func (m *marker) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(m.style, x, c.Min.Y, x, c.Max.Y)
}

// level is a horizontal line across a panel's data area at Y value y,
// its text above the line's left end: a limit (the RSS cap, an SLO).
type level struct {
	y     float64
	text  string
	style draw.LineStyle
}

func (l *level) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(l.y)
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
	if l.text != "" {
		c.FillText(annotationStyle(l.style.Color), vg.Point{X: c.Min.X + vg.Points(3), Y: y + vg.Points(2)}, l.text)
	}
}

// DataRange makes the Y axis reach y; the X axis is left to the data.
func (l *level) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), l.y, l.y
}

func (l *level) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}
