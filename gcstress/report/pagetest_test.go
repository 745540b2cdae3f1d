// The browser checks that the tests of report.html and of the live page
// share: a page's test-hook counts, the charts a scenario group draws, the
// kind colours of the charts' toggles and full-page screenshots. The
// browser itself is internal/browsertest's (the tests skip without one).
// They read pages and write screenshots, nothing else.

package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/gcstress/internal/view"
)

// Counts is what a page's test hook (window.gcstressReport,
// window.gcstressLive) reports, with Canvases the page's canvas elements.
type Counts struct {
	Points   int  `json:"points"`
	Lines    int  `json:"lines"`
	Charts   int  `json:"charts"`
	Done     int  `json:"done"`
	Ended    bool `json:"ended"`
	Canvases int  `json:"canvases"`
}

// Panels are the charts of one scenario group (web/gcstress.js PANELS): a
// group draws at least that many.
func Panels() []string { return []string{"mbps", "heap", "gc", "assist", "rss", "p99"} }

// Screenshot writes the tab's full page to GCSTRESS_SCREENSHOTS when set,
// else to the test's temporary folder.
func Screenshot(t *testing.T, tab context.Context, name string) {
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

// Toggles are the page's chart toggles: each one's text (a scenario's
// label) and CSS colour ("#rrggbb"); at least one, or the test fails.
func Toggles(t *testing.T, ctx context.Context) [][2]string {
	t.Helper()
	toggles, err := chromedp.Run(ctx, chromedp.Evaluate[[][2]string](`Array.from(document.querySelectorAll("label.toggle")).map(function (l) {
	  var c = getComputedStyle(l).color.match(/\d+/g).map(Number);
	  return [l.textContent.trim(), "#" + c.slice(0, 3).map(function (v) { return v.toString(16).padStart(2, "0"); }).join("")];
	})`))
	if err != nil || len(toggles) == 0 {
		t.Fatalf("toggles: %v %v", toggles, err)
	}
	return toggles
}

// CheckToggleColours checks that each kind toggle of the page's charts
// (its text a scenario's label, kindOf's key) is in its kind's colour,
// view.KindColourHex.
func CheckToggleColours(t *testing.T, ctx context.Context, kindOf map[string]string) {
	t.Helper()
	for _, tg := range Toggles(t, ctx) {
		kind, ok := kindOf[tg[0]]
		if want := view.KindColourHex(kind); !ok || tg[1] != want {
			t.Errorf("toggle %q: colour %s, want %s (kind %q)", tg[0], tg[1], want, kind)
		}
	}
}
