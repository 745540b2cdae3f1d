package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// store is a synthetic store for the fake Runner: its live heap, the
// bytes its heap grows per GB written, a GC cycle's cost, its off-heap
// bytes, and which confirmations come back degraded (by setting label).
type store struct {
	live, growth, cost float64
	off                int64
	degraded           map[string]bool
	// borderline: confirmations that come back elevated with a GC share
	// of 10.5% ± 2% a span, on the healthy line within its noise.
	borderline map[string]bool
}

// result is what a run of st under s makes over 20 one-second windows
// of 0.1 GB after a 2 s warm-up: cycles per GB by the pacer (growth over
// goal minus live), each cycle st.cost, RSS the goal plus 20 MiB, failed
// at the 512 MiB cap, degraded where st says so.
func (st store) result(sc results.Scenario) results.Result {
	s := Setting{GOGC: sc.GOGC, MemLimit: sc.MemLimit}
	goal := math.Inf(1)
	if s.GOGC > 0 {
		goal = st.live * (1 + float64(s.GOGC)/100)
	}
	if s.MemLimit > 0 {
		goal = min(goal, float64(s.MemLimit))
	}
	if math.IsInf(goal, 1) {
		goal = 600 * mib
	}
	spiral := goal <= 1.05*st.live // a limit at the live heap: the death spiral
	goal = max(goal, 1.05*st.live)
	total := 2 * st.growth / (goal - st.live) // cycles over 2 GB
	rss := uint64(goal) + 20*mib
	r := run(sc.Kind, s, 20, func(i int, w *results.Sample, _ *results.WindowHealth) {
		n := uint64(math.Floor(float64(i+1)*total/20) - math.Floor(float64(i)*total/20))
		w.WinCycles, w.GCCPU, w.HeapLive, w.HeapGoal, w.RSS, w.OffHeapBytes = n, float64(n)*st.cost, uint64(st.live), uint64(goal), rss, st.off
		w.HeapObjects = uint64(goal)
	})
	r.Scenario = sc
	r.End.PeakRSS, r.End.T, r.End.OffHeapBytes = rss, 20, st.off
	if rss > 512*mib {
		r.Exit.RSSCap, r.Verdict.Class = true, results.Failed
	}
	if spiral {
		r.Verdict.Class, r.Verdict.Cause = results.Failed, results.CauseMemlimitSpiral
	}
	if strings.HasPrefix(sc.Name, "confirm/") && st.degraded[s.Label()] {
		r.Verdict.Class, r.Verdict.Why = results.Degraded, "GC 40% of busy CPU"
	}
	if strings.HasPrefix(sc.Name, "confirm/") && st.borderline[s.Label()] {
		onTheLine(&r)
	}
	return r
}

// onTheLine makes r elevated on its GC CPU, its spans (windows up to one
// in which a cycle ended) at GC shares of 12.5% and 8.5% by turns: on the
// 10% line within twice their standard error.
func onTheLine(r *results.Result) {
	r.Verdict.Class, r.Verdict.Cause, r.Verdict.Why = results.Elevated, results.CauseGCCPU, "GC CPU 10.5%"
	from, k := 0, 0
	for i := range r.Windows {
		if r.Windows[i].WinCycles == 0 && i < len(r.Windows)-1 {
			continue
		}
		share := 10.5 + 2*float64(1-2*(k%2))
		k++
		for j := from; j <= i; j++ {
			r.Verdict.Windows[j].Span, r.Verdict.Windows[j].GCPct = [2]int{from, i}, share
			r.Windows[j].CPUUsed = 100 * r.Windows[j].GCCPU / share
		}
		from = i + 1
	}
}

// fakePlan is an adaptive plan over stores, recording each run's stage,
// kind, setting and length.
func fakePlan(stores map[string]store, kinds []string, calls *[]string, lengths *[]Length) Plan {
	p := Plan{Kinds: kinds, Settings: Grid(DefaultGOGC, DefaultFracs, 512*mib), Adaptive: true, Warmup: 2 * time.Second,
		Limits: lim512, PointDuration: 15 * time.Second, ConfirmDuration: 45 * time.Second, RateMBps: 100}
	p.Point = func(kind, env string, s Setting, n Length, stage Stage) results.Scenario {
		*calls = append(*calls, fmt.Sprintf("%s %s %s", stage, kind, s.Short()))
		if lengths != nil {
			*lengths = append(*lengths, n)
		}
		name := "point/"
		if stage == StageConfirm {
			name = "confirm/"
		}
		return results.Scenario{Name: name + kind + "/" + s.Short(), Kind: kind, Value: 100, GOGC: s.GOGC, MemLimit: s.MemLimit, RSSCap: 512 * mib, Thresholds: results.DefaultThresholds()}
	}
	p.Run = func(_ context.Context, sc results.Scenario) (results.Result, error) {
		return stores[sc.Kind].result(sc), nil
	}
	return p
}

// TestFitCostAndChoose: the model fitted to GOGC 100 and 50 recovers the
// store's live heap, growth and cycle cost; it predicts every candidate,
// picks the cheapest whose need fits the budget less the margin (GOGC
// 400 under a 358 MiB limit: the heap grows to the limit), and as its
// neighbour the cheapest with a tenth less memory (GOGC 200, no limit);
// settings that bound nothing are not predicted.
func TestFitCostAndChoose(t *testing.T) {
	lim70 := Grid([]int{100}, []float64{0.7}, 512*mib)[0].MemLimit
	st := store{live: 100 * mib, growth: 1e9, cost: 0.01}
	var ps []results.FrontierPoint
	for _, s := range FitSettings {
		ps = append(ps, Measure(st.result(results.Scenario{Kind: "heap", Value: 100, GOGC: s.GOGC, RSSCap: 512 * mib, Thresholds: results.DefaultThresholds()}), 2*time.Second))
	}
	m, ok := FitCost(ps, "heap")
	if !ok || m.Live != 100*mib || math.Abs(m.Growth/1e9-1) > 0.15 || math.Abs(m.CycleCost-0.01) > 1e-9 || m.Beside != 20*mib || m.Points != 2 {
		t.Fatalf("model %+v", m)
	}
	if _, ok := m.Predict(Setting{GOGC: GOGCOff}); ok {
		t.Error("GOGC off with no limit predicted")
	}
	if p, _ := m.Predict(Setting{GOGC: 100, MemLimit: 50 * mib}); !math.IsInf(p.GCCPUSPerGB, 1) {
		t.Errorf("a limit under the live heap: %+v, want the spiral (+Inf)", p)
	}
	pick, nb, hasNb, ok := Choose(m, Grid(DefaultGOGC, DefaultFracs, 512*mib), lim512)
	if !ok || pick.Setting != (Setting{GOGC: 400, MemLimit: lim70}) || !hasNb || nb.Setting != (Setting{GOGC: 200}) {
		t.Fatalf("pick %+v, neighbour %+v (%v)", pick, nb, hasNb)
	}
	if pick.Need != lim70+20*mib {
		t.Errorf("need %d", pick.Need)
	}
	if txt := PredictionText("heap", m, pick, nb, hasNb, lim512); !strings.Contains(txt, "predicts GOGC 400 with GOMEMLIMIT 358 MiB cheapest") || !strings.Contains(txt, "its neighbour with less memory GOGC 200") {
		t.Errorf("text %q", txt)
	}
	tight := Limits{Container: 128 * mib, Headroom: 0.1}
	if _, _, _, ok := Choose(m, Grid(DefaultGOGC, DefaultFracs, 128*mib), tight); ok {
		t.Error("a 128 MiB container fits a 100 MiB live heap")
	}
}

// TestRunAdaptive: a model-guided run measures the fit settings for every
// kind (interleaved), then each kind's pick and neighbour, then one
// confirmation per kind: 4 points a kind, not the grid's 20; a point
// runs at least -point-duration for results.FrontierTargetCycles, at most
// FrontierCapFactor times; every recommendation rests on measured points,
// is confirmed and carries its GOMEMLIMIT as a fraction of the container.
func TestRunAdaptive(t *testing.T) {
	var calls []string
	var lengths []Length
	stores := map[string]store{"heap": {live: 100 * mib, growth: 1e9, cost: 0.01}, "arena": {live: 60 * mib, growth: 0.5e9, cost: 0.004, off: 30 * mib}}
	p := fakePlan(stores, []string{"heap", "arena"}, &calls, &lengths)
	var said []string
	p.Say = func(l string) { said = append(said, l) }
	out, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 10 || calls[0] != "fit heap 100/-" || calls[1] != "fit arena 100/-" || calls[2] != "fit heap 50/-" || calls[3] != "fit arena 50/-" ||
		!strings.HasPrefix(calls[4], "predicted heap") || !strings.HasPrefix(calls[5], "predicted arena") || !strings.HasPrefix(calls[6], "neighbour heap") ||
		calls[8] != "confirm heap "+calls[8][len("confirm heap "):] || !strings.HasPrefix(calls[9], "confirm arena") {
		t.Fatalf("calls %q", calls)
	}
	if want := (Length{Min: 15 * time.Second, Cap: 45 * time.Second, Cycles: results.FrontierTargetCycles}); lengths[0] != want {
		t.Errorf("point length %+v, want %+v", lengths[0], want)
	}
	if want := (Length{Min: 45 * time.Second, Cap: 135 * time.Second, Cycles: results.FrontierConfirmCycles}); lengths[8] != want {
		t.Errorf("confirmation length %+v, want %+v", lengths[8], want)
	}
	if len(said) != 4 || !strings.HasPrefix(said[0], "fit: 4 point(s)") || !strings.Contains(said[1], "heap: the model") || !strings.HasPrefix(said[3], "the rest ≈ ") {
		t.Errorf("said %q", said)
	}
	for _, r := range out.Recs {
		t.Logf("%s: %s; %s", r.Kind, r.Reason, r.ConfirmNote)
		if !r.Confirmed || r.GOGC == 0 || strings.HasPrefix(r.Reason, NoRecommendation) || !strings.HasPrefix(r.ConfirmNote, "confirmed") {
			t.Errorf("%s: %+v", r.Kind, r)
		}
		if !ran(out.Points, r.Kind, Setting{GOGC: r.GOGC, MemLimit: r.MemLimit}) {
			t.Errorf("%s: recommended %d/%d, not a measured point", r.Kind, r.GOGC, r.MemLimit)
		}
		if want := float64(r.MemLimit) / (512 * mib); r.MemLimitFraction != want {
			t.Errorf("%s: fraction %g, want %g", r.Kind, r.MemLimitFraction, want)
		}
	}
	for _, m := range out.Models {
		if !strings.Contains(m.Prediction, "predicts") {
			t.Errorf("model %+v", m)
		}
	}
	for _, pt := range out.Points {
		if pt.Stage == "" || pt.LiveHeap == 0 {
			t.Errorf("point %+v", pt)
		}
	}
}

// TestConfirmFallback: a candidate whose confirmation is refuted is not
// recommended; the next candidate is confirmed instead and the reason
// names the refuted one; when that one is refuted too, or there is no
// other, there is no recommendation (GOGC and GOMEMLIMIT 0), its reason
// begins "no recommendation" and says why in one sentence.
func TestConfirmFallback(t *testing.T) {
	first := func(degraded map[string]bool) (Outcome, []string) {
		var calls []string
		p := fakePlan(map[string]store{"heap": {live: 100 * mib, growth: 1e9, cost: 0.01, degraded: degraded}}, []string{"heap"}, &calls, nil)
		out, err := Run(context.Background(), p)
		if err != nil || len(out.Recs) != 1 {
			t.Fatalf("%v %+v", err, out)
		}
		return out, calls
	}
	base, _ := first(nil)
	cand := Setting{GOGC: base.Recs[0].GOGC, MemLimit: base.Recs[0].MemLimit}
	out, calls := first(map[string]bool{cand.Label(): true})
	r := out.Recs[0]
	if !r.Confirmed || SettingOf(results.FrontierPoint{GOGC: r.GOGC, MemLimit: r.MemLimit}) == cand || len(r.Refuted) != 1 ||
		!strings.Contains(r.Reason, "the next candidate after "+FractionLabel(cand, 512*mib)+", which its confirmation refuted") ||
		!strings.HasPrefix(calls[len(calls)-2], "confirm heap "+cand.Short()) {
		t.Fatalf("one refuted: %+v (calls %q)", r, calls)
	}
	t.Logf("one refuted: %s", r.Reason)
	second := Setting{GOGC: r.GOGC, MemLimit: r.MemLimit}
	out, _ = first(map[string]bool{cand.Label(): true, second.Label(): true})
	r = out.Recs[0]
	if r.Confirmed || r.GOGC != 0 || r.MemLimit != 0 || r.MemLimitFraction != 0 || !strings.HasPrefix(r.Reason, "no recommendation: its confirmation refuted "+FractionLabel(cand, 512*mib)+", then "+FractionLabel(second, 512*mib)) ||
		!strings.Contains(r.ConfirmNote, "refuted: the run was degraded") || strings.Count(r.Reason, ". ") > 0 {
		t.Fatalf("both refuted: %+v", r)
	}
	t.Logf("both refuted: %s", r.Reason)
	b, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(b), `"memlimit_fraction":0`) || !strings.Contains(string(b), `"confirmed":false`) {
		t.Errorf("json %s %v", b, err)
	}
}

// TestConfirmBorderline: a confirmation on the healthy line within its
// noise neither confirms nor refutes its candidate: the next is
// confirmed instead and the reason says the first could not be decided;
// with both on the line there is no recommendation, and the reason says
// inconclusive and what would decide it. A run of the same setting that
// came out healthy on the line is as undecided (the verdict must not
// flip between two runs).
func TestConfirmBorderline(t *testing.T) {
	first := func(on map[string]bool) results.Recommendation {
		var calls []string
		p := fakePlan(map[string]store{"heap": {live: 100 * mib, growth: 1e9, cost: 0.01, borderline: on}}, []string{"heap"}, &calls, nil)
		out, err := Run(context.Background(), p)
		if err != nil || len(out.Recs) != 1 {
			t.Fatalf("%v %+v", err, out)
		}
		return out.Recs[0]
	}
	base := first(nil)
	cand := Setting{GOGC: base.GOGC, MemLimit: base.MemLimit}
	r := first(map[string]bool{cand.Label(): true})
	if !r.Confirmed || len(r.Undecided) != 1 || len(r.Refuted) != 0 || !strings.Contains(r.Reason, FractionLabel(cand, 512*mib)+", whose confirmation could not decide") {
		t.Fatalf("one on the line: %+v", r)
	}
	second := Setting{GOGC: r.GOGC, MemLimit: r.MemLimit}
	r = first(map[string]bool{cand.Label(): true, second.Label(): true})
	if r.Confirmed || r.GOGC != 0 || !r.ConfirmInconclusive || len(r.Undecided) != 2 ||
		!strings.HasPrefix(r.Reason, "no recommendation: inconclusive: its confirmation could not decide "+FractionLabel(cand, 512*mib)+" or "+FractionLabel(second, 512*mib)) ||
		!strings.Contains(r.Reason, "-confirm-duration") || !strings.HasPrefix(r.ConfirmNote, "inconclusive: its GC CPU, 10.") {
		t.Fatalf("both on the line: %+v", r)
	}
	t.Logf("both on the line: %s", r.Reason)

	rec := results.Recommendation{Kind: "heap", GOGC: 200, Fits: true, PredictedGCCPUSPerGB: 0.2, PredictedGCCPUSE: 0.01, PredictedPeakRSS: 300 * mib}
	p := pt("heap", 200, 0, 0.2, 300*mib, results.Healthy)
	p.SpanCycles, p.GCCPUSE, p.GCPct, p.GCPctSE = 20, 0.01, 9.6, 0.3
	p.Borderline = borderline(p, results.DefaultThresholds())
	if c := Confirm(rec, p, lim512); c.Confirmed || !c.ConfirmInconclusive {
		t.Errorf("healthy at 9.6%% ± 0.3%%: %+v", c)
	}
	p.GCPct = 8
	p.Borderline = borderline(p, results.DefaultThresholds())
	if c := Confirm(rec, p, lim512); !c.Confirmed || c.ConfirmInconclusive {
		t.Errorf("healthy at 8%% ± 0.3%%: %+v", c)
	}
	p.Class, p.Cause, p.GCPct, p.GCPctSE = results.Elevated, results.CauseGCCPU, 10.4, 0.3
	p.Borderline = borderline(p, results.DefaultThresholds())
	if c := Confirm(rec, p, lim512); c.Confirmed || !c.ConfirmInconclusive {
		t.Errorf("elevated at 10.4%% ± 0.3%%: %+v", c)
	}
	p.OffHeapBytes = 200 * mib // refuted on memory whatever its share
	if c := Confirm(rec, p, lim512); c.Confirmed || c.ConfirmInconclusive || !strings.HasPrefix(c.ConfirmNote, "refuted: it needs") {
		t.Errorf("on the line but over the budget: %+v", c)
	}
	p.OffHeapBytes, p.Cause = 0, results.CauseAssist
	if borderline(p, results.DefaultThresholds()) {
		t.Error("elevated on its assists: borderline on the GC line")
	}
}

// TestRecommendBorderline: an elevated point on the healthy line within
// its noise is a candidate (its confirmation decides), and the reason
// says so; one clearly elevated is not, nor one elevated on its assists;
// and Measure names an elevated run's cause from its windows.
func TestRecommendBorderline(t *testing.T) {
	big := pt("heap", 100, 0, 0.1, 600*mib, results.Healthy) // over the budget
	on := pt("heap", 50, 300*mib, 0.3, 320*mib, results.Elevated)
	on.Cause, on.GCPct, on.GCPctSE = results.CauseGCCPU, 10.2, 0.3
	on.Borderline = borderline(on, results.DefaultThresholds())
	r := Recommend([]results.FrontierPoint{big, on}, "heap", lim512)
	if !r.Fits || r.GOGC != 50 || !strings.Contains(r.Reason, "on the line between healthy and elevated, which its confirmation decides") {
		t.Errorf("borderline candidate: %+v", r)
	}
	for _, c := range []struct {
		name string
		mod  func(p *results.FrontierPoint)
	}{
		{"clearly elevated", func(p *results.FrontierPoint) { p.GCPct = 12 }},
		{"elevated on assists", func(p *results.FrontierPoint) { p.Cause = results.CauseAssist }},
	} {
		p := on
		c.mod(&p)
		p.Borderline = borderline(p, results.DefaultThresholds())
		if r := Recommend([]results.FrontierPoint{big, p}, "heap", lim512); r.Fits {
			t.Errorf("%s: a candidate: %+v", c.name, r)
		}
	}
	res := run("heap", Setting{GOGC: 50}, 10, nil)
	onTheLine(&res)
	res.Verdict.Cause = ""
	for i := range res.Verdict.Windows {
		res.Verdict.Windows[i].Class, res.Verdict.Windows[i].Cause = results.Elevated, results.CauseGCCPU
	}
	if p := Measure(res, 2*time.Second); p.Cause != results.CauseGCCPU || !p.Borderline {
		t.Errorf("measured elevated on the line: cause %q, borderline %v (%.2f%% ± %.2f)", p.Cause, p.Borderline, p.GCPct, p.GCPctSE)
	}
}

// TestConfirm: a confirmation within the tolerance, or beyond it but
// within twice the combined standard error, confirms; one dearer beyond
// both, degraded, failed, over the budget, past the SLO or peaking
// higher is refuted, each with its clause; a cheaper run confirms and
// says so.
func TestConfirm(t *testing.T) {
	rec := results.Recommendation{Kind: "heap", GOGC: 200, Fits: true, PredictedGCCPUSPerGB: 0.2, PredictedGCCPUSE: 0.01, PredictedPeakRSS: 300 * mib}
	got := pt("heap", 200, 0, 0.22, 320*mib, results.Healthy)
	got.SpanCycles, got.GCCPUSE = 20, 0.01
	if c := Confirm(rec, got, lim512); !c.Confirmed || !strings.HasPrefix(c.ConfirmNote, "confirmed: GC CPU 0.22") || c.ConfirmPeakRSS != 320*mib {
		t.Errorf("+10%%: %+v", c)
	}
	for _, c := range []struct {
		name string
		mod  func(p *results.FrontierPoint)
		want string // "" confirms
	}{
		{"+40% GC, narrow", func(p *results.FrontierPoint) { p.GCCPUSPerGB = 0.28 }, "+40% over the predicted"},
		{"+40% GC, wide", func(p *results.FrontierPoint) { p.GCCPUSPerGB, p.GCCPUSE = 0.28, 0.06 }, ""},
		{"-40% GC", func(p *results.FrontierPoint) { p.GCCPUSPerGB = 0.12 }, ""},
		{"degraded", func(p *results.FrontierPoint) { p.Class, p.Why = results.Degraded, "GC 40%" }, "the run was degraded (GC 40%)"},
		{"failed", func(p *results.FrontierPoint) { p.Class, p.Cause = results.Failed, results.CauseRSSCap }, "the run was failed (rss-cap)"},
		{"few cycles", func(p *results.FrontierPoint) {
			p.Class, p.Cause, p.Cycles = results.Inconclusive, results.CauseFewCycles, 1
		}, "completed 1 GC cycle(s), too few"},
		{"over budget", func(p *results.FrontierPoint) { p.OffHeapBytes = 150 * mib }, "it needs 320 MiB + 150 MiB off-heap > 461 MiB"},
		{"SLO", func(p *results.FrontierPoint) { p.ILatP99 = int64(80 * time.Millisecond) }, "its p99 80ms > 50ms"},
		{"RSS +20%", func(p *results.FrontierPoint) { p.PeakRSS = 360 * mib }, "its peak RSS is +20% over the predicted"},
	} {
		p := got
		c.mod(&p)
		r := Confirm(rec, p, lim512)
		switch {
		case c.want == "" && !r.Confirmed:
			t.Errorf("%s: refuted: %s", c.name, r.ConfirmNote)
		case c.want != "" && (r.Confirmed || !strings.HasPrefix(r.ConfirmNote, "refuted: ") || !strings.Contains(r.ConfirmNote, c.want)):
			t.Errorf("%s: %v %q, want refuted with %q", c.name, r.Confirmed, r.ConfirmNote, c.want)
		}
		if c.name == "-40% GC" && !strings.Contains(r.ConfirmNote, "cost less than predicted") {
			t.Errorf("cheaper: %q", r.ConfirmNote)
		}
	}
}

// TestRecommendIdleCollector: a kind whose collector ran too few cycles
// at every setting that bounds the heap (GOGC off without a limit bounds
// nothing) gets that as its answer: GOGC does not matter, keep GOGC 100
// with a GOMEMLIMIT at the budget less the engine's off-heap bytes, the
// predicted peak the highest; its confirmation confirms while the
// collector stays idle and is refuted once it runs; a failed point is
// never idle.
func TestRecommendIdleCollector(t *testing.T) {
	few := func(gogc int, lim int64, rss uint64) results.FrontierPoint {
		p := pt("arena", gogc, lim, 0, rss, results.Inconclusive)
		p.Cause, p.OffHeapBytes = results.CauseFewCycles, 100*mib
		return p
	}
	ps := []results.FrontierPoint{few(100, 0, 95*mib), few(50, 0, 97*mib), few(GOGCOff, 0, 80*mib), few(200, 0, 600*mib)}
	rec := Recommend(ps, "arena", lim512)
	limit := Budget(512*mib, 0.1) - 100*mib
	if !rec.Fits || !rec.Idle || rec.GOGC != 100 || rec.MemLimit != limit || rec.PredictedPeakRSS != 97*mib ||
		math.Abs(rec.MemLimitFraction-float64(limit)/(512*mib)) > 1e-12 ||
		!strings.HasPrefix(rec.Reason, "GOGC does not matter at this rate: the collector ran fewer than 2 GC cycles in every one of the 2 setting(s)") ||
		!strings.Contains(rec.Reason, "keep GOGC 100 and set GOMEMLIMIT 70% of the container (361 MiB: the container less its 10% headroom and the engine's 100 MiB off-heap) for headroom") {
		t.Fatalf("idle: %+v", rec)
	}
	conf := few(100, limit, 98*mib)
	if c := Confirm(rec, conf, lim512); !c.Confirmed {
		t.Errorf("still idle: %s", c.ConfirmNote)
	}
	conf.Class, conf.Cause, conf.Cycles, conf.GCCPUSPerGB = results.Healthy, "", 8, 0.3
	if c := Confirm(rec, conf, lim512); c.Confirmed || !strings.Contains(c.ConfirmNote, "it is not idle at this rate") {
		t.Errorf("ran 8 cycles: %+v", c)
	}
	ps[0].Class, ps[0].Cause = results.Failed, results.CauseRSSCap
	if rec := Recommend(ps[:1], "arena", lim512); rec.Fits {
		t.Errorf("recommended a failed point: %+v", rec)
	}
}

// TestRunGridConfirms: a grid the user gave runs every setting, setting
// major and kind minor; each kind that fits is confirmed once; a kind
// that fits nothing gets no recommendation whose reason, when most of its
// points ran too few cycles, says the points did not measure and asks
// for a production rate.
func TestRunGridConfirms(t *testing.T) {
	var calls []string
	stores := map[string]store{"heap": {live: 100 * mib, growth: 1e9, cost: 0.01}, "big": {live: 400 * mib, growth: 1e9, cost: 0.01}}
	p := fakePlan(stores, []string{"heap", "big"}, &calls, nil)
	p.Adaptive, p.Settings = false, Grid([]int{100, 200}, []float64{0, 0.5}, 512*mib)
	out, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 9 || calls[0] != "grid heap 100/-" || calls[1] != "grid big 100/-" || calls[2] != "grid heap 100/256M" || calls[8] != "confirm heap "+calls[8][13:] {
		t.Fatalf("calls %q", calls)
	}
	if !out.Recs[0].Confirmed || out.Recs[1].Confirmed || out.Recs[1].GOGC != 0 || !strings.HasPrefix(out.Recs[1].Reason, "no recommendation: no setting fits") {
		t.Errorf("recs %+v", out.Recs)
	}
	few := []results.FrontierPoint{pt("map", 100, 0, 0, 200*mib, results.Inconclusive), pt("map", 200, 0, 0, 200*mib, results.Inconclusive), pt("map", 50, 0, 1, 200*mib, results.Healthy)}
	few[0].Cause, few[1].Cause = results.CauseFewCycles, results.CauseFewCycles
	if s := unmeasuredText(few, "map", "", 2.72, lim512); s != "; the points did not measure: at 2.72 MB/s 2 of 3 points completed fewer than 2 GC cycles; give -rate near production" {
		t.Errorf("unmeasured %q", s)
	}
	if s := unmeasuredText(few[1:], "map", "", 2.72, lim512); s == "" {
		t.Error("half the points few-cycles: no clause")
	}
	if s := unmeasuredText(few[2:], "map", "", 2.72, lim512); s != "" {
		t.Errorf("measured: %q", s)
	}
	// Points that missed the SLO did so whatever their cycles: the rate is
	// not what to change.
	few[0].ILatP99, few[1].ILatP99 = int64(3*time.Second), int64(3*time.Second)
	if s := unmeasuredText(few, "map", "", 2.72, lim512); s != "" {
		t.Errorf("few cycles past the SLO: %q", s)
	}
}

// TestRunNeverRecommendsUnconfirmed: over random stores, containers and
// refuted confirmations, in model-guided runs and grids, every
// recommendation Run returns is either confirmed by a run of its setting
// or none (GOGC and GOMEMLIMIT 0, its reason beginning "no
// recommendation"), and a confirmed one names a measured, fitting point
// or the idle answer.
func TestRunNeverRecommendsUnconfirmed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		st := store{live: float64(20+rng.IntN(300)) * mib, growth: 1e8 + rng.Float64()*2e9, cost: 0.001 + rng.Float64()*0.05, degraded: map[string]bool{}}
		for _, s := range Grid(DefaultGOGC, DefaultFracs, 512*mib) {
			if rng.IntN(4) == 0 {
				st.degraded[s.Label()] = true
			}
		}
		var calls []string
		p := fakePlan(map[string]store{"heap": st}, []string{"heap"}, &calls, nil)
		p.Adaptive = i%2 == 0
		out, err := Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range out.Recs {
			s := Setting{GOGC: r.GOGC, MemLimit: r.MemLimit}
			switch {
			case !r.Confirmed && (r.GOGC != 0 || r.MemLimit != 0 || !strings.HasPrefix(r.Reason, NoRecommendation+": ")):
				t.Fatalf("store %d: unconfirmed but recommended: %+v", i, r)
			case r.Confirmed && (st.degraded[s.Label()] || !strings.HasPrefix(r.ConfirmNote, "confirmed")):
				t.Fatalf("store %d: confirmed a refuted setting: %+v", i, r)
			case r.Confirmed && !r.Idle && !ran(out.Points, "heap", s):
				t.Fatalf("store %d: confirmed an unmeasured setting: %+v", i, r)
			case strings.Count(strings.Join(calls, "\n"), "confirm ") > MaxConfirms:
				t.Fatalf("store %d: %d confirmations", i, strings.Count(strings.Join(calls, "\n"), "confirm "))
			}
		}
	}
}

// TestEstimate: a model-guided plan counts its fit points whatever the
// outcome (Low) and, at most, a pick, a neighbour and a confirmation per
// kind (High), at their least length with the expected settle, Expected
// their middle; at their caps with the settle's cap and a second
// confirmation each (Upper); a grid the user gave counts every setting,
// its confirmations in High only. After the fit points a run is expected
// to take the warm-up and its cycles at the model's cycles per GB and the
// rate, within its least length and its cap; a kind whose pick is still
// to run, or that has none, may have nothing to confirm.
func TestEstimate(t *testing.T) {
	p := Plan{Kinds: []string{"heap", "arena"}, Settings: Grid(DefaultGOGC, DefaultFracs, 512*mib), Adaptive: true, Warmup: 2 * time.Second,
		Limits: lim512, PointDuration: 15 * time.Second, ConfirmDuration: 45 * time.Second, RateMBps: 100,
		Beside: Beside{Start: time.Second, Settle: 6 * time.Second, SettleCap: 30 * time.Second}}
	e := p.Estimate()
	if e.Points != 8 || e.Confirms != 2 || e.MaxConfirms != 4 || e.Low != 4*22*time.Second || e.High != 8*22*time.Second+2*52*time.Second ||
		e.Expected != (e.Low+e.High)/2 || e.Upper != 8*76*time.Second+4*166*time.Second || !strings.HasPrefix(e.Text, "model-guided: 4 fit point(s)") {
		t.Errorf("adaptive: %+v", e)
	}
	if r := e.Range(planDur); !strings.HasPrefix(r, "≈ 3.07 min (88 s to 4.67 min: from the fit points alone") || !strings.Contains(r, "at most") {
		t.Errorf("adaptive range: %q", r)
	}
	p.Adaptive = false
	if e := p.Estimate(); e.Points != 40 || e.Low != 40*22*time.Second || e.High != 40*22*time.Second+2*52*time.Second || !strings.HasPrefix(e.Text, "the grid you gave: 40 point(s)") {
		t.Errorf("grid: %+v", e)
	}
	p.Limits.Container = 0
	if e := p.Estimate(); e.Confirms != 0 || strings.Contains(e.Text, "confirmation") || e.Low != e.High || e.Expected != e.Low ||
		e.Range(planDur) != "≈ 14.7 min (at most 50.7 min)" {
		t.Errorf("no container: %+v %q", e, e.Range(planDur))
	}
	pt := p.PointLength() // 100 MB/s is 0.1 GB/s: 10 cycles/GB is a cycle a second
	for _, c := range []struct {
		perGB float64
		want  time.Duration
	}{{10, 15 * time.Second}, {2, 32 * time.Second}, {1, 45 * time.Second}, {math.Inf(1), 15 * time.Second}, {0, 15 * time.Second}} {
		if got := p.runLength(pt, c.perGB); got != c.want {
			t.Errorf("%g cycles/GB: %v, want %v", c.perGB, got, c.want)
		}
	}
	p.Limits = lim512
	pick := Prediction{Setting: Setting{GOGC: 400}, CyclesPerGB: 2}
	lo, hi, txt := restText(p, []job{{"heap", "", pick.Setting, StagePredicted}}, map[string]Prediction{"heap": pick, "heap/" + pick.Short(): pick})
	// heap's point 32 s and, unless the point refutes it, its confirmation
	// 2+50 s; arena has no pick: 45 s, if it has anything to confirm.
	if wantLo, wantHi := (7+32)*time.Second, (7+32)*time.Second+(7+52)*time.Second+(7+45)*time.Second; lo != wantLo || hi != wantHi ||
		!strings.Contains(txt, "1 point(s)") || !strings.Contains(txt, "up to 2 confirmation(s)") {
		t.Errorf("rest %v-%v %q, want %v-%v", lo, hi, txt, wantLo, wantHi)
	}
	// A pick measured already (a fit setting) is confirmed whatever runs
	// next: its confirmation counts in the low end too.
	fit := Prediction{Setting: FitSettings[0], CyclesPerGB: 2}
	lo, hi, _ = restText(p, nil, map[string]Prediction{"heap": fit, "heap/" + fit.Short(): fit})
	if lo != (7+52)*time.Second || hi != lo+(7+45)*time.Second {
		t.Errorf("rest with a measured pick %v-%v", lo, hi)
	}
}
