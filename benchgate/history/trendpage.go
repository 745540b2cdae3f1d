package history

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
	"github.com/writegc/writegc/internal/atomicfile"
	"github.com/writegc/writegc/internal/stat"
)

// MaxPagePoints bounds the points of one page (about 100 MB of HTML).
const MaxPagePoints = 1_000_000

// PageFileName is the page's name in its directory.
const PageFileName = "index.html"

// ErrPageTooLarge: the history has more points than one page holds.
var ErrPageTooLarge = errors.New("trendpage: history too large for one page")

//go:embed page.html.tmpl
var files embed.FS

var page = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"pct":   func(f float64) string { return stat.SignedPercent(f, 1) },
	"share": func(f float64) string { return stat.Percent(f, 1) },
	"num":   formatNum,
	"short": benchgate.ShortCommit,
}).ParseFS(files, "page.html.tmpl"))

// Chart geometry (SVG user units).
const (
	width, height             = 900, 260
	padLeft, padRight         = 70, 20
	padTop, padBottom         = 30, 30
	plotW, plotH              = width - padLeft - padRight, height - padTop - padBottom
	pointRadius       float64 = 3
)

type pageData struct {
	Title string
	// Unstable counts the unstable series; MaxNoise, MaxFlips and Window
	// are history's bounds, named on the page.
	Unstable, MaxFlips, Window int
	MaxNoise                   float64
	Generated                  string
	Benchmarks, Units, Machine []string
	Series                     []chart
	ChangePoints               []cpRow
	NumPoints                  int
}

type chart struct {
	ID                       int
	Benchmark, Unit, Machine string
	Mode                     string
	Points                   []dot
	Line                     string
	CPs                      []cpMark
	YTicks                   []tick
	Width, Height            int
	PlotLeft, PlotRight      float64
	PlotTop, PlotBottom      float64
	TickX                    float64
	Drift                    float64
	DriftKind                string
	// Stale: no point at Latest, the newest commit of its machine and mode.
	Stale        bool
	Last, Latest string
	// Stability is the series' recent noise and verdict flips; when
	// Unstable the chart and its change points are marked.
	Stability Stability
	// MDEBands are SVG polygons, one per run of consecutive points with
	// an MDE: median × (1 ± MDE), the smallest change each gate run could
	// catch. LastMDE is the latest point's with one, when HasMDE.
	MDEBands []string
	LastMDE  float64
	HasMDE   bool
}

type dot struct {
	X, Y, R     float64
	Lo, Hi      float64 // y of the interval's ends
	HasInterval bool
	Title       string
}

type cpMark struct {
	X, LabelY float64
	Label     string
	Kind      string
}

type tick struct {
	Y     float64
	Label string
}

type cpRow struct {
	Chart                    int
	Benchmark, Unit, Machine string
	Unstable                 bool
	changepoint.ChangePoint
}

// WriteTrendPage writes dir/index.html for the analysed series (created with its
// parents when missing). title heads the page; now is the time it names as
// generated.
func WriteTrendPage(dir, title string, now time.Time, as []Analysis) error {
	n := 0
	for _, a := range as {
		n += len(a.Points)
	}
	if n > MaxPagePoints {
		return fmt.Errorf("%w: %d points, more than the limit of %d", ErrPageTooLarge, n, MaxPagePoints)
	}
	d := pageData{Title: title, Generated: now.UTC().Format(time.RFC3339), NumPoints: n,
		MaxFlips: UnstableMaxFlips, Window: UnstableWindow, MaxNoise: UnstableMaxNoise}
	for i, a := range as {
		if a.Stability.Unstable {
			d.Unstable++
		}
		d.Benchmarks = appendNew(d.Benchmarks, a.Benchmark)
		d.Units = appendNew(d.Units, a.Unit)
		d.Machine = appendNew(d.Machine, a.Machine)
		d.Series = append(d.Series, draw(i, a))
		for _, cp := range a.Result.ChangePoints {
			d.ChangePoints = append(d.ChangePoints, cpRow{i, a.Benchmark, a.Unit, a.Machine, a.Stability.Unstable, cp})
		}
	}
	slices.Sort(d.Benchmarks)
	slices.Sort(d.Units)
	slices.Sort(d.Machine)
	slices.SortStableFunc(d.ChangePoints, func(a, b cpRow) int {
		return cmp.Compare(math.Abs(b.RelChange), math.Abs(a.RelChange))
	})
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, PageFileName), buf.Bytes())
}

func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// draw lays out one series' chart.
func draw(id int, a Analysis) chart {
	c := chart{ID: id, Benchmark: a.Benchmark, Unit: a.Unit, Machine: a.Machine, Mode: string(a.Mode),
		Width: width, Height: height, PlotLeft: padLeft, PlotRight: width - padRight,
		PlotTop: padTop, PlotBottom: height - padBottom, TickX: padLeft - 6, Drift: a.Result.Drift, DriftKind: string(a.Result.DriftKind),
		Stale: a.Stale, Last: a.LastCommit(), Latest: a.Latest, Stability: a.Stability}
	lo, hi := yRange(a.Points)
	y := func(v float64) float64 { return padTop + plotH*(1-(v-lo)/(hi-lo)) }
	x := func(i int) float64 {
		if len(a.Points) == 1 {
			return padLeft + plotW/2
		}
		return padLeft + plotW*float64(i)/float64(len(a.Points)-1)
	}
	var line []byte
	for i, p := range a.Points {
		d := dot{X: round(x(i)), Y: round(y(p.Median)), R: pointRadius, HasInterval: p.HasInterval}
		if p.HasInterval {
			d.Lo, d.Hi = round(y(p.Lo)), round(y(p.Hi))
		}
		d.Title = pointTitle(i, p, a.Unit)
		c.Points = append(c.Points, d)
		line = fmt.Appendf(line, "%g,%g ", d.X, d.Y)
	}
	c.Line = string(bytes.TrimSpace(line))
	c.MDEBands = mdeBands(a.Points, x, y)
	for _, p := range a.Points {
		if p.HasMDE {
			c.LastMDE, c.HasMDE = p.MDE, true
		}
	}
	for k, cp := range a.Result.ChangePoints {
		// Between the last point before and the first point after.
		mx := (x(cp.Index-1) + x(cp.Index)) / 2
		c.CPs = append(c.CPs, cpMark{X: round(mx), LabelY: float64(padTop - 8 + 10*(k%2)), Label: benchgate.ShortCommit(cp.Commit), Kind: string(cp.Direction)})
	}
	for k := 0; k <= 4; k++ {
		v := lo + (hi-lo)*float64(k)/4
		c.YTicks = append(c.YTicks, tick{Y: round(y(v)), Label: formatNum(v)})
	}
	return c
}

// mdeBands draws median × (1 ± MDE) over each run of consecutive points
// with an MDE, as a polygon (a lone point: a box as wide as its dot).
func mdeBands(ps []Point, x func(int) float64, y func(float64) float64) []string {
	var bands []string
	for i := 0; i < len(ps); {
		if !ps[i].HasMDE {
			i++
			continue
		}
		j := i
		for j < len(ps) && ps[j].HasMDE {
			j++
		}
		var upper, lower []string
		for k := i; k < j; k++ {
			xs := []float64{x(k)}
			if j-i == 1 {
				xs = []float64{x(k) - pointRadius, x(k) + pointRadius}
			}
			for _, xv := range xs {
				upper = append(upper, fmt.Sprintf("%g,%g", round(xv), round(y(ps[k].Median*(1+ps[k].MDE)))))
				lower = append(lower, fmt.Sprintf("%g,%g", round(xv), round(y(ps[k].Median*(1-ps[k].MDE)))))
			}
		}
		slices.Reverse(lower)
		bands = append(bands, strings.Join(append(upper, lower...), " "))
		i = j
	}
	return bands
}

func pointTitle(i int, p Point, unit string) string {
	t := fmt.Sprintf("#%d %s: %s %s (n=%d)", i, benchgate.ShortCommit(p.Commit), formatNum(p.Median), unit, len(p.Values))
	if p.HasInterval {
		t += fmt.Sprintf(", 95%% interval %s to %s", formatNum(p.Lo), formatNum(p.Hi))
	}
	if p.HasRatio {
		t += fmt.Sprintf(", head/base %.3f [%.3f, %.3f]", p.Ratio, p.RatioLo, p.RatioHi)
	}
	if p.HasMDE {
		t += ", MDE " + stat.Percent(p.MDE, 1) + " (the smallest change this run could catch)"
	}
	if !p.CommitTime.IsZero() {
		t += ", " + p.CommitTime.UTC().Format(time.RFC3339)
	}
	return t
}

// yRange covers every median, interval and MDE band, padded by 5%.
func yRange(ps []Point) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		lo, hi = math.Min(lo, p.Median), math.Max(hi, p.Median)
		if p.HasInterval {
			lo, hi = math.Min(lo, p.Lo), math.Max(hi, p.Hi)
		}
		if p.HasMDE {
			a, b := p.Median*(1-p.MDE), p.Median*(1+p.MDE)
			lo, hi = math.Min(lo, math.Min(a, b)), math.Max(hi, math.Max(a, b))
		}
	}
	switch {
	case len(ps) == 0:
		return 0, 1
	case lo == hi:
		pad := math.Max(math.Abs(lo)*0.01, 1e-9)
		return lo - pad, hi + pad
	}
	pad := (hi - lo) * 0.05
	return lo - pad, hi + pad
}

func round(v float64) float64 { return math.Round(v*10) / 10 }

func formatNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v, 'g', 4, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
