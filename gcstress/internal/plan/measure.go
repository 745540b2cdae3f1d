package plan

import (
	"fmt"
	"math"
	"time"

	"github.com/writegc/writegc/gcmetrics/health"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// Measure is the point a grid run's Result makes: GC and assist CPU per
// GB and GC cycles per GB over whole cycles (alignedCost; the end
// record's figures over the windows after the warm-up when fewer than two
// windows after it saw a cycle end), the peak RSS, the most
// off-heap bytes the engine reported, the highest heap goal after the
// warm-up, the p99 from intended start and the achieved rate after it,
// and the class: the verdict's, failed by the death spiral or the
// container (see the package doc), inconclusive on too few cycles. A
// pure function; Pareto is left false (MarkPareto sets it).
func Measure(r results.Result, warmup time.Duration) results.FrontierPoint {
	s := r.Scenario
	p := results.FrontierPoint{Kind: s.Kind, Scenario: s.RunLabel(), Value: s.Value, GOGC: s.GOGC, MemLimit: s.MemLimit,
		Class: r.Verdict.Class, Why: r.Verdict.Why, Cause: r.Verdict.Cause, Env: s.BuildEnv}
	if p.GOGC <= 0 {
		p.GOGC = GOGCOff
	}
	if e := r.End; e != nil {
		p.GCCPUSPerGB, p.AssistSPerGB, p.PeakRSS = e.GCCPUSPerGB, e.AssistCPUSPerGB, e.PeakRSS
		p.ILatP99, p.MBps, p.OffHeapBytes, p.RunSeconds = e.SteadyILatP99, e.SteadyMBps, e.OffHeapBytes, e.T
		settled(&p, e.Settle)
	}
	warm := warmup.Seconds()
	var bytes int64
	var live []float64
	for _, w := range r.Windows {
		p.PeakRSS, p.OffHeapBytes = max(p.PeakRSS, w.RSS), max(p.OffHeapBytes, w.OffHeapBytes)
		if w.T >= warm {
			p.Cycles += w.WinCycles
			bytes += w.WinBytes
			p.HeapGoal = max(p.HeapGoal, w.HeapGoal)
			if w.HeapLive > 0 {
				live = append(live, float64(w.HeapLive))
			}
		}
	}
	if len(live) > 0 {
		p.LiveHeap = uint64(stat.Median(live))
	}
	if bytes > 0 {
		p.CyclesPerGB = float64(p.Cycles) / (float64(bytes) / 1e9)
	}
	onCPU := 0.0
	if r.End != nil {
		onCPU = r.End.OnCPU
	}
	p.SpanCycles = p.Cycles
	if sp, ok := alignedCost(r.Windows, warm, onCPU); ok {
		p.GCCPUSPerGB, p.AssistSPerGB, p.CyclesPerGB, p.SpanCycles, p.GCCPUSE = sp.gc, sp.assist, sp.cyclesPerGB, sp.cycles, sp.se
	}
	p.GCPct, p.GCPctSE = gcShare(r, warm)
	if p.Class == results.Elevated && p.Cause == "" {
		p.Cause = elevatedBy(r, warm)
	}
	classify(&p, r)
	p.Borderline = borderline(p, r.Scenario.Thresholds)
	return p
}

// gcShare is the GC CPU share of busy CPU (%) over r's windows from warm
// seconds on, and its standard error from the scatter of the shares of
// the verdict's spans among them (0 with fewer than two spans).
func gcShare(r results.Result, warm float64) (pct, se float64) {
	var gc, used float64
	var shares []float64
	last := [2]int{-1, -1}
	for i, w := range r.Windows {
		if w.T < warm {
			continue
		}
		gc, used = gc+w.GCCPU, used+w.CPUUsed
		if i < len(r.Verdict.Windows) && r.Verdict.Windows[i].Span != last {
			last = r.Verdict.Windows[i].Span
			shares = append(shares, r.Verdict.Windows[i].GCPct)
		}
	}
	if used > 0 {
		pct = 100 * gc / used
	}
	if n := len(shares); n >= 2 {
		_, v := stat.MeanVar(shares)
		se = math.Sqrt(v / float64(n))
	}
	return pct, se
}

// elevatedBy is what elevated most of r's elevated windows from warm
// seconds on: CauseGCCPU or CauseAssist (a verdict names no cause for an
// elevated run, and borderline needs to know which line it is near).
func elevatedBy(r results.Result, warm float64) results.Cause {
	gc, assist := 0, 0
	for _, wh := range r.Verdict.Windows {
		if wh.T < warm || wh.Class != results.Elevated {
			continue
		}
		switch wh.Cause {
		case results.CauseGCCPU:
			gc++
		case results.CauseAssist:
			assist++
		}
	}
	if assist > gc {
		return results.CauseAssist
	}
	return results.CauseGCCPU
}

// borderline says whether p's class, healthy or elevated on its GC CPU,
// rests on a GC share within twice its standard error of th's healthy
// line: a share no run of its length can place on one side.
func borderline(p results.FrontierPoint, th results.Thresholds) bool {
	line := th.HealthyGC
	if line <= 0 {
		line = results.DefaultThresholds().HealthyGC
	}
	on := p.Class == results.Healthy || (p.Class == results.Elevated && p.Cause == results.CauseGCCPU)
	return on && p.GCPctSE > 0 && math.Abs(p.GCPct-line) <= 2*p.GCPctSE
}

// settled fills p's settle figures from its end record's settle phase.
func settled(p *results.FrontierPoint, st *results.Settle) {
	if st == nil {
		return
	}
	p.SettleSeconds = st.Seconds
	if !st.Steady {
		p.Unsettled = st.Why
	}
}

// alignedCost is GC and assist CPU-seconds and GC cycles per GB over
// whole GC cycles: the windows after the first window past the warm-up in
// which a cycle ended, through the last such window. The runtime's CPU
// counters advance only when a cycle ends, so a span that starts and ends
// on cycle ends holds the CPU of the cycles whose bytes it counts, where
// the windows after the warm-up as a whole hold a share of a cycle more or
// less at each end (a point with few cycles, the cheapest, would swing by
// that share). GC and assist are scaled by onCPU as the end record's Cost
// is (0: unscaled). ok is false with fewer than two such windows.
func alignedCost(ws []results.Sample, warm, onCPU float64) (span, bool) {
	first, last := -1, -1
	for i, w := range ws {
		if w.T >= warm && w.WinCycles > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last == first {
		return span{}, false
	}
	var gcs, as float64
	var bytes int64
	var n uint64
	var costs []float64 // the GC CPU of each window in which cycles ended
	for _, w := range ws[first+1 : last+1] {
		gcs, as, bytes, n = gcs+w.GCCPU, as+w.Assist, bytes+w.WinBytes, n+w.WinCycles
		if w.WinCycles > 0 {
			costs = append(costs, w.GCCPU)
		}
	}
	if bytes <= 0 {
		return span{}, false
	}
	scale := 1.0
	if onCPU > 0 {
		scale = onCPU
	}
	gb := float64(bytes) / 1e9
	sp := span{gc: gcs * scale / gb, assist: as * scale / gb, cyclesPerGB: float64(n) / gb, cycles: n}
	if m := len(costs); m >= 2 {
		// The span's GC CPU is the sum of its windows' cycles: its error is
		// the root of their count times their standard deviation.
		_, v := stat.MeanVar(costs)
		sp.se = math.Sqrt(float64(m)*v) * scale / gb
	}
	return sp, true
}

// span is alignedCost's figures: GC and assist CPU-seconds and cycles per
// GB over the whole cycles' span, the cycles in it, and the standard
// error of its GC CPU per GB (0: fewer than two windows of cycles).
type span struct {
	gc, assist, cyclesPerGB, se float64
	cycles                      uint64
}

// classify applies the frontier's own rules over the verdict: the death
// spiral first (it is what takes a point under a low limit to its cap),
// then the container, then too few cycles.
func classify(p *results.FrontierPoint, r results.Result) {
	if n, at := spiralRun(r); n >= results.SpiralWindows {
		p.Class, p.Cause = results.Failed, results.CauseMemlimitSpiral
		p.Why = fmt.Sprintf("GOMEMLIMIT death spiral from %.1f s: live heap at %g%% of GOMEMLIMIT %s or more with the collector flat out (GC CPU, idle-time marking included, >= %g%% of busy CPU or the limiter on) for %d windows in a row",
			at, results.SpiralHeapPct, results.MiB(uint64(p.MemLimit)), spiralGCPct(r.Scenario), n)
		return
	}
	switch {
	case r.Exit.RSSCap:
		p.Class, p.Cause = results.Failed, results.CauseRSSCap
		p.Why = fmt.Sprintf("RSS passed the container (RSS cap %s; peak seen %s)", results.MiB(uint64(r.Scenario.RSSCap)), results.MiB(p.PeakRSS))
		if r.Exit.Message != "" {
			p.Why += ": " + r.Exit.Message
		}
	case r.End == nil && p.Class != results.Interrupted:
		p.Class = results.Failed
	case measured(p.Class) && p.Cycles < results.FrontierMinCycles:
		p.Class, p.Cause = results.Inconclusive, results.CauseFewCycles
		p.Why = fmt.Sprintf("%d GC cycles after the warm-up, at least %d are needed for a GC CPU per GB (a longer -point-duration gives more)",
			p.Cycles, results.FrontierMinCycles)
	}
}

// spiralGCPct is the GC share (% of busy CPU) at which a point's
// collector counts as flat out: the scenario's degraded GC share. Not
// gchealth's 50%: a point runs open loop at a rate the machine sustains,
// so the CPU limiter (GC above half of all CPU) never engages, while a
// collector that cannot get the heap under its limit marks without a
// break on its dedicated quarter of GOMAXPROCS, which is the degraded
// share of the CPU the point keeps busy (on 2 cores: 30-40% seen).
func spiralGCPct(s results.Scenario) float64 {
	if g := s.Thresholds.DegradedGC; g > 0 {
		return g
	}
	return results.DefaultThresholds().DegradedGC
}

// spiralRun is the longest run of windows in the death spiral and the
// time its first window ended (the verdict's windows give each window's
// span GC share and limiter); a window the classifier failed on memory
// (live heap near the limit, limiter on, throughput collapsed) counts.
func spiralRun(r results.Result) (longest int, at float64) {
	run, start, gcPct := 0, 0.0, spiralGCPct(r.Scenario)
	for i, w := range r.Windows {
		if i >= len(r.Verdict.Windows) {
			break
		}
		wh := r.Verdict.Windows[i]
		in := wh.Cause == results.CauseMemory ||
			health.InSpiral(w.HeapLive, w.MemLimit, max(wh.GCPct, collectorPct(r.Windows, wh.Span)), wh.Limiter, results.SpiralHeapPct, gcPct)
		if !in {
			run = 0
			continue
		}
		if run == 0 {
			start = w.T
		}
		if run++; run > longest {
			longest, at = run, start
		}
	}
	return longest, at
}

// collectorPct is the collector's share of busy CPU over the windows of
// span, its idle-time mark workers included: they run only while a cycle
// marks, so a collector that never stops marking takes every P the
// mutator leaves on top of its dedicated quarter, where the GC share
// without them sits at that quarter, on the degraded line itself.
func collectorPct(w []results.Sample, sp [2]int) float64 {
	var gc, used float64
	for j := max(sp[0], 0); j <= sp[1] && j < len(w); j++ {
		gc, used = gc+w[j].GCCPU+w[j].IdleMark, used+w[j].CPUUsed
	}
	if used <= 0 {
		return 0
	}
	return min(100, 100*gc/used)
}

// measured says whether a point of class c has figures that count: the
// Pareto set, the model fit and the recommendation's candidates.
func measured(c results.Class) bool {
	return c == results.Healthy || c == results.Elevated || c == results.Degraded
}

// MarkPareto sets Pareto on every measured point that no other measured
// point of its kind and build environment dominates (both less GC CPU per
// GB, the steady figure where the points have one (Steady), and a lower
// peak RSS), and clears it on the others.
func MarkPareto(points []results.FrontierPoint) {
	for i := range points {
		p := &points[i]
		p.Pareto = measured(p.Class)
		for j, q := range points {
			if !p.Pareto {
				break
			}
			if j != i && q.Kind == p.Kind && q.Env == p.Env && measured(q.Class) && figure(q) < figure(*p) && q.PeakRSS < p.PeakRSS {
				p.Pareto = false
			}
		}
	}
}
