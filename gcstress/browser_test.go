package gcstress

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/internal/browsertest"
)

// The browser tests open report.html (file://) and the live page in
// headless Chromium and check that the charts drew data with no console
// error or exception. They skip when no browser is installed
// (GCSTRESS_BROWSER names one; else chromium, chromium-browser or
// google-chrome on PATH). Screenshots go to GCSTRESS_SCREENSHOTS when set,
// else to the test's temporary folder.

func startBrowser(t *testing.T) context.Context { return browsertest.Start(t) }

func newTab(t *testing.T, browser context.Context) (context.Context, *browsertest.PageErrors) {
	return browsertest.NewTab(t, browser)
}

// screenshot writes the tab's full page to the screenshot folder.
func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	dir := os.Getenv("GCSTRESS_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil || len(png) < 1000 {
		t.Fatalf("screenshot %s: %d bytes, %v", p, len(png), err)
	}
	t.Logf("screenshot: %s", p)
}

// pageCounts is what a page's test hook reports.
type pageCounts struct {
	Points   int  `json:"points"`
	Lines    int  `json:"lines"`
	Charts   int  `json:"charts"`
	Done     int  `json:"done"`
	Ended    bool `json:"ended"`
	Canvases int  `json:"canvases"`
}

// TestBrowser opens report.html from file:// and the live page during a
// synthetic run.
func TestBrowser(t *testing.T) {
	browser := startBrowser(t)
	t.Run("report.html", func(t *testing.T) { browseReport(t, browser) })
	t.Run("live", func(t *testing.T) { browseLive(t, browser) })
}

// openReport writes sum's report.html into a temporary folder and opens it
// from file:// in a new tab (a width x height viewport when width > 0),
// with a 60 s deadline that ends with the test.
func openReport(t *testing.T, browser context.Context, sum *Summary, width, height int64) (context.Context, *browsertest.PageErrors) {
	t.Helper()
	dir := t.TempDir()
	if err := WriteHTMLFile(dir, sum); err != nil {
		t.Fatal(err)
	}
	tab, pe := newTab(t, browser)
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

func browseReport(t *testing.T, browser context.Context) {
	ctx, pe := openReport(t, browser, fixedSummary(t), 0, 0)
	got, err := chromedp.Run(ctx, chromedp.Poll[pageCounts](`window.gcstressReport && Object.assign({canvases: document.querySelectorAll("canvas").length}, window.gcstressReport)`,
		chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil {
		t.Fatalf("report.html never drew: %v", err)
	}
	if got.Points == 0 || got.Charts < len(panelsForTest()) || got.Canvases < got.Charts {
		t.Errorf("report.html drew %+v", got)
	}
	tables, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tables table tbody tr").length`))
	if err != nil || tables == 0 {
		t.Errorf("table rows: %d %v", tables, err)
	}
	screenshot(t, ctx, "report.png")
	pe.Check(t)
}

// panelsForTest is the number of charts per scenario group (web/gcstress.js
// PANELS): one group draws at least that many.
func panelsForTest() []string { return []string{"mbps", "heap", "gc", "assist", "rss", "p99"} }

func browseLive(t *testing.T, browser context.Context) {
	ls := NewLiveServer(LiveOptions{})
	url, err := ls.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	kinds := []string{"heap", "arena"}
	var announced []Scenario
	for _, k := range kinds {
		announced = append(announced, Scenario{Name: k + "/100B", Group: "matrix", Kind: k, Value: 100})
	}
	ls.Begin(&Summary{Command: "gcstress (browser test)", Out: "out"}, announced)
	feed := func(s Scenario, from, to int) {
		for i := from; i < to; i++ {
			w, v := liveWindow(s.Name, i)
			ls.Line(s, w, v)
		}
	}
	feed(announced[0], 0, 20) // recorded before the page opens
	tab, pe := newTab(t, browser)
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.gcstressLive && window.gcstressLive.lines >= 20`, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("history never arrived: %v", err)
	}
	liveDelay(t, ctx, func(i int) { feed(announced[0], 20+i, 21+i) })
	ls.Done(Result{Scenario: announced[0], Verdict: Verdict{Class: Healthy, Why: "test"}})
	feed(announced[1], 0, 20)
	late := Scenario{Name: "capacity/step-1", Group: "capacity", Kind: "arena", Value: 100} // not announced
	ls.Line(late, Sample{Type: SampleStart, Scenario: late.Name}, Verdict{})
	feed(late, 0, 5)
	ls.Done(Result{Scenario: announced[1], Verdict: Verdict{Class: Degraded, Why: "test"}})
	ls.End(&Summary{Out: "out"})
	got, err := chromedp.Run(ctx, chromedp.Poll[pageCounts](`window.gcstressLive.ended && window.gcstressLive.charts > 0 && Object.assign({canvases: document.querySelectorAll("canvas").length}, window.gcstressLive)`,
		chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil {
		t.Fatalf("live page never saw the end: %v", err)
	}
	if got.Lines != 48 || got.Done != 2 || got.Charts < 2*len(panelsForTest()) || got.Canvases < got.Charts {
		t.Errorf("live page: %+v", got)
	}
	checkToggleColours(t, ctx, map[string]string{"heap": "heap", "arena": "arena", late.Name: late.Kind})
	// The strip of a scenario that ended shows its final class, not the
	// last window's verdict (its windows were all healthy).
	strip := `Array.from(document.querySelectorAll(".strip-label")).some(function (e) { return /\(degraded\)$/.test(e.textContent); })`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](strip, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		labels, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".strip-label")).map(function (e) { return e.textContent; })`))
		t.Errorf("no strip says the degraded scenario's final class: %v (%v)", labels, err)
	}
	screenshot(t, ctx, "live.png")
	pe.Check(t)
}

// liveDelay pushes one window at a time (push(i), i = 0..2) and measures how
// long each takes to be counted by the live page; the median must be under
// two seconds (issue 17: a running scenario's windows show within two
// seconds of their arrival).
func liveDelay(t *testing.T, ctx context.Context, push func(i int)) {
	t.Helper()
	var delays []time.Duration
	for i := 0; i < 3; i++ {
		before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.gcstressLive.lines`))
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		push(i)
		cond := fmt.Sprintf(`window.gcstressLive.lines > %d`, before)
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("window %d never reached the page: %v", i, err)
		}
		delays = append(delays, time.Since(t0))
	}
	slices.Sort(delays)
	t.Logf("live page delays: %v", delays)
	if delays[1] > 2*time.Second {
		t.Errorf("median delay from Line to the page %v, want under 2s (all: %v)", delays[1], delays)
	}
}

// liveWindow is a synthetic window line and its verdict (as live's tests build them).
func liveWindow(name string, i int) (Sample, Verdict) {
	w := Sample{Type: SampleWindow, Scenario: name, T: float64(i+1) * 0.25, MBps: 10 + float64(i%7), HeapLive: 10 << 20,
		HeapGoal: 20 << 20, MemLimit: 64 << 20, RSS: 40 << 20, LatN: 10, LatP99: 1e6, Progress: float64(i) / 1000}
	return w, Verdict{Class: Healthy, Windows: []WindowHealth{{T: w.T, Class: Healthy, GCPct: 3}}}
}
