package report

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/browsertest"
)

// TestBrowserMMU: report.html draws the MMU chart, one curve per traced
// scenario, with no console error or exception.
func TestBrowserMMU(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser run")
	}
	browser := browsertest.Start(t)
	sum := fixedSummary(t)
	sum.Results = append(sum.Results, tracedRun("heap", 12, 0.42, results.OpAssist{Ops: 100, OpsWithAssistPct: 10}),
		tracedRun("arena", 3, 0.97, results.OpAssist{Ops: 100}))
	ctx, pe := openReport(t, browser, sum, 0, 0)
	n, err := chromedp.Run(ctx, chromedp.Poll[int](`window.gcstressReport && window.gcstressReport.mmu`, chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil || n != 2 {
		t.Errorf("MMU curves drawn: %d (%v), want 2", n, err)
	}
	pe.Check(t)
}
