package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress/internal/plan"
	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
)

// The frontier's renderings (summary.json's frontier[], recommendation[],
// frontier_model[]): a table of every point, the recommendation and its
// confirmation per kind, the model check, a chart per kind
// (charts_frontier.go) and report.html's scatter per kind.

// frontierSetting names a point's setting: "GOGC 200, GOMEMLIMIT 410 MiB".
func frontierSetting(gogc int, lim int64) (string, string) {
	g, l := "off", "none"
	if gogc > 0 {
		g = strconv.Itoa(gogc)
	}
	if lim > 0 {
		l = results.MiB(uint64(lim))
	}
	return g, l
}

// frontierTable is one row per point: its setting, figures, class (and
// whether its settle phase reached a steady state), its run and its
// stage (a model-guided run's fit, predicted or neighbour point).
func frontierTable(ps []results.FrontierPoint) (header []string, rows [][]string) {
	header = []string{"Kind", "GOGC", "GOMEMLIMIT", "GC CPU s/GB", "Assist s/GB", "GC cycles/GB", "Peak RSS", "Off-heap", "Heap goal", "p99 (intended)", "MB/s", "Class", "Run (settle)", "Stage", "Pareto"}
	for _, p := range ps {
		g, l := frontierSetting(p.GOGC, p.MemLimit)
		cls := string(p.Class)
		if p.Cause != "" {
			cls += " (" + string(p.Cause) + ")"
		}
		par := ""
		if p.Pareto {
			par = "yes"
		}
		rows = append(rows, []string{frontierSeries{p.Kind, p.Env}.label(), g, l, fmt.Sprintf("%.3g", p.GCCPUSPerGB), fmt.Sprintf("%.3g", p.AssistSPerGB), fmt.Sprintf("%.0f", p.CyclesPerGB),
			results.MiB(p.PeakRSS), results.MiB(uint64(max(p.OffHeapBytes, 0))), heapGoalText(p), view.NS(p.ILatP99), fmt.Sprintf("%.3g", p.MBps), cls, runText(p), p.Stage, par})
	}
	return header, rows
}

// runText is a point's run and its settle phase: "15 s (settle 6 s)",
// "45 s (did not settle in 30 s)", "-" when unknown.
func runText(p results.FrontierPoint) string {
	if p.RunSeconds <= 0 {
		return "-"
	}
	s := fmt.Sprintf("%.0f s", p.RunSeconds)
	switch {
	case p.Unsettled != "":
		s += fmt.Sprintf(" (did not settle in %.0f s)", p.SettleSeconds)
	case p.SettleSeconds > 0:
		s += fmt.Sprintf(" (settle %.0f s)", p.SettleSeconds)
	}
	return s
}

// Verdicts of the recommendation table: a confirmed setting reads as
// the health class it held (report.html colours the cell); every other
// row says there is none.
const (
	verdictConfirmed = "recommended (confirmed healthy)"
	verdictNone      = "no recommendation"
)

// recommendationTable is one row per kind: whether there is a setting to
// use, the setting (GOMEMLIMIT in bytes and as a share of the container),
// why, and its confirmation.
func recommendationTable(recs []results.Recommendation) (header []string, rows [][]string) {
	header = []string{"Kind", "Verdict", "GOGC", "GOMEMLIMIT", "Why", "Confirmation"}
	for _, r := range recs {
		v, g, l := verdictNone, "-", "-"
		if r.Confirmed {
			v, g, l = verdictConfirmed, gogcValue(r.GOGC), limitValue(r)
		}
		rows = append(rows, []string{frontierSeries{r.Kind, r.Env}.label(), v, g, l, r.Reason, r.ConfirmNote})
	}
	return header, rows
}

// gogcValue is GOGC as its environment variable takes it: "200", "off".
func gogcValue(g int) string {
	if g <= 0 {
		return "off"
	}
	return strconv.Itoa(g)
}

// limitValue is a recommendation's GOMEMLIMIT: "410 MiB (80% of the
// container, 429916160 B)", "none".
func limitValue(r results.Recommendation) string {
	if r.MemLimit <= 0 {
		return "none"
	}
	return fmt.Sprintf("%s (%.0f%% of the container, %d B)", results.MiB(uint64(r.MemLimit)), 100*r.MemLimitFraction, r.MemLimit)
}

// settingToUse is a confirmed recommendation as the environment a
// process is started with: "GOGC=200 GOMEMLIMIT=429916160 (410 MiB, 80%
// of the container)".
func settingToUse(r results.Recommendation) string {
	if r.MemLimit <= 0 {
		return fmt.Sprintf("GOGC=%s with no GOMEMLIMIT", gogcValue(r.GOGC))
	}
	return fmt.Sprintf("GOGC=%s GOMEMLIMIT=%d (%s, %.0f%% of the container)", gogcValue(r.GOGC), r.MemLimit, results.MiB(uint64(r.MemLimit)), 100*r.MemLimitFraction)
}

// noGoal is where a heap goal stops being one: with GOGC off and no
// GOMEMLIMIT the runtime reports a goal near the largest int64.
const noGoal = uint64(1) << 62

// heapGoalText is a point's heap goal, "none" when it has none.
func heapGoalText(p results.FrontierPoint) string {
	if p.HeapGoal >= noGoal || (p.GOGC <= 0 && p.MemLimit <= 0 && p.HeapGoal == 0) {
		return "none"
	}
	return results.MiB(p.HeapGoal)
}

// frontierSettingsLine is the frontier's settings in one sentence.
func frontierSettingsLine(fr *results.FrontierRun, th results.Thresholds) string {
	c := "no -container (no recommendation)"
	if fr.Container > 0 {
		c = fmt.Sprintf("a %s container (every point's hard RSS cap) with %.0f%% headroom", results.MiB(uint64(fr.Container)), 100*fr.Headroom)
	}
	rate := "no rate: " + fr.RateFrom
	if fr.RateMBps > 0 {
		rate = fmt.Sprintf("every point open loop at %.3g MB/s (%s)", fr.RateMBps, fr.RateFrom)
		if fr.Settle > 0 {
			rate += fmt.Sprintf(" after a settle phase: closed loop until its memory (live heap plus off-heap bytes) was steady, at most %v", fr.Settle)
		}
	}
	how := "the grid given, every setting"
	if fr.Adaptive {
		how = "model-guided: GOGC 100 and 50 fit the GC cost model, then the setting it predicts cheapest within the container and a neighbour with less memory"
	}
	slo := "no latency limit"
	if fr.SLO > 0 {
		slo = "p99 from intended start within " + fr.SLO.String()
	}
	s := fmt.Sprintf("%s; %s; %s; each point at least %v and until %d GC cycles after the warm-up (at most %dx), each confirmation at least %v and until %d cycles; a recommendation is healthy with %s, its peak RSS plus off-heap bytes within the container less headroom, and confirmed by a run of its own (one refuted, or left undecided by a run within its noise of the healthy GC CPU line, is never recommended). "+
		"A point is failed (memlimit-spiral) when its live heap stayed at %g%% of GOMEMLIMIT or more with GC CPU (idle-time marking included) >= %g%% or the limiter on for %d windows, "+
		"failed (rss-cap) at the container, inconclusive (few-cycles) with fewer than %d GC cycles after the warm-up; the Pareto set is the measured points no other beats on both GC CPU per GB and peak RSS.",
		c, rate, how, fr.PointDuration, results.FrontierTargetCycles, results.FrontierCapFactor, fr.ConfirmFor, results.FrontierConfirmCycles, slo,
		results.SpiralHeapPct, th.DegradedGC, results.SpiralWindows, results.FrontierMinCycles)
	switch {
	case fr.Estimate > 0 && fr.EstimateHigh > fr.EstimateLow:
		s += fmt.Sprintf(" Planned: %s, estimated at %v (%v to %v, as the store decides which picks and confirmations run); it took %v.",
			fr.Plan, fr.Estimate.Round(time.Second), fr.EstimateLow.Round(time.Second), fr.EstimateHigh.Round(time.Second), fr.Elapsed)
	case fr.Estimate > 0:
		s += fmt.Sprintf(" Planned: %s, estimated at %v; it took %v.", fr.Plan, fr.Estimate.Round(time.Second), fr.Elapsed)
	}
	return s
}

// writeFrontier writes the frontier's section (nothing without one):
// heading, its settings, the table of points, the recommendations with
// their confirmations and the model check, each through esc.
func writeFrontier(w io.Writer, sum *results.Summary, heading string, esc func(string) string) {
	fr := sum.FrontierRun
	if fr == nil {
		return
	}
	fmt.Fprint(w, heading)
	fmt.Fprintf(w, "%s\n\n", esc(frontierSettingsLine(fr, thresholdsOf(sum.Results))))
	if len(sum.Frontier) > 0 {
		h, rows := frontierTable(sum.Frontier)
		renderTable(w, h, rows, esc)
	}
	for _, r := range sum.Recommendation {
		k := esc(frontierSeries{r.Kind, r.Env}.label())
		if r.Confirmed {
			fmt.Fprintf(w, "\n- recommended for %s: %s: %s.\n  %s.\n", k, esc(settingToUse(r)), esc(r.Reason), esc(r.ConfirmNote))
		} else {
			fmt.Fprintf(w, "\n- %s for %s: %s.\n", verdictNone, k, esc(strings.TrimPrefix(r.Reason, verdictNone+": ")))
			if r.ConfirmNote != "" {
				fmt.Fprintf(w, "  %s.\n", esc(r.ConfirmNote))
			}
		}
	}
	for _, m := range sum.FrontierModel {
		fmt.Fprintf(w, "- model: %s.\n", esc(m.Note))
		if m.Prediction != "" {
			fmt.Fprintf(w, "- prediction: %s.\n", esc(m.Prediction))
		}
	}
}

// frontierConclusions are the recommendation sentences: a confirmed one
// names the setting to use, any other says there is none and why.
func frontierConclusions(sum *results.Summary, esc func(string) string) []string {
	var out []string
	for _, r := range sum.Recommendation {
		s := fmt.Sprintf("For %s at %s of key+value per second: %s", esc(frontierSeries{r.Kind, r.Env}.label()), rateText(sum.FrontierRun), esc(r.Reason))
		if r.Confirmed {
			s = fmt.Sprintf("For %s at %s of key+value per second, use %s: %s; %s", esc(frontierSeries{r.Kind, r.Env}.label()), rateText(sum.FrontierRun),
				esc(settingToUse(r)), esc(r.Reason), esc(r.ConfirmNote))
		}
		out = append(out, s+".")
	}
	return out
}

func rateText(fr *results.FrontierRun) string {
	if fr == nil {
		return "?"
	}
	return fmt.Sprintf("%.3g MB", fr.RateMBps)
}

// frontierWebTables are report.html's frontier tables.
func frontierWebTables(sum *results.Summary) []webTable {
	if sum.FrontierRun == nil {
		return nil
	}
	h, rows := frontierTable(sum.Frontier)
	out := []webTable{{Title: "Frontier: GOGC x GOMEMLIMIT", Note: frontierSettingsLine(sum.FrontierRun, thresholdsOf(sum.Results)), Header: h, Rows: rows}}
	if len(sum.Recommendation) > 0 {
		h, rows = recommendationTable(sum.Recommendation)
		out = append(out, webTable{Title: "Recommended setting", Header: h, Rows: rows})
	}
	if len(sum.FrontierModel) > 0 {
		t := webTable{Title: "The GC guide's model", Header: []string{"Kind", "Slope", "Guide", "Points", "Note"}}
		for _, m := range sum.FrontierModel {
			t.Rows = append(t.Rows, []string{frontierSeries{m.Kind, m.Env}.label(), fmt.Sprintf("%.2f", m.Slope), fmt.Sprintf("%.0f", m.GuideSlope), fmt.Sprint(m.Points), m.Note})
		}
		out = append(out, t)
	}
	return out
}

// webFrontier is one kind's scatter on report.html (one per kind and
// build environment: Kind is then "heap env=classic").
type webFrontier struct {
	Kind        string            `json:"kind"`
	Color       string            `json:"color"`
	ContainerMi float64           `json:"container_mib,omitempty"`
	BudgetMi    float64           `json:"budget_mib,omitempty"`
	Points      []webFrontierPt   `json:"points"`
	Recommended *webFrontierPoint `json:"recommended,omitempty"`
}

type webFrontierPt struct {
	RSSMi  float64       `json:"rss_mib"`
	GC     float64       `json:"gc"`
	Label  string        `json:"label"`
	Class  results.Class `json:"class"`
	Pareto bool          `json:"pareto"`
}

type webFrontierPoint struct {
	Label string `json:"label"`
}

// frontierWebData is report.html's scatter data, one per kind.
func frontierWebData(sum *results.Summary) []webFrontier {
	var out []webFrontier
	for _, se := range frontierKinds(sum.Frontier) {
		wf := webFrontier{Kind: se.label(), Color: view.EnvColourHex(se.kind, view.EnvIndex(sum.BuildEnvs, se.env))}
		if fr := sum.FrontierRun; fr != nil && fr.Container > 0 {
			wf.ContainerMi = float64(fr.Container) / (1 << 20)
			wf.BudgetMi = wf.ContainerMi * (1 - fr.Headroom)
		}
		for _, p := range sum.Frontier {
			if se.has(p.Kind, p.Env) {
				wf.Points = append(wf.Points, webFrontierPt{RSSMi: float64(p.PeakRSS) / (1 << 20), GC: finite(p.GCCPUSPerGB), Label: pointLabel(p), Class: p.Class, Pareto: p.Pareto})
			}
		}
		for _, r := range sum.Recommendation {
			if se.has(r.Kind, r.Env) && r.Confirmed {
				wf.Recommended = &webFrontierPoint{Label: plan.Setting{GOGC: r.GOGC, MemLimit: r.MemLimit}.Short()}
			}
		}
		out = append(out, wf)
	}
	return out
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// pointLabel is a chart's label of a point: "200/410M".
func pointLabel(p results.FrontierPoint) string { return plan.SettingOf(p).Short() }

// frontierSeries is one kind's frontier in one build environment (env
// "": none): its own points, Pareto set, recommendation and chart.
type frontierSeries struct{ kind, env string }

// label is the series in tables and titles: "heap", "heap env=classic".
func (s frontierSeries) label() string {
	if s.env == "" {
		return s.kind
	}
	return s.kind + " env=" + s.env
}

// stem is its chart's file name without the extension:
// "frontier-heap", "frontier-heap-env-classic".
func (s frontierSeries) stem() string {
	if s.env == "" {
		return frontierChartPrefix + s.kind
	}
	return frontierChartPrefix + s.kind + "-env-" + s.env
}

func (s frontierSeries) has(kind, env string) bool { return s.kind == kind && s.env == env }

// frontierKinds lists the points' kinds (per build environment) in order
// of first appearance.
func frontierKinds(ps []results.FrontierPoint) []frontierSeries {
	var ks []frontierSeries
	seen := map[frontierSeries]bool{}
	for _, p := range ps {
		if s := (frontierSeries{p.Kind, p.Env}); !seen[s] {
			seen[s] = true
			ks = append(ks, s)
		}
	}
	return ks
}
