package plan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

const mib = 1 << 20

func TestParseGOGC(t *testing.T) {
	got, err := ParseGOGC("50, 100,200,400,off")
	if err != nil || len(got) != 5 || got[0] != 50 || got[4] != GOGCOff {
		t.Fatalf("ParseGOGC = %v, %v", got, err)
	}
	if got, err := ParseGOGC("-1"); err != nil || got[0] != GOGCOff {
		t.Fatalf("-1: %v %v", got, err)
	}
	for _, bad := range []string{"", " , ", "0", "-2", "abc", "100,100", "50,off,-1", "1.5"} {
		if _, err := ParseGOGC(bad); !errors.Is(err, ErrGrid) {
			t.Errorf("ParseGOGC(%q) = %v, want ErrGrid", bad, err)
		}
	}
}

func TestParseFracs(t *testing.T) {
	got, err := ParseFracs("none,0.5,70%,1")
	if err != nil || len(got) != 4 || got[0] != 0 || got[1] != 0.5 || got[2] != 0.7 || got[3] != 1 {
		t.Fatalf("ParseFracs = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "1.1", "-0.5", "150%", "x", "none,off", "0.5,50%", "NaN", "inf"} {
		if _, err := ParseFracs(bad); !errors.Is(err, ErrGrid) {
			t.Errorf("ParseFracs(%q) = %v, want ErrGrid", bad, err)
		}
	}
	if err := CheckGrid([]int{100}, []float64{0, 2}); !errors.Is(err, ErrGrid) {
		t.Errorf("CheckGrid with fraction 2: %v", err)
	}
	if err := CheckGrid(nil, []float64{0}); !errors.Is(err, ErrGrid) {
		t.Errorf("CheckGrid with no GOGC: %v", err)
	}
}

func TestGrid(t *testing.T) {
	g := Grid(DefaultGOGC, DefaultFracs, 512*mib)
	if len(g) != 20 {
		t.Fatalf("%d settings, want 20", len(g))
	}
	if g[0] != (Setting{GOGC: 50}) || g[3] != (Setting{GOGC: 50, MemLimit: int64(DefaultFracs[3] * float64(512*mib))}) || g[3].MemLimit < 460*mib || g[3].MemLimit > 461*mib || g[19].GOGC != GOGCOff {
		t.Errorf("grid %v", g)
	}
	if l := (Setting{GOGC: 200, MemLimit: 410 * mib}).Label(); l != "GOGC 200 with GOMEMLIMIT 410 MiB" {
		t.Errorf("label %q", l)
	}
	if l := (Setting{GOGC: GOGCOff}).Label(); l != "GOGC off with no GOMEMLIMIT" {
		t.Errorf("label %q", l)
	}
}

// run builds a Result of n one-second windows after a 2 s warm-up with
// the given per-window figures.
func run(kind string, s Setting, n int, w func(i int, smp *results.Sample, wh *results.WindowHealth)) results.Result {
	r := results.Result{Scenario: results.Scenario{Name: "frontier/" + kind, Kind: kind, Value: 100, GOGC: s.GOGC, MemLimit: s.MemLimit, RSSCap: 512 * mib,
		Thresholds: results.DefaultThresholds()}}
	r.Verdict.Class = results.Healthy
	for i := range n {
		smp := results.Sample{Type: results.SampleWindow, T: float64(i + 1), Dur: 1, WinCycles: 2, WinBytes: 1e8, RSS: 100 * mib, HeapGoal: 50 * mib,
			GCCPU: 0.05, Assist: 0.005} // 0.5 and 0.05 s per GB, as the end record says
		wh := results.WindowHealth{T: smp.T, Class: results.Healthy}
		if w != nil {
			w(i, &smp, &wh)
		}
		r.Windows = append(r.Windows, smp)
		r.Verdict.Windows = append(r.Verdict.Windows, wh)
	}
	r.End = &results.Sample{Type: results.SampleEnd, PeakRSS: 120 * mib, SteadyILatP99: 2e6, SteadyMBps: 100, Cost: results.Cost{GCCPUSPerGB: 0.5, AssistCPUSPerGB: 0.05}}
	return r
}

func TestMeasure(t *testing.T) {
	r := run("heap", Setting{GOGC: 200}, 10, func(i int, s *results.Sample, _ *results.WindowHealth) {
		if i == 5 {
			s.HeapGoal, s.RSS, s.OffHeapBytes = 80*mib, 130*mib, 7*mib
		}
	})
	p := Measure(r, 2*time.Second)
	if p.Class != results.Healthy || math.Abs(p.GCCPUSPerGB-0.5) > 1e-9 || math.Abs(p.AssistSPerGB-0.05) > 1e-9 || p.PeakRSS != 130*mib || p.OffHeapBytes != 7*mib ||
		p.HeapGoal != 80*mib || p.ILatP99 != 2e6 || p.GOGC != 200 {
		t.Fatalf("point %+v", p)
	}
	// Windows ending at 2..10 s count: 9 windows of 2 cycles per 0.1 GB.
	if p.Cycles != 18 || math.Abs(p.CyclesPerGB-20) > 1e-9 {
		t.Errorf("cycles %d, per GB %g; want 18, 20", p.Cycles, p.CyclesPerGB)
	}
	if p := Measure(run("heap", Setting{GOGC: GOGCOff, MemLimit: 256 * mib}, 10, nil), 2*time.Second); p.GOGC != GOGCOff {
		t.Errorf("off: gogc %d", p.GOGC)
	}
}

// TestSpiralFails: a limit the live heap meets with the collector flat
// out fails the point with cause memlimit-spiral, even when the
// classifier called it only degraded and even when the container then
// killed it; two such windows in a row are not yet a spiral.
func TestSpiralFails(t *testing.T) {
	lim := Setting{GOGC: 100, MemLimit: 100 * mib}
	spiral := func(from, to int) func(int, *results.Sample, *results.WindowHealth) {
		return func(i int, s *results.Sample, wh *results.WindowHealth) {
			s.MemLimit = uint64(lim.MemLimit)
			s.HeapLive = 60 * mib
			if i >= from && i <= to {
				s.HeapLive, wh.GCPct = 99*mib, 30
				if i%2 == 0 {
					wh.GCPct, wh.Limiter = 10, true
				}
			}
		}
	}
	r := run("heap", lim, 10, spiral(4, 8))
	r.Verdict.Class = results.Degraded
	p := Measure(r, 2*time.Second)
	if p.Class != results.Failed || p.Cause != results.CauseMemlimitSpiral || !strings.Contains(p.Why, "death spiral") {
		t.Fatalf("point %+v", p)
	}
	r.Exit.RSSCap = true
	if p := Measure(r, 2*time.Second); p.Cause != results.CauseMemlimitSpiral {
		t.Errorf("spiral then cap: cause %q", p.Cause)
	}
	if p := Measure(run("heap", lim, 10, spiral(4, 5)), 2*time.Second); p.Class != results.Healthy {
		t.Errorf("two spiral windows: %+v", p)
	}
	calm := run("heap", lim, 10, func(_ int, s *results.Sample, wh *results.WindowHealth) {
		s.MemLimit, s.HeapLive, wh.GCPct = uint64(lim.MemLimit), 99*mib, 20 // at the limit, collector not flat out
	})
	if p := Measure(calm, 2*time.Second); p.Class != results.Healthy {
		t.Errorf("at the limit with GC CPU 20%%: %+v", p)
	}
	// The CI case: a collector that never stops marking on an idle
	// machine reads its dedicated quarter, just under 25% without its
	// idle-time workers, and near all of the CPU with them.
	idleMark := func(idle float64) func(int, *results.Sample, *results.WindowHealth) {
		return func(_ int, s *results.Sample, wh *results.WindowHealth) {
			s.MemLimit, s.HeapLive, wh.GCPct = uint64(lim.MemLimit), 99*mib, 24.5
			s.CPUUsed, s.GCCPU, s.IdleMark = 1, 0.245, idle
		}
	}
	if p := Measure(run("heap", lim, 10, idleMark(0.6)), 2*time.Second); p.Cause != results.CauseMemlimitSpiral || !strings.Contains(p.Why, "idle-time marking") {
		t.Errorf("at the limit, GC 24.5%% plus 60%% idle-time marking: %+v", p)
	}
	if p := Measure(run("heap", lim, 10, idleMark(0)), 2*time.Second); p.Class == results.Failed {
		t.Errorf("at the limit, GC 24.5%% and no idle-time marking: %+v", p)
	}
	noLimit := run("heap", Setting{GOGC: 100}, 10, func(_ int, s *results.Sample, wh *results.WindowHealth) { s.HeapLive, wh.GCPct = 99*mib, 90 })
	if p := Measure(noLimit, 2*time.Second); p.Class == results.Failed {
		t.Errorf("no GOMEMLIMIT, no spiral: %+v", p)
	}
}

// TestAlignedCost: GC CPU per GB is taken over whole cycles, from the
// first cycle end after the warm-up to the last: a cycle every third
// window costing 0.3 s per 0.3 GB is 1 s/GB, where the windows after the
// warm-up as a whole (2 to 10 s: three cycle ends, 0.9 GB) read 1.11 on
// one end record; with one window of cycle ends the end record's figure
// stands.
func TestAlignedCost(t *testing.T) {
	r := run("heap", Setting{GOGC: 400}, 10, func(i int, s *results.Sample, _ *results.WindowHealth) {
		s.WinCycles, s.GCCPU, s.Assist = 0, 0, 0
		if i%3 == 1 { // windows ending at 2, 5, 8 s
			s.WinCycles, s.GCCPU, s.Assist = 1, 0.3, 0.03
		}
	})
	r.End.Cost = results.Cost{GCCPUSPerGB: 1.11, OnCPU: 0.5}
	p := Measure(r, 2*time.Second)
	if math.Abs(p.GCCPUSPerGB-0.5) > 1e-9 || math.Abs(p.AssistSPerGB-0.05) > 1e-9 || math.Abs(p.CyclesPerGB-2/0.6) > 1e-9 || p.Cycles != 3 {
		t.Errorf("aligned: gc %g assist %g cycles/GB %g cycles %d; want 0.5 (1 s/GB at on_cpu 0.5), 0.05, 3.33, 3", p.GCCPUSPerGB, p.AssistSPerGB, p.CyclesPerGB, p.Cycles)
	}
	r = run("heap", Setting{GOGC: 400}, 10, func(i int, s *results.Sample, _ *results.WindowHealth) {
		s.WinCycles = 0
		if i == 4 {
			s.WinCycles = 2
		}
	})
	r.End.Cost = results.Cost{GCCPUSPerGB: 1.11}
	if p := Measure(r, 2*time.Second); p.GCCPUSPerGB != 1.11 || p.Class != results.Healthy {
		t.Errorf("one window of cycle ends: %+v", p)
	}
}

func TestMeasureCapAndFewCycles(t *testing.T) {
	r := run("heap", Setting{GOGC: GOGCOff}, 10, nil)
	r.Exit.RSSCap, r.Verdict.Class = true, results.Failed
	if p := Measure(r, 2*time.Second); p.Class != results.Failed || p.Cause != results.CauseRSSCap {
		t.Errorf("cap: %+v", p)
	}
	r = run("heap", Setting{GOGC: 400}, 10, func(i int, s *results.Sample, _ *results.WindowHealth) {
		s.WinCycles = 0
		if i == 6 {
			s.WinCycles = 1
		}
	})
	if p := Measure(r, 2*time.Second); p.Class != results.Inconclusive || p.Cause != results.CauseFewCycles {
		t.Errorf("one cycle: %+v", p)
	}
	r.End = nil
	r.Verdict.Class = results.Failed
	if p := Measure(r, 2*time.Second); p.Class != results.Failed {
		t.Errorf("no end: %+v", p)
	}
}

func pt(kind string, gogc int, lim int64, gc float64, rss uint64, cls results.Class) results.FrontierPoint {
	return results.FrontierPoint{Kind: kind, Value: 100, GOGC: gogc, MemLimit: lim, GCCPUSPerGB: gc, PeakRSS: rss, Class: cls, ILatP99: 1e6}
}

func TestMarkPareto(t *testing.T) {
	ps := []results.FrontierPoint{
		pt("heap", 50, 0, 1.0, 100*mib, results.Healthy),  // frontier: least memory
		pt("heap", 100, 0, 0.6, 150*mib, results.Healthy), // frontier
		pt("heap", 200, 0, 0.7, 200*mib, results.Healthy), // dominated by 100
		pt("heap", 400, 0, 0.3, 300*mib, results.Elevated),
		pt("heap", GOGCOff, 0, 0.01, 50*mib, results.Failed),       // failed: out, dominates nothing
		pt("heap", GOGCOff, 1, 0.02, 60*mib, results.Inconclusive), // out
		pt("arena", 100, 0, 2.0, 500*mib, results.Healthy),         // its own kind's frontier
	}
	MarkPareto(ps)
	want := []bool{true, true, false, true, false, false, true}
	for i, p := range ps {
		if p.Pareto != want[i] {
			t.Errorf("point %d (%s GOGC %d): pareto %v, want %v", i, p.Kind, p.GOGC, p.Pareto, want[i])
		}
	}
}

var lim512 = Limits{Container: 512 * mib, Headroom: 0.1, SLO: 50 * time.Millisecond}

func TestRecommend(t *testing.T) {
	ps := []results.FrontierPoint{
		pt("heap", 100, 0, 0.5, 200*mib, results.Healthy), // the default
		pt("heap", 200, 410*mib, 0.27, 352*mib, results.Healthy),
		pt("heap", 400, 0, 0.1, 470*mib, results.Healthy),                 // over 512 less 10%
		pt("heap", GOGCOff, 256*mib, 0.01, 300*mib, results.Failed),       // failed
		pt("heap", GOGCOff, 358*mib, 0.05, 380*mib, results.Degraded),     // not healthy
		pt("heap", GOGCOff, 460*mib, 0.02, 400*mib, results.Inconclusive), // no figure
		pt("heap", 300, 0, 0.2, 400*mib, results.Healthy),                 // p99 over the SLO (below)
	}
	ps[6].ILatP99 = int64(80 * time.Millisecond)
	rec := Recommend(ps, "heap", lim512)
	if !rec.Fits || rec.GOGC != 200 || rec.MemLimit != 410*mib || rec.PredictedPeakRSS != 352*mib {
		t.Fatalf("rec %+v", rec)
	}
	for _, want := range []string{"GOGC 200 with GOMEMLIMIT 410 MiB (80% of the container): 46% less GC CPU per GB than the default", "peak 352 MiB of 512 MiB", "461 MiB (512 MiB less 10% headroom)"} {
		if !strings.Contains(rec.Reason, want) {
			t.Errorf("reason %q lacks %q", rec.Reason, want)
		}
	}
	// Off-heap bytes count against the container: 352 + 120 MiB passes 461.
	ps[1].OffHeapBytes = 120 * mib
	if rec := Recommend(ps, "heap", lim512); rec.GOGC != 100 || !strings.Contains(rec.Reason, "Go's default (0.5 GC CPU-s per GB)") {
		t.Errorf("with off-heap: %+v", rec)
	}
}

func TestRecommendNoneFits(t *testing.T) {
	ps := []results.FrontierPoint{
		pt("heap", 100, 0, 0.5, 500*mib, results.Healthy),
		pt("heap", 50, 0, 0.9, 480*mib, results.Healthy),
		pt("heap", GOGCOff, 256*mib, 0.01, 100*mib, results.Failed),
	}
	rec := Recommend(ps, "heap", lim512)
	if rec.Fits || rec.GOGC != 0 || rec.MemLimit != 0 || rec.NearestGOGC != 50 || !strings.HasPrefix(rec.Reason, "no recommendation: no setting fits") ||
		!strings.Contains(rec.Reason, "the nearest is GOGC 50 with no GOMEMLIMIT") {
		t.Fatalf("rec %+v", rec)
	}
	ps = []results.FrontierPoint{pt("heap", 100, 0, 0.5, 500*mib, results.Failed)}
	if rec := Recommend(ps, "heap", lim512); rec.Fits || rec.NearestGOGC != 0 || !strings.Contains(rec.Reason, "every point failed") {
		t.Errorf("all failed: %+v", rec)
	}
}

// TestRecommendNeverPicksBad: over random grids, a pick is always
// healthy, within the container less headroom (off-heap included) and the
// SLO, and no point that fits costs less GC CPU per GB.
func TestRecommendNeverPicksBad(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	classes := []results.Class{results.Healthy, results.Healthy, results.Elevated, results.Degraded, results.Failed, results.Inconclusive}
	budget := Budget(lim512.Container, lim512.Headroom)
	for range 2000 {
		var ps []results.FrontierPoint
		for i := range 1 + rng.IntN(20) {
			p := pt("heap", 50*(i+1), 0, rng.Float64(), uint64(rng.Int64N(700*mib)), classes[rng.IntN(len(classes))])
			p.OffHeapBytes = rng.Int64N(100 * mib)
			p.ILatP99 = rng.Int64N(int64(100 * time.Millisecond))
			ps = append(ps, p)
		}
		rec := Recommend(ps, "heap", lim512)
		for _, p := range ps {
			fits := p.Class == results.Healthy && Need(p) <= budget && p.ILatP99 <= int64(lim512.SLO)
			picked := rec.Fits && p.GOGC == rec.GOGC
			if picked && !fits {
				t.Fatalf("picked a point that does not fit: %+v", p)
			}
			if fits && (!rec.Fits || p.GCCPUSPerGB < rec.PredictedGCCPUSPerGB) {
				t.Fatalf("missed a cheaper fitting point %+v (rec %+v)", p, rec)
			}
		}
	}
}

func TestModel(t *testing.T) {
	var ps []results.FrontierPoint
	for _, g := range []int{50, 100, 200, 400} {
		ps = append(ps, pt("heap", g, 0, 10/float64(g), uint64(g)*mib, results.Healthy))
		ps = append(ps, pt("heap", g, 300*mib, 1, 100*mib, results.Healthy)) // with a limit: not in the fit
	}
	ps = append(ps, pt("heap", GOGCOff, 0, 0.001, 100*mib, results.Healthy), pt("heap", 800, 0, 5, 100*mib, results.Failed))
	m, ok := Model(ps, "heap")
	if !ok || m.Points != 4 || math.Abs(m.Slope+1) > 1e-9 || m.GuideSlope != -1 || !strings.Contains(m.Note, "slope of -1.00") || !m.GCFalls || !m.RSSRises {
		t.Fatalf("model %+v", m)
	}
	ps[2].PeakRSS = 10 * mib // GOGC 100's peak below GOGC 50's
	if m, _ := Model(ps, "heap"); m.RSSRises || !m.GCFalls || !strings.Contains(m.Note, "peak RSS did not rise") {
		t.Errorf("model %+v", m)
	}
	if _, ok := Model(ps[:1], "heap"); ok {
		t.Error("one GOGC value gave a slope")
	}
}

func TestProbeRate(t *testing.T) {
	var steps []float64
	p := RatePlan{Kinds: []string{"heap", "arena"}, SLO: 50 * time.Millisecond, Thresholds: warm2s(),
		Probe: func(k string) results.Scenario { return results.Scenario{Kind: k} },
		Step:  func(k string, mbps float64) results.Scenario { return results.Scenario{Kind: k, Rate: mbps} }}
	p.Run = func(_ context.Context, s results.Scenario) (results.Result, error) {
		r := run(s.Kind, Setting{GOGC: 100}, 6, nil)
		if s.Rate == 0 {
			r.End.MBps = map[string]float64{"heap": 40, "arena": 80}[s.Kind]
			return r, nil
		}
		steps = append(steps, s.Rate)
		r.End.SteadyMBps = s.Rate
		if s.Kind == "heap" && s.Rate > 15 {
			r.End.SteadyMBps = s.Rate / 2 // cannot keep up
		}
		return r, nil
	}
	rate, why, err := ProbeRate(context.Background(), p)
	if err != nil || rate != 10 || !strings.Contains(why, "heap, 40 MB/s") {
		t.Fatalf("rate %g why %q err %v (steps %v)", rate, why, err, steps)
	}
}

// TestRunInterrupted: a cancelled run stops between points, keeps what
// finished, and confirms nothing.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	p := Plan{Kinds: []string{"heap"}, Settings: Grid([]int{100, 200, 400}, []float64{0}, 512*mib), Warmup: 2 * time.Second,
		Limits: lim512, PointDuration: time.Second, ConfirmDuration: 2 * time.Second,
		Point: func(kind, _ string, s Setting, _ Length, _ Stage) results.Scenario {
			return results.Scenario{Kind: kind, GOGC: s.GOGC, RSSCap: 512 * mib}
		},
		Run: func(_ context.Context, s results.Scenario) (results.Result, error) {
			if n++; n == 2 {
				cancel()
			}
			return run(s.Kind, Setting{GOGC: s.GOGC}, 10, nil), nil
		}}
	out, err := Run(ctx, p)
	if err != nil || n != 2 || len(out.Points) != 2 || len(out.Recs) != 1 || out.Recs[0].ConfirmScenario != "" ||
		!strings.Contains(out.Recs[0].ConfirmNote, "interrupted") {
		t.Fatalf("after %d runs: %+v, %v", n, out, err)
	}
}

// TestRunPerEnv: with build environments every grid point runs in each,
// interleaved (setting, kind, environment), and the Pareto set, the
// model, the recommendation and its confirmation are per kind and
// environment: a point of one environment never dominates another's.
func TestRunPerEnv(t *testing.T) {
	var order []string
	p := Plan{Kinds: []string{"heap", "arena"}, Envs: []string{"a", "b"}, Settings: Grid([]int{100, 200}, []float64{0}, 512*mib),
		Warmup: 2 * time.Second, Limits: lim512, PointDuration: time.Second, ConfirmDuration: 2 * time.Second,
		Point: func(kind, env string, s Setting, _ Length, stage Stage) results.Scenario {
			return results.Scenario{Kind: kind, GOGC: s.GOGC, RSSCap: 512 * mib, BuildEnv: env, Flight: stage != StageGrid}
		},
		Run: func(_ context.Context, s results.Scenario) (results.Result, error) {
			if !s.Flight {
				order = append(order, fmt.Sprintf("%d %s %s", s.GOGC, s.Kind, s.BuildEnv))
			}
			r := run(s.Kind, Setting{GOGC: s.GOGC}, 10, nil)
			r.Scenario.BuildEnv = s.BuildEnv
			if s.BuildEnv == "b" { // b is cheaper everywhere: in one set it would dominate a
				r.End.Cost.GCCPUSPerGB /= 2
				r.End.PeakRSS /= 2
			}
			return r, nil
		}}
	out, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"100 heap a", "100 heap b", "100 arena a", "100 arena b", "200 heap a", "200 heap b", "200 arena a", "200 arena b"}
	if !slices.Equal(order, want) {
		t.Errorf("ran %q, want %q", order, want)
	}
	pareto := 0
	for _, pt := range out.Points {
		if pt.Pareto && pt.Env == "a" {
			pareto++
		}
	}
	if pareto == 0 {
		t.Errorf("environment a has no Pareto point: b's points dominated it (%+v)", out.Points)
	}
	var recs []string
	for _, r := range out.Recs {
		recs = append(recs, r.Kind+" "+r.Env)
		if r.Fits && r.ConfirmScenario == "" {
			t.Errorf("%s %s: not confirmed: %s", r.Kind, r.Env, r.ConfirmNote)
		}
	}
	if want := []string{"heap a", "heap b", "arena a", "arena b"}; !slices.Equal(recs, want) {
		t.Errorf("recommendations %q, want %q", recs, want)
	}
}

// cyc is a measured point with its own GC CPU per GB, cycles per GB and
// span cycles.
func cyc(gogc int, lim int64, gc, perGB float64, n uint64, rss uint64) results.FrontierPoint {
	p := pt("heap", gogc, lim, gc, rss, results.Healthy)
	p.CyclesPerGB, p.SpanCycles = perGB, n
	return p
}

// TestSteady: points whose GOMEMLIMIT never bound (heap goal under 90%
// of it) pool their cycles and bytes with their GOGC's no-limit point; a
// binding limit is a class of its own; the steady figure is the class's
// cycles per GB times the kind's median cost per cycle (one point's 100 ms
// cycle moves it not at all), with a standard error from the class's
// cycle count and the pool's spread.
func TestSteady(t *testing.T) {
	ps := []results.FrontierPoint{
		cyc(50, 0, 2.0, 200, 16, 90*mib),        // 10 ms a cycle
		cyc(200, 0, 0.4, 50, 4, 120*mib),        // 8 ms, 0.08 GB
		cyc(200, 256*mib, 0.6, 25, 4, 120*mib),  // 24 ms, 0.16 GB; goal 50 MiB: does not bind
		cyc(200, 64*mib, 1.2, 100, 10, 100*mib), // 12 ms; goal 60 MiB of 64: binds
		cyc(400, 0, 3.0, 30, 1, 180*mib),        // 100 ms: one slow cycle
		cyc(400, 1, 0.3, 30, 1, 0),              // inconclusive below: out
		cyc(100, 0, 9.0, 100, 8, 100*mib),       // another kind: out
		cyc(GOGCOff, 0, 0, 0, 0, 200*mib),       // no cycles: no steady figure
		cyc(200, 358*mib, 0.45, 50, 5, 120*mib), // 9 ms; no goal known: binds
	}
	ps[2].HeapGoal, ps[3].HeapGoal = 50*mib, 60*mib
	ps[5].Class = results.Inconclusive
	ps[6].Kind = "arena"
	if ClassOf(ps[2]).MemLimit != 0 || ClassOf(ps[3]).MemLimit != 64*mib || ClassOf(ps[8]).MemLimit != 358*mib {
		t.Fatalf("classes %+v %+v %+v", ClassOf(ps[2]), ClassOf(ps[3]), ClassOf(ps[8]))
	}
	c, ok := PoolCycleCost(ps, "heap")
	if !ok || c.Points != 6 || math.Abs(c.PerCycle-0.011) > 1e-12 {
		t.Fatalf("pool %+v %v; want the median of 10, 8, 24, 12, 100 and 9 ms: 11 ms over 6 points", c, ok)
	}
	Steady(ps)
	want := 8 / 0.24 * 0.011 // the class's 8 cycles over 0.24 GB
	if math.Abs(ps[1].SteadyGCCPUSPerGB-want) > 1e-9 || ps[2].SteadyGCCPUSPerGB != ps[1].SteadyGCCPUSPerGB || ps[1].SteadyPoints != 2 {
		t.Errorf("pooled %g %g (%d points), want %g over 2", ps[1].SteadyGCCPUSPerGB, ps[2].SteadyGCCPUSPerGB, ps[1].SteadyPoints, want)
	}
	if math.Abs(ps[4].SteadyGCCPUSPerGB-0.33) > 1e-9 || math.Abs(ps[0].SteadyGCCPUSPerGB-2.2) > 1e-9 || ps[3].SteadyPoints != 1 {
		t.Errorf("steady %g %g; want 0.33 (30 cycles/GB x 11 ms) and 2.2", ps[4].SteadyGCCPUSPerGB, ps[0].SteadyGCCPUSPerGB)
	}
	if ps[5].SteadyGCCPUSPerGB != 0 || ps[7].SteadyGCCPUSPerGB != 0 {
		t.Errorf("inconclusive or cycle-free point got a steady figure: %+v %+v", ps[5], ps[7])
	}
	if se := ps[1].SteadySE; math.Abs(se-want*math.Sqrt(1.0/8+c.RelSE*c.RelSE)) > 1e-9 || ps[4].SteadySE < ps[4].SteadyGCCPUSPerGB {
		t.Errorf("SE %g, want %g", se, want*math.Sqrt(1.0/8+c.RelSE*c.RelSE))
	}
	if c, ok := PoolCycleCost(ps[:1], "heap"); !ok || math.Abs(c.RelSE-0.25) > 1e-12 {
		t.Errorf("one point: %+v, want its Poisson error 1/sqrt(16)", c)
	}
	if _, ok := PoolCycleCost(ps, "btree"); ok {
		t.Error("pooled a kind with no points")
	}
	if m, ok := Model(ps, "heap"); !ok || !m.GCFalls || m.RawSlope == m.Slope {
		t.Errorf("model on the steady figure: %+v", m)
	}
}

// TestRecommendByBound: the least figure plus standard error of any
// fitting point is the bar; the least memory under it is picked; a point
// cheap by a wide error does not set the bar.
func TestRecommendByBound(t *testing.T) {
	ps := []results.FrontierPoint{
		pt("heap", 100, 0, 1, 100*mib, results.Healthy),
		pt("heap", 200, 0, 0.5, 120*mib, results.Healthy),
		pt("heap", 400, 0, 0.3, 180*mib, results.Healthy),
	}
	for i, f := range []float64{1, 0.5, 0.3} {
		ps[i].SteadyGCCPUSPerGB, ps[i].SteadySE, ps[i].SteadyPoints = f, f/4, 4
	}
	rec := Recommend(ps, "heap", lim512) // bar 0.375: only GOGC 400
	if rec.GOGC != 400 || rec.PredictedGCCPUSPerGB != 0.3 || rec.PredictedGCCPUSE != 0.075 || !strings.Contains(rec.Reason, "the least upper bound on GC CPU per GB (0.3 ± 0.075 s/GB, pooled over the 4 points") {
		t.Fatalf("narrow: %+v", rec)
	}
	ps[2].SteadySE = 0.25 // bounds: 1.25, 0.625, 0.55: bar 0.55, GOGC 200 as cheap for less memory
	rec = Recommend(ps, "heap", lim512)
	if rec.GOGC != 200 || rec.PredictedGCCPUSPerGB != 0.5 || rec.PredictedPeakRSS != 120*mib ||
		!strings.Contains(rec.Reason, "the least memory of the 2 whose GC CPU per GB is at most the least upper bound, GOGC 400 with no GOMEMLIMIT's 0.3 ± 0.25") {
		t.Fatalf("wide: %+v", rec)
	}
	ps[2].SteadyGCCPUSPerGB, ps[2].SteadySE = 0.45, 0.6 // cheapest but the widest: GOGC 200 sets the bar (0.625)
	if rec := Recommend(ps, "heap", lim512); rec.GOGC != 200 || !strings.Contains(rec.Reason, "the least upper bound on GC CPU per GB (0.5 ± 0.12") {
		t.Errorf("a wide cheap point set the bar: %+v", rec)
	}
}

// TestAlignedCostSE: a point's GC CPU per GB carries the standard error
// of its windows of cycles. The span is windows 2..10 (after the first
// cycle end): five of 0.3 s and four of 0.1 s over 0.9 GB, whose sample
// standard deviation is 1/root(90), so the error is root(9)/root(90)/0.9.
func TestAlignedCostSE(t *testing.T) {
	r := run("heap", Setting{GOGC: 400}, 10, func(i int, s *results.Sample, _ *results.WindowHealth) {
		s.WinCycles, s.GCCPU = 1, 0.1+0.2*float64(i%2)
	})
	p := Measure(r, 0)
	if want := 3 / math.Sqrt(90) / 0.9; math.Abs(p.GCCPUSE-want) > 1e-9 {
		t.Errorf("se %g, want %g", p.GCCPUSE, want)
	}
	flat := Measure(run("heap", Setting{GOGC: 400}, 10, nil), 0)
	if flat.GCCPUSE > 1e-12 {
		t.Errorf("cycles of equal cost: se %g, want 0", flat.GCCPUSE)
	}
}

// warm2s is the default thresholds with a 2 s warm-up.
func warm2s() results.Thresholds {
	th := results.DefaultThresholds()
	th.Warmup = 2 * time.Second
	return th
}
