package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/internal/browsertest"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
)

// analyses builds three series: a step on two machines and a flat one.
func analyses(t *testing.T) []Analysis {
	t.Helper()
	r := rand.New(rand.NewPCG(26, 1))
	mk := func(bench, unit, machine string, n, step int) Series {
		s := Series{SeriesKey: SeriesKey{Benchmark: bench, Unit: unit, Machine: machine, Mode: ModeBench},
			Direction: benchgate.LowerIsBetter}
		for i := range n {
			v := 100.0
			if step > 0 && i >= step {
				v = 110
			}
			v *= 1 + 0.01*r.NormFloat64()
			p := Point{Commit: fmt.Sprintf("%040x", i), Summary: Summary{Median: v, Values: []float64{v}}, Records: 1}
			if i%2 == 0 {
				p.Lo, p.Hi, p.HasInterval = v*0.99, v*1.01, true
			}
			if i%5 == 0 {
				p.Ratio, p.RatioLo, p.RatioHi, p.HasRatio = 1.01, 0.99, 1.03, true
			}
			s.Points = append(s.Points, p)
		}
		return s
	}
	as, err := Analyze([]Series{
		mk("BenchmarkPut-2", "ns/op", "cpu=A", 60, 30),
		mk("BenchmarkPut-2", "ns/op", "cpu=B <&>", 40, 20),
		mk("BenchmarkGet-2", "B/op", "cpu=A", 1, 0),
	}, changepoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(as[0].Result.ChangePoints) != 1 || len(as[1].Result.ChangePoints) != 1 {
		t.Fatalf("want one change point in each step series: %+v %+v", as[0].Result, as[1].Result)
	}
	return as
}

func writePage(t *testing.T) (string, []Analysis) {
	t.Helper()
	as := analyses(t)
	dir := filepath.Join(t.TempDir(), "history")
	if err := WriteTrendPage(dir, "Benchmark history", time.Unix(0, 0), as); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, PageFileName), as
}

func TestWrite(t *testing.T) {
	path, as := writePage(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	if n := strings.Count(html, `<circle class="pt"`); n != 101 {
		t.Errorf("%d points drawn, want 101", n)
	}
	if n := strings.Count(html, `<tr class="cprow`); n != 2 {
		t.Errorf("%d change point rows, want 2", n)
	}
	for _, want := range []string{benchgate.ShortCommit(as[0].Result.ChangePoints[0].Commit), "cpu=B &lt;&amp;&gt;", `data-points="60"`, "head/base 1.010"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://", "<script src", "<link"} {
		if strings.Contains(html, bad) {
			t.Errorf("page refers to the network: %q", bad)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Rewriting replaces the page.
	if err := WriteTrendPage(filepath.Dir(path), "again", time.Unix(0, 0), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "<title>again</title>") {
		t.Error("rewritten page not replaced")
	}
}

func TestWriteLimit(t *testing.T) {
	a := Analysis{Series: Series{Points: make([]Point, MaxPagePoints+1)}, Result: &changepoint.Result{}}
	if err := WriteTrendPage(t.TempDir(), "x", time.Now(), []Analysis{a}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("over MaxPagePoints: %v", err)
	}
}

// TestBrowser opens the page in headless Chromium: it renders with no
// console error, every chart holds its points, and the filters work.
func TestBrowser(t *testing.T) {
	path, _ := writePage(t)
	tab, pe := browsertest.NewTab(t, browsertest.Start(t))
	ctx, cancelCtx := context.WithTimeout(tab, 60*time.Second)
	defer cancelCtx()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	type counts struct {
		Charts     int    `json:"charts"`
		Mismatched int    `json:"mismatched"`
		CPLines    int    `json:"cpLines"`
		ShownAll   int    `json:"shownAll"`
		ShownB     int    `json:"shownB"`
		RowsB      int    `json:"rowsB"`
		ShownText  string `json:"shownText"`
	}
	got, err := chromedp.Run(ctx, chromedp.Poll[counts](`document.getElementById("shown") && document.getElementById("shown").textContent && (function () {
		var r = {};
		r.charts = document.querySelectorAll("section.series svg.chart").length;
		r.mismatched = Array.from(document.querySelectorAll("section.series")).filter(function (s) {
			var pts = s.querySelectorAll("circle.pt");
			return pts.length != Number(s.dataset.points) || pts[0].getBBox().width == 0;
		}).length;
		r.cpLines = document.querySelectorAll("svg line.cp").length;
		r.shownAll = document.querySelectorAll("section.series:not(.hidden)").length;
		var sel = document.getElementById("f-machine");
		sel.value = "cpu=B <&>";
		sel.dispatchEvent(new Event("change"));
		r.shownB = document.querySelectorAll("section.series:not(.hidden)").length;
		r.rowsB = document.querySelectorAll("tr.cprow:not(.hidden)").length;
		r.shownText = document.getElementById("shown").textContent;
		return r;
	})()`, chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	if got.Charts != 3 || got.Mismatched != 0 || got.CPLines != 2 {
		t.Errorf("charts %d (want 3), charts whose points differ from the data %d (want 0), change point marks %d (want 2)",
			got.Charts, got.Mismatched, got.CPLines)
	}
	if got.ShownAll != 3 || got.ShownB != 1 || got.RowsB != 1 || got.ShownText != "1 of 3 series shown" {
		t.Errorf("filter: %+v; want 3 shown unfiltered, 1 series and 1 row for machine B", got)
	}
	pe.Check(t)
}

// TestWriteUnstable: an unstable series' chart and change-point row are
// marked, with its noise and flips; a stable one's are not.
func TestWriteUnstable(t *testing.T) {
	as := analyses(t)
	for i := range as {
		if as[i].Stability.Unstable {
			t.Fatalf("%s [%s]: unstable in the fixture: %+v", as[i].Benchmark, as[i].Machine, as[i].Stability)
		}
	}
	as[1].Stability = Stability{Points: 10, Noise: 0.087, Flips: 3, Unstable: true}
	dir := t.TempDir()
	if err := WriteTrendPage(dir, "h", time.Unix(0, 0), as); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, PageFileName))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{`<section class="series unstable" id="series-1"`, "unstable: noise 8.7%, 3 verdict flips over the latest 10 points",
		`<td class="unstable">unstable</td>`, "1 unstable (over the latest 10 points, noise above 5.0% or 3 or more verdict flips)"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(html, `class="series unstable"`); n != 1 {
		t.Errorf("%d unstable charts, want 1", n)
	}
}
