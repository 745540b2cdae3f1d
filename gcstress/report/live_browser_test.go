package report

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/browsertest"
)

// TestBrowserLive opens the live page during a synthetic run (windows
// recorded before the page opened, then pushed one at a time, a scenario
// that was not announced, the end) and checks what it drew. It skips when
// no browser is installed (GCSTRESS_BROWSER names one; else chromium,
// chromium-browser or google-chrome on PATH); screenshots go to
// GCSTRESS_SCREENSHOTS when set.
func TestBrowserLive(t *testing.T) {
	browser, ls, url := liveBrowser(t)
	kinds := []string{"heap", "arena"}
	var announced []results.Scenario
	for _, k := range kinds {
		announced = append(announced, results.Scenario{Name: k + "/100B", Group: "matrix", Kind: k, Value: 100})
	}
	ls.Begin(&results.Summary{Command: "gcstress (browser test)", Out: "out"}, announced)
	feed := func(s results.Scenario, from, to int) {
		for i := from; i < to; i++ {
			w, v := liveWindow(s.Name, i)
			ls.Line(s, w, v)
		}
	}
	feed(announced[0], 0, 20) // recorded before the page opens
	ctx, pe := openPage(t, browser, url)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.gcstressLive && window.gcstressLive.lines >= 20`, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("history never arrived: %v", err)
	}
	liveDelay(t, ctx, func(i int) { feed(announced[0], 20+i, 21+i) })
	ls.Done(results.Result{Scenario: announced[0], Verdict: results.Health{Class: results.Healthy, Why: "test"}})
	feed(announced[1], 0, 20)
	late := results.Scenario{Name: "capacity/step-1", Group: "capacity", Kind: "arena", Value: 100} // not announced
	ls.Line(late, results.Sample{Type: results.SampleStart, Scenario: late.Name}, results.Health{})
	feed(late, 0, 5)
	ls.Done(results.Result{Scenario: announced[1], Verdict: results.Health{Class: results.Degraded, Why: "test"}})
	ls.End(&results.Summary{Out: "out"})
	got, err := chromedp.Run(ctx, chromedp.Poll[Counts](`window.gcstressLive.ended && window.gcstressLive.charts > 0 && Object.assign({canvases: document.querySelectorAll("canvas").length}, window.gcstressLive)`,
		chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil {
		t.Fatalf("live page never saw the end: %v", err)
	}
	if got.Lines != 48 || got.Done != 2 || got.Charts < 2*len(Panels()) || got.Canvases < got.Charts {
		t.Errorf("live page: %+v", got)
	}
	CheckToggleColours(t, ctx, map[string]string{"heap": "heap", "arena": "arena", late.Name: late.Kind})
	// The strip of a scenario that ended shows its final class, not the
	// last window's verdict (its windows were all healthy).
	strip := `Array.from(document.querySelectorAll(".strip-label")).some(function (e) { return /\(degraded\)$/.test(e.textContent); })`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](strip, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		labels, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".strip-label")).map(function (e) { return e.textContent; })`))
		t.Errorf("no strip says the degraded scenario's final class: %v (%v)", labels, err)
	}
	Screenshot(t, ctx, "live.png")
	pe.Check(t)
}

// liveDelay pushes one window at a time (push(i), i = 0..2) and measures how
// long each takes to be counted by the live page; the median must be under
// two seconds (a running scenario's windows show within two seconds of
// their arrival).
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

// liveBrowser starts a browser (skipping without one) and a Server on
// loopback, closed when the test ends; it returns the page's URL.
func liveBrowser(t *testing.T) (context.Context, *Server, string) {
	t.Helper()
	browser := browsertest.Start(t)
	ls := NewServer(Options{})
	url, err := ls.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	return browser, ls, url
}

// openPage opens url in a new tab of browser, for at most a minute.
func openPage(t *testing.T, browser context.Context, url string) (context.Context, *browsertest.PageErrors) {
	t.Helper()
	tab, pe := browsertest.NewTab(t, browser)
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	return ctx, pe
}
