package report

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/browsertest"
)

// tableFit is what fitScript reports of report.html's tables.
type tableFit struct {
	Tables   int      `json:"tables"`
	Cells    int      `json:"cells"`
	Clipped  []string `json:"clipped"`  // cells whose content is wider than the cell
	Outside  []string `json:"outside"`  // tables (or their scroll boxes) past the viewport's right edge
	PageWide bool     `json:"pageWide"` // the page itself scrolls sideways
	WhyShown bool     `json:"whyShown"` // the long verdict text is in the page, whole
}

// fitScript measures every table of #tables: each cell's content against
// its box, each table's scroll box against the viewport.
const fitScript = `(function () {
  var vw = document.documentElement.clientWidth, out = { tables: 0, cells: 0, clipped: [], outside: [], pageWide: false, whyShown: false };
  document.querySelectorAll("#tables table").forEach(function (t, ti) {
    out.tables++;
    var box = t.parentElement, r = box.getBoundingClientRect();
    if (r.right > vw + 1) { out.outside.push("table " + ti + " right " + r.right + " > " + vw); }
    if (t.getBoundingClientRect().right > vw + 1 && getComputedStyle(box).overflowX !== "auto" && getComputedStyle(box).overflowX !== "scroll") {
      out.outside.push("table " + ti + " wider than the page and not in a scroll box");
    }
    t.querySelectorAll("td, th").forEach(function (c) {
      out.cells++;
      if (c.scrollWidth > c.clientWidth + 1) { out.clipped.push(ti + ": " + c.textContent.slice(0, 40) + " (" + c.scrollWidth + " > " + c.clientWidth + ")"); }
      if (c.textContent === window.LONG_WHY) { out.whyShown = true; }
    });
  });
  out.pageWide = document.documentElement.scrollWidth > vw + 1;
  return out;
})()`

// TestBrowserReportTablesFit opens a report.html whose verdicts are long
// (one with a long unbroken token) in a window narrower than its widest
// table: no cell's content may be cut off, every table stays within the
// page or scrolls in its own box, and the page does not scroll sideways.
func TestBrowserReportTablesFit(t *testing.T) {
	browser := browsertest.Start(t)
	sum := fixedSummary(t)
	long := "GC CPU >= 25% in 31 of 40 windows after warm-up (first at 2.3 s); assist >= 5% in 12 of 40 windows; " +
		"heap above goal in 4 windows; writers blocked 96% of the run; see /tmp/" + strings.Repeat("very-long-path-segment", 6) + "/flight.out"
	for i := range sum.Results {
		sum.Results[i].Verdict.Why = long
	}
	ctx, pe := openReport(t, browser, sum, 900, 1200)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!window.gcstressReport`, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("report.html never drew: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[tableFit](`window.LONG_WHY = `+jsString(long)+`; `+fitScript))
	if err != nil {
		t.Fatal(err)
	}
	if got.Tables < 3 || got.Cells == 0 || !got.WhyShown {
		t.Errorf("measured %d tables, %d cells, long verdict shown %v", got.Tables, got.Cells, got.WhyShown)
	}
	for _, c := range got.Clipped {
		t.Errorf("clipped cell: %s", c)
	}
	for _, o := range got.Outside {
		t.Errorf("%s", o)
	}
	if got.PageWide {
		t.Error("the page scrolls sideways: a table is wider than the page outside a scroll box")
	}
	Screenshot(t, ctx, "report-tables.png")
	pe.Check(t)
}

// TestBrowserReport opens report.html from file:// and checks that its
// charts drew the recorded run with no console error or exception. The
// browser tests skip when no browser is installed (GCSTRESS_BROWSER names
// one; else chromium, chromium-browser or google-chrome on PATH).
func TestBrowserReport(t *testing.T) {
	browser := browsertest.Start(t)
	ctx, pe := openReport(t, browser, fixedSummary(t), 0, 0)
	got, err := chromedp.Run(ctx, chromedp.Poll[Counts](`window.gcstressReport && Object.assign({canvases: document.querySelectorAll("canvas").length}, window.gcstressReport)`,
		chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil {
		t.Fatalf("report.html never drew: %v", err)
	}
	if got.Points == 0 || got.Charts < len(Panels()) || got.Canvases < got.Charts {
		t.Errorf("report.html drew %+v", got)
	}
	tables, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tables table tbody tr").length`))
	if err != nil || tables == 0 {
		t.Errorf("table rows: %d %v", tables, err)
	}
	Screenshot(t, ctx, "report.png")
	pe.Check(t)
}

// openReport writes sum's report.html into a temporary folder and opens it
// from file:// in a new tab (a width x height viewport when width > 0),
// with a 60 s deadline that ends with the test.
func openReport(t *testing.T, browser context.Context, sum *results.Summary, width, height int64) (context.Context, *browsertest.PageErrors) {
	t.Helper()
	dir := t.TempDir()
	if err := dirSink(dir).Write("report.html", func(w io.Writer) error { return WriteHTML(w, sum) }); err != nil {
		t.Fatal(err)
	}
	tab, pe := browsertest.NewTab(t, browser)
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	t.Cleanup(cancel)
	if width > 0 {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
			t.Fatalf("viewport: %v", err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "report.html"))); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	return ctx, pe
}

// TestBrowserKindColours: report.html draws each kind in
// view.KindColourHex(kind), the colour of the PNG charts (the toggles of
// its charts show it). The live page's test checks it likewise.
func TestBrowserKindColours(t *testing.T) {
	browser := browsertest.Start(t)
	sum := fixedSummary(t)
	ctx, pe := openReport(t, browser, sum, 0, 0)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!window.gcstressReport`, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("report.html never drew: %v", err)
	}
	kindOf := map[string]string{}
	for _, r := range sum.Results {
		kindOf[r.Scenario.Name], kindOf[r.Scenario.Kind] = r.Scenario.Kind, r.Scenario.Kind
	}
	CheckToggleColours(t, ctx, kindOf)
	pe.Check(t)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
