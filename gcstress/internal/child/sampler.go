// The window sampler: it turns
// runtime/metrics readings, the progress counters, RSS, process CPU and
// the writers' latency histograms into the stream's window and end
// records (results.Sample). The engine's own figures (flushes, blocked
// time) are the caller's to add.
//
// Invariants:
//   - A Sampler is used by one goroutine (the child's sampling loop); the
//     writers only record into their latency.Pair, which the Sampler
//     drains at each window.
//   - Every Put timed is in exactly one window and in the end record; the
//     steady-state figures (SteadyMBps, SteadyILatP99, Cost) cover only
//     the windows that ended after the scenario's warm-up, or the whole run
//     when none did.
//   - Freeze takes the end record's GC readings, so a forced GC after it
//     (the footprint's) is in no figure of the run.

package child

import (
	"math"
	"runtime"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
)

// Latency histogram range of a child's Puts: 1 ns to 100 s (a longer Put
// counts as 100 s), 3 significant digits.
const latMax = 100 * int64(time.Second)

// NewRecorder is one writer's latency recorder, in the Sampler's range.
func NewRecorder() *latency.Pair { return latency.NewPair(latMax) }

func newLatHist() *hdrhistogram.Histogram { return latency.NewHistogramUpTo(latMax) }

// Sampler turns runtime/metrics readings, progress counters, RSS and the
// writers' latency histograms into window Samples. It is used by one
// goroutine (the child's sampling loop).
type Sampler struct {
	spec        results.Scenario
	reader      *gcmetrics.Reader
	first, prev gcmetrics.Snapshot
	start, last time.Time
	prevKeys    int64
	cpu0, pcpu  float64 // process CPU seconds at start, at the last window
	prevBytes   int64
	recs        []*latency.Pair
	win, run    *hdrhistogram.Histogram
	iwin, irun  *hdrhistogram.Histogram // from intended start (open loop)
	isteady     *hdrhistogram.Histogram // iwin merged over windows after the warm-up
	steadyBytes int64                   // bytes and seconds of the windows after the warm-up
	steadySecs  float64
	steady      steadyCost          // the cost figures' sums over the same windows
	endSnap     *gcmetrics.Snapshot // read before the footprint's forced GC (nil: read at end)
	endShape    gcmetrics.HeapShape // the heap's shape at endSnap
	endCPU      float64             // process CPU seconds at endSnap
	peakHeap    uint64
	peakRSS     uint64
}

// NewSampler starts sampling spec's run, started at start, whose writers record
// into recs.
func NewSampler(spec results.Scenario, start time.Time, recs []*latency.Pair) *Sampler {
	s := &Sampler{spec: spec, recs: recs, reader: gcmetrics.NewReader(), start: start, last: start,
		win: newLatHist(), run: newLatHist(), iwin: newLatHist(), irun: newLatHist(), isteady: newLatHist()}
	s.first = s.reader.Read()
	s.prev = s.first
	s.cpu0 = proto.ProcCPU()
	s.pcpu = s.cpu0
	return s
}

// Restart makes start the run's start, re-reading the first snapshot and
// the process CPU: for a child that builds its Sampler (and its
// histograms) before the footprint's baseline and forces that GC before
// the load starts, outside every window. Call it before the first Window.
func (s *Sampler) Restart(start time.Time) {
	s.start, s.last = start, start
	s.first = s.reader.Read()
	s.prev = s.first
	s.cpu0 = proto.ProcCPU()
	s.pcpu = s.cpu0
}

// Last is when the last window closed (the start before the first).
func (s *Sampler) Last() time.Time { return s.last }

// Window closes the current window and returns its Sample, without the
// engine's figures.
func (s *Sampler) Window(keys, nbytes int64) results.Sample {
	now := time.Now()
	snap := s.reader.Read()
	d := gcmetrics.Sub(s.prev, snap)
	dur := now.Sub(s.last).Seconds()
	w := results.Sample{
		Type: results.SampleWindow, T: now.Sub(s.start).Seconds(), Dur: dur,
		Keys: keys, Bytes: nbytes, WinKeys: keys - s.prevKeys, WinBytes: nbytes - s.prevBytes,
		Target: s.spec.Keys, Progress: s.progress(keys, now.Sub(s.start)),
		Cycles: snap.Cycles - s.first.Cycles, WinCycles: d.Cycles,
	}
	w.MBps = results.MBps(w.WinBytes, dur)
	w.SetGC(d, snap)
	w.RSS = proto.ReadRSS()
	c := proto.ProcCPU()
	w.ProcCPU, s.pcpu = c-s.pcpu, c
	s.drainWindow(&w)
	if w.T >= s.spec.Thresholds.Warmup.Seconds() {
		s.steady.allocB, s.steady.allocObjs = s.steady.allocB+d.AllocB, s.steady.allocObjs+d.AllocObjs
	}
	s.peakHeap = max(s.peakHeap, snap.HeapObjects)
	s.peakRSS = max(s.peakRSS, w.RSS)
	s.prev, s.last, s.prevKeys, s.prevBytes = snap, now, keys, nbytes
	return w
}

// steadyCost sums, over the windows that ended after the warm-up, what the
// end record's Cost divides: Puts, bytes, GC, assist and process CPU, and
// the runtime's non-idle P-time that scales GC and assist to CPU time.
type steadyCost struct {
	keys, bytes             int64
	gc, assist, proc, pTime float64
	windows                 int
	allocB, allocObjs       uint64 // allocated over those windows
	cycles                  uint64 // GC cycles completed in them
}

func (c *steadyCost) add(w *results.Sample) {
	c.keys += w.WinKeys
	c.bytes += w.WinBytes
	c.gc += w.GCCPU
	c.assist += w.Assist
	c.proc += w.ProcCPU
	c.pTime += w.CPUUsed
	c.cycles += w.WinCycles
	c.windows++
}

// Freeze takes the end record's GC readings now, before the footprint's
// forced GC, so that that cycle is in no figure of the run.
func (s *Sampler) Freeze() {
	snap := s.reader.Read()
	s.endSnap, s.endCPU = &snap, proto.ProcCPU()
	s.endShape = gcmetrics.ReadShape()
}

// End is the whole run's record, without the engine's figures. Call it
// after the last window.
func (s *Sampler) End(keys, nbytes int64, elapsed time.Duration) results.Sample {
	if s.endSnap == nil {
		s.Freeze()
	}
	snap := *s.endSnap
	d := gcmetrics.Sub(s.first, snap)
	e := results.Sample{Type: results.SampleEnd, T: elapsed.Seconds(), Dur: elapsed.Seconds(), Keys: keys, Bytes: nbytes,
		Target: s.spec.Keys, Progress: s.progress(keys, elapsed), Cycles: d.Cycles}
	e.MBps = results.MBps(nbytes, elapsed.Seconds())
	e.SetGC(d, snap)
	e.RSS = proto.ReadRSS()
	e.ProcCPU = s.endCPU - s.cpu0
	e.Cost = s.steady.cost()
	if s.steady.windows == 0 { // no window after the warm-up: the whole run
		e.Cost = results.NewCost(keys, nbytes, e.GCCPU, e.Assist, e.ProcCPU, e.CPUUsed).WithAllocs(keys, d.AllocB, d.AllocObjs).WithCycles(d.Cycles, nbytes)
	}
	for _, r := range s.recs {
		r.DrainInto(s.run, s.irun)
	}
	fillLatency(&e, s.run)
	fillIntended(&e, s.irun, s.spec)
	if s.isteady.TotalCount() > 0 {
		e.SteadyILatP99 = s.isteady.ValueAtQuantile(99)
	}
	e.SteadyMBps = results.MBps(s.steadyBytes, s.steadySecs)
	if s.steadySecs == 0 {
		e.SteadyMBps = e.MBps
	}
	if s.run.TotalCount() > 0 {
		e.Hist = s.run.Export()
	}
	e.PeakHeap = max(s.peakHeap, snap.HeapObjects)
	e.PeakRSS = max(s.peakRSS, e.RSS)
	shape := s.endShape
	e.Shape = &shape
	e.MarkWallMs = 1e3 * gcmetrics.MarkWallPerCycle(s.first, snap, runtime.GOMAXPROCS(0))
	return e
}

// drainWindow moves the writers' latency counts into the window's
// histograms, fills w's latency fields and adds a window that ended after
// the warm-up to the steady-state totals.
func (s *Sampler) drainWindow(w *results.Sample) {
	s.win.Reset()
	s.iwin.Reset()
	for _, r := range s.recs {
		r.DrainInto(s.win, s.iwin)
	}
	s.run.Merge(s.win)
	s.irun.Merge(s.iwin)
	fillLatency(w, s.win)
	fillIntended(w, s.iwin, s.spec)
	if w.T >= s.spec.Thresholds.Warmup.Seconds() {
		s.isteady.Merge(s.iwin)
		s.steadyBytes += w.WinBytes
		s.steadySecs += w.Dur
		s.steady.add(w)
	}
}

func (c steadyCost) cost() results.Cost {
	return results.NewCost(c.keys, c.bytes, c.gc, c.assist, c.proc, c.pTime).WithAllocs(c.keys, c.allocB, c.allocObjs).WithCycles(c.cycles, c.bytes)
}

// fillIntended sets the open-loop fields: the target rate and the
// percentiles from intended start.
func fillIntended(w *results.Sample, h *hdrhistogram.Histogram, spec results.Scenario) {
	if spec.Rate <= 0 {
		return
	}
	w.TargetMBps = spec.TargetMBps()
	if h.TotalCount() == 0 {
		return
	}
	w.ILatP50 = h.ValueAtQuantile(50)
	w.ILatP99 = h.ValueAtQuantile(99)
	w.ILatP999 = h.ValueAtQuantile(99.9)
	w.ILatMax = h.Max()
}

func fillLatency(w *results.Sample, h *hdrhistogram.Histogram) {
	n := h.TotalCount()
	if n == 0 {
		return
	}
	w.LatN = n
	w.LatP50 = h.ValueAtQuantile(50)
	w.LatP95 = h.ValueAtQuantile(95)
	w.LatP99 = h.ValueAtQuantile(99)
	w.LatP999 = h.ValueAtQuantile(99.9)
	w.LatMax = h.Max()
	w.LatMin = h.Min()
	w.LatMean = h.Mean()
}

// progress is the run's progress, 0..1: in time (elapsed over Duration)
// for a duration-first scenario, else keys over the target.
func (s *Sampler) progress(keys int64, elapsed time.Duration) float64 {
	if s.spec.DurationFirst() {
		return math.Min(1, elapsed.Seconds()/s.spec.Duration.Seconds())
	}
	return fraction(keys, s.spec.Keys)
}

func fraction(keys, target int64) float64 {
	if target <= 0 {
		return 0
	}
	return math.Min(1, float64(keys)/float64(target))
}
