package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/browsertest"
)

// frontierSummary is a run of the frontier for heap and arena: a Pareto
// set, a dominated point, a spiral and an inconclusive one, a
// recommendation per kind (arena's: none fits) and the model.
func frontierSummary() *results.Summary {
	p := func(kind string, gogc int, lim int64, gc float64, rss uint64, cls results.Class, pareto bool) results.FrontierPoint {
		return results.FrontierPoint{Kind: kind, Value: 100, GOGC: gogc, MemLimit: lim, GCCPUSPerGB: gc, PeakRSS: rss, Class: cls, Pareto: pareto, ILatP99: 2e6, MBps: 20}
	}
	spiral := p("heap", 100, 256*mib, 3, 300*mib, results.Failed, false)
	spiral.Cause = results.CauseMemlimitSpiral
	few := p("heap", -1, 460*mib, 0, 400*mib, results.Inconclusive, false)
	few.Cause = results.CauseFewCycles
	off := p("arena", 100, 0, 0.05, 90*mib, results.Healthy, true)
	off.OffHeapBytes = 40 * mib
	return &results.Summary{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rules: "rules", SpanNote: "spans",
		Frontier: []results.FrontierPoint{
			p("heap", 100, 0, 0.5, 200*mib, results.Healthy, true), off,
			p("heap", 200, 410*mib, 0.27, 352*mib, results.Healthy, true),
			p("heap", 200, 0, 0.6, 360*mib, results.Elevated, false),
			spiral, few,
		},
		Recommendation: []results.Recommendation{
			{Kind: "heap", Value: 100, GOGC: 200, MemLimit: 410 * mib, MemLimitFraction: 410.0 / 512, Fits: true, Reason: "GOGC 200 with GOMEMLIMIT 410 MiB: 46% less GC CPU per GB than the default",
				Confirmed: true, ConfirmNote: "confirmed: GC CPU 0.28 s/GB against the grid's 0.27 (+4%)"},
			{Kind: "arena", Value: 100, Reason: "no recommendation: no setting fits: none is healthy within 461 MiB; the nearest is GOGC 100", ConfirmNote: "no confirmation: no setting fits"},
		},
		FrontierModel: []results.FrontierModel{{Kind: "heap", Slope: -0.9, GuideSlope: -1, Points: 3, Note: "heap: slope of -0.90"}},
		FrontierRun:   &results.FrontierRun{Container: 512 * mib, Headroom: 0.1, RateMBps: 20, RateFrom: "-rate", PointDuration: 15 * time.Second, ConfirmFor: 45 * time.Second, SLO: 50 * time.Millisecond},
	}
}

// TestFrontierTables: the terminal and Markdown reports carry a row per
// point (class and cause, Pareto), the recommendations with their
// confirmations, the model, and the frontier's settings; a run without a
// frontier prints none of it.
func TestFrontierTables(t *testing.T) {
	sum := frontierSummary()
	var tb, md bytes.Buffer
	if err := WriteTable(&tb, sum); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, sum, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": tb.String(), "markdown": md.String()} {
		for _, want := range []string{"GOGC 200 with GOMEMLIMIT 410 MiB: 46% less GC CPU per GB", "confirmed: GC CPU 0.28", "no setting fits",
			"slope of -0.90", "failed (memlimit-spiral)", "inconclusive (few-cycles)", "| 410 MiB", "a 512 MiB container", "40 MiB",
			"recommended for heap: GOGC=200 GOMEMLIMIT=429916160 (410 MiB, 80% of the container)", "no recommendation for arena: no setting fits"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q", name, want)
			}
		}
		if n := strings.Count(out, "| heap ") + strings.Count(out, "| arena "); n < len(sum.Frontier) {
			t.Errorf("%s report has %d point rows, want %d", name, n, len(sum.Frontier))
		}
	}
	if strings.Contains(md.String(), "recommended for arena") {
		t.Error("report.md recommends a setting for arena, which has none")
	}
	if !strings.Contains(md.String(), "## Frontier") {
		t.Error("report.md lacks its frontier heading")
	}
	tb.Reset()
	if err := WriteTable(&tb, &results.Summary{}); err != nil || strings.Contains(tb.String(), "Frontier") {
		t.Errorf("no frontier: %v %q", err, tb.String())
	}
}

// TestRecommendationRows: report.html's recommendation table gives a
// confirmed setting its verdict, GOGC and GOMEMLIMIT (bytes and share of
// the container); a kind with no setting, or whose candidate its
// confirmation refuted, reads "no recommendation" with no setting; only
// a confirmed setting is ringed on its chart and scatter, and only its
// conclusion names a setting to use.
func TestRecommendationRows(t *testing.T) {
	sum := frontierSummary()
	refuted := results.Recommendation{Kind: "map", Value: 100, Fits: true, Reason: "no recommendation: its confirmation refuted GOGC 200 with GOMEMLIMIT 256 MiB (50% of the container)",
		ConfirmNote: "refuted: the run was degraded (GC 40%)", Refuted: []string{"GOGC 200 with GOMEMLIMIT 256 MiB (50% of the container)"}}
	sum.Recommendation = append(sum.Recommendation, refuted)
	sum.Frontier = append(sum.Frontier, results.FrontierPoint{Kind: "map", Value: 100, GOGC: 200, MemLimit: 256 * mib, GCCPUSPerGB: 0.1, PeakRSS: 200 * mib, Class: results.Healthy})
	_, rows := recommendationTable(sum.Recommendation)
	want := [][]string{
		{"heap", "recommended (confirmed healthy)", "200", "410 MiB (80% of the container, 429916160 B)"},
		{"arena", "no recommendation", "-", "-"},
		{"map", "no recommendation", "-", "-"},
	}
	for i, w := range want {
		if got := rows[i][:4]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
	}
	for _, wf := range frontierWebData(sum) {
		if (wf.Recommended != nil) != (wf.Kind == "heap") {
			t.Errorf("%s: recommended %+v", wf.Kind, wf.Recommended)
		}
	}
	if rec := recommendedXY(sum, frontierSeries{kind: "map"}, sum.Frontier); rec != nil {
		t.Errorf("the refuted setting is ringed at %+v", rec)
	}
	cs := frontierConclusions(sum, noEscape)
	if len(cs) != 3 || !strings.Contains(cs[0], "use GOGC=200 GOMEMLIMIT=429916160") || strings.Contains(cs[2], "use ") || !strings.Contains(cs[2], "no recommendation: its confirmation refuted") {
		t.Errorf("conclusions %q", cs)
	}
}

// TestFrontierCharts: one chart per kind, its Pareto line holding exactly
// the Pareto points in RSS order, the failed point a series of its own,
// the container and its budget as markers; both files are written and
// named as charts.
func TestFrontierCharts(t *testing.T) {
	sum := frontierSummary()
	p := frontierPanel(sum, frontierSeries{kind: "heap"})
	par, ok := seriesOf(p, "heap Pareto set")
	if !ok || len(par.xys) != 2 || par.xys[0].X != 200 || par.xys[1].X != 352 {
		t.Fatalf("pareto series %+v", par)
	}
	if f, ok := seriesOf(p, "failed (memlimit-spiral, rss-cap)"); !ok || len(f.xys) != 1 || f.xys[0].Y != 3 {
		t.Errorf("failed series %+v", f)
	}
	if _, ok := seriesOf(p, "recommended"); !ok {
		t.Error("no recommended point")
	}
	for _, want := range []string{"container 512 MiB", "less 10% headroom"} {
		if _, ok := legendOf(p, want); !ok {
			t.Errorf("no legend %q", want)
		}
	}
	dir := t.TempDir()
	files, err := writeFrontierCharts(dirSink(dir), sum)
	if err != nil || len(files) != 4 {
		t.Fatalf("files %v, %v", files, err)
	}
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 || !isChart(f) {
			t.Errorf("%s: %v, chart %v", f, err, isChart(f))
		}
	}
}

// TestBrowserFrontier: report.html draws one frontier chart per kind with
// no console error, and its tables.
func TestBrowserFrontier(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, frontierSummary()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"frontier":[`, `"recommended":{"label":"200/410M"}`, "Recommended setting", "The GC guide"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	browser := browsertest.Start(t)
	ctx, pe := openReport(t, browser, frontierSummary(), 0, 0)
	n, err := chromedp.Run(ctx, chromedp.Poll[int](`window.gcstressReport && window.gcstressReport.frontiers`, chromedp.WithPollingTimeout(45*time.Second)))
	if err != nil || n != 2 {
		t.Fatalf("frontier charts: %d %v", n, err)
	}
	// Only the confirmed row reads green: arena's "no setting fits: none
	// is healthy within ..." is a sentence, not a healthy cell.
	green, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("td.c-healthy")).map(function (td) { return td.textContent })`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(green, "recommended (confirmed healthy)") || slices.ContainsFunc(green, func(s string) bool {
		return strings.Contains(s, "no setting fits") || strings.Contains(s, "no recommendation")
	}) {
		t.Errorf("green cells %q", green)
	}
	Screenshot(t, ctx, "report-frontier.png")
	pe.Check(t)
}

// TestHeapGoalNone: with GOGC off and no GOMEMLIMIT the runtime's "no
// goal" (near the largest int64) reads "none", not trillions of MiB.
func TestHeapGoalNone(t *testing.T) {
	for _, c := range []struct {
		p    results.FrontierPoint
		want string
	}{
		{results.FrontierPoint{GOGC: -1, HeapGoal: 8946696051507626496}, "none"},
		{results.FrontierPoint{GOGC: -1}, "none"},
		{results.FrontierPoint{GOGC: -1, MemLimit: 256 << 20, HeapGoal: 241 << 20}, "241 MiB"},
		{results.FrontierPoint{GOGC: 100, HeapGoal: 60 << 20}, "60 MiB"},
	} {
		if got := heapGoalText(c.p); got != c.want {
			t.Errorf("heap goal of %+v: %q, want %q", c.p, got, c.want)
		}
	}
	_, rows := frontierTable([]results.FrontierPoint{{Kind: "heap", GOGC: -1, HeapGoal: 1<<63 - 1}})
	if !strings.Contains(strings.Join(rows[0], "|"), "|none|") {
		t.Errorf("row %q", rows[0])
	}
}

// TestFrontierEstimateRange: the settings line gives the estimate's range
// when the plan had one, and the one figure when it did not.
func TestFrontierEstimateRange(t *testing.T) {
	fr := results.FrontierRun{Container: 512 * mib, RateMBps: 20, RateFrom: "-rate", PointDuration: 15 * time.Second, ConfirmFor: 45 * time.Second,
		Plan: "model-guided", Estimate: 265 * time.Second, EstimateLow: 126 * time.Second, EstimateHigh: 405 * time.Second, Elapsed: 259 * time.Second}
	if s := frontierSettingsLine(&fr, results.DefaultThresholds()); !strings.Contains(s, "estimated at 4m25s (2m6s to 6m45s, as the store decides which picks and confirmations run); it took 4m19s.") {
		t.Errorf("with a range: %q", s)
	}
	fr.EstimateLow, fr.EstimateHigh = 0, 0
	if s := frontierSettingsLine(&fr, results.DefaultThresholds()); !strings.Contains(s, "estimated at 4m25s; it took 4m19s.") {
		t.Errorf("without: %q", s)
	}
}
