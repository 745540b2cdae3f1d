package gcstress

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcstress/internal/proc"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
)

// Latency histogram range of a child's Puts: 1 ns to 100 s (a longer Put
// counts as 100 s), 3 significant digits.
const latMax = 100 * int64(time.Second)

func newLatRecorder() *latency.Pair { return latency.NewPair(latMax) }

func newLatHist() *hdrhistogram.Histogram { return latency.NewHistogramUpTo(latMax) }

// sampler turns runtime/metrics readings, progress counters, RSS and the
// writers' latency histograms into window Samples. It is used by one
// goroutine (the child's sampling loop).
type sampler struct {
	spec        Scenario
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
	endCPU      float64             // process CPU seconds at endSnap
	peakHeap    uint64
	peakRSS     uint64
}

func newSampler(spec Scenario, start time.Time) *sampler {
	s := &sampler{spec: spec, reader: gcmetrics.NewReader(), start: start, last: start,
		win: newLatHist(), run: newLatHist(), iwin: newLatHist(), irun: newLatHist(), isteady: newLatHist()}
	s.first = s.reader.Read()
	s.prev = s.first
	s.cpu0 = proc.ProcCPU()
	s.pcpu = s.cpu0
	return s
}

// window closes the current window and returns its Sample.
func (s *sampler) window(keys, nbytes int64, st EngineStats) Sample {
	now := time.Now()
	snap := s.reader.Read()
	d := gcmetrics.Sub(s.prev, snap)
	dur := now.Sub(s.last).Seconds()
	w := Sample{
		Type: results.SampleWindow, T: now.Sub(s.start).Seconds(), Dur: dur,
		Keys: keys, Bytes: nbytes, WinKeys: keys - s.prevKeys, WinBytes: nbytes - s.prevBytes,
		Target: s.spec.Keys, Progress: s.progress(keys, now.Sub(s.start)),
		Cycles: snap.Cycles - s.first.Cycles, WinCycles: d.Cycles,
	}
	w.MBps = results.MBps(w.WinBytes, dur)
	w.SetGC(d, snap)
	fillEngine(&w, st)
	w.RSS = proc.ReadRSS()
	c := proc.ProcCPU()
	w.ProcCPU, s.pcpu = c-s.pcpu, c
	s.drainWindow(&w)
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
}

func (c *steadyCost) add(w *Sample) {
	c.keys += w.WinKeys
	c.bytes += w.WinBytes
	c.gc += w.GCCPU
	c.assist += w.Assist
	c.proc += w.ProcCPU
	c.pTime += w.CPUUsed
	c.windows++
}

// freeze takes the end record's GC readings now, before the footprint's
// forced GC, so that that cycle is in no figure of the run.
func (s *sampler) freeze() {
	snap := s.reader.Read()
	s.endSnap, s.endCPU = &snap, proc.ProcCPU()
}

// end is the whole run's record. Call it after the last window.
func (s *sampler) end(keys, nbytes int64, elapsed time.Duration, st EngineStats) Sample {
	if s.endSnap == nil {
		s.freeze()
	}
	snap := *s.endSnap
	d := gcmetrics.Sub(s.first, snap)
	e := Sample{Type: results.SampleEnd, T: elapsed.Seconds(), Dur: elapsed.Seconds(), Keys: keys, Bytes: nbytes,
		Target: s.spec.Keys, Progress: s.progress(keys, elapsed), Cycles: d.Cycles}
	e.MBps = results.MBps(nbytes, elapsed.Seconds())
	e.SetGC(d, snap)
	fillEngine(&e, st)
	e.RSS = proc.ReadRSS()
	e.ProcCPU = s.endCPU - s.cpu0
	e.Cost = s.steady.cost()
	if s.steady.windows == 0 { // no window after the warm-up: the whole run
		e.Cost = results.NewCost(keys, nbytes, e.GCCPU, e.Assist, e.ProcCPU, e.CPUUsed)
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
	return e
}

// drainWindow moves the writers' latency counts into the window's
// histograms, fills w's latency fields and adds a window that ended after
// the warm-up to the steady-state totals.
func (s *sampler) drainWindow(w *Sample) {
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
	return results.NewCost(c.keys, c.bytes, c.gc, c.assist, c.proc, c.pTime)
}

// fillIntended sets the open-loop fields: the target rate and the
// percentiles from intended start.
func fillIntended(w *Sample, h *hdrhistogram.Histogram, spec Scenario) {
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

func fillEngine(w *Sample, st EngineStats) {
	w.Flushes, w.FlushedBytes, w.PendingFlushes = st.Flushes, st.FlushedBytes, st.PendingFlushes
	w.MemtableBytes, w.BlockedNanos = st.MemtableBytes, st.BlockedNanos
}

func fillLatency(w *Sample, h *hdrhistogram.Histogram) {
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
func (s *sampler) progress(keys int64, elapsed time.Duration) float64 {
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
