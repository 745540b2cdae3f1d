// Package latency records operation latencies in HdrHistograms, in
// nanoseconds: the histogram range writepath's clients, the benchmarks,
// cmd/seedrun and the YCSB/PE printers (internal/ycsbfmt) share
// (NewHistogram: 1 ns to 1 h, 3 significant digits); Recorder, one
// histogram and error count per operation type after a warm-up; and Pair,
// a gcstress writer's service-time and intended-start histograms.
//
// Invariants: every histogram holds nanoseconds; Recorder does not record
// a value outside its range (RecordValue's error), a Pair counts it as the
// top of its range; Recorder and Pair are safe for concurrent use.
package latency

import (
	"slices"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histogram range: 1 ns to 1 h, 3 significant digits.
const (
	histMin     = 1
	histMax     = int64(time.Hour)
	histSigFigs = 3
)

// NewHistogram returns an HdrHistogram for latencies in nanoseconds
// (1 ns to 1 h, 3 significant digits), the unit every printer expects.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSigFigs) }

// RecorderOptions configure NewRecorder.
type RecorderOptions struct {
	// WarmUp: operations that start before Start+WarmUp are not recorded
	// (PE's --measureAfter).
	WarmUp time.Duration
	// Start is the start of the run (zero: when NewRecorder is called).
	Start time.Time
}

// Recorder keeps one latency histogram and one operation count per
// operation type ("INSERT", "MULTIREAD", ...), excluding a warm-up.
//
// Concurrency: safe for concurrent use (a mutex per record; for hot loops
// record into a local histogram and Merge). Lifetime: unbounded; memory is
// about 200 KiB per operation type.
type Recorder struct {
	start    time.Time
	measured time.Time // start + warm-up
	mu       sync.Mutex
	hists    map[string]*hdrhistogram.Histogram
	errs     map[string]int64
	last     time.Time
}

// NewRecorder returns a recorder.
func NewRecorder(opts RecorderOptions) *Recorder {
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	return &Recorder{
		start:    opts.Start,
		measured: opts.Start.Add(opts.WarmUp),
		hists:    map[string]*hdrhistogram.Histogram{},
		errs:     map[string]int64{},
	}
}

// MeasureStart is when measurement begins (start plus warm-up).
func (r *Recorder) MeasureStart() time.Time { return r.measured }

// Record records one operation that started at start and ended at end.
// Operations that started during the warm-up are dropped. err != nil counts
// the operation as failed (not in the histogram).
func (r *Recorder) Record(op string, start, end time.Time, err error) {
	if start.Before(r.measured) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if end.After(r.last) {
		r.last = end
	}
	if err != nil {
		r.errs[op]++
		return
	}
	h := r.hists[op]
	if h == nil {
		h = NewHistogram()
		r.hists[op] = h
	}
	h.RecordValue(max(int64(end.Sub(start)), histMin))
}

// Merge adds a histogram of latencies (ns) recorded elsewhere for op.
func (r *Recorder) Merge(op string, h *hdrhistogram.Histogram) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hists[op] == nil {
		r.hists[op] = NewHistogram()
	}
	r.hists[op].Merge(h)
}

// Ops returns the operation types recorded, sorted.
func (r *Recorder) Ops() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ops []string
	for op := range r.hists {
		ops = append(ops, op)
	}
	for op := range r.errs {
		if r.hists[op] == nil {
			ops = append(ops, op)
		}
	}
	slices.Sort(ops)
	return ops
}

// Histogram returns a copy of op's histogram (empty if none).
func (r *Recorder) Histogram(op string) *hdrhistogram.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := NewHistogram()
	if src := r.hists[op]; src != nil {
		h.Merge(src)
	}
	return h
}

// Errors returns the failed operations of type op.
func (r *Recorder) Errors(op string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs[op]
}

// MarkEnd extends the measured run to t (e.g. the end of a final Flush
// that no single operation's latency covers).
func (r *Recorder) MarkEnd(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.After(r.last) {
		r.last = t
	}
}

// Elapsed is the measured run time: from the end of the warm-up to the
// latest recorded end.
func (r *Recorder) Elapsed() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.last.Sub(r.measured), 0)
}

// NewHistogramUpTo returns a latency histogram from 1 ns to max ns, 3
// significant digits.
func NewHistogramUpTo(max int64) *hdrhistogram.Histogram {
	return hdrhistogram.New(histMin, max, histSigFigs)
}

// Pair is one writer's latency histograms: service time, and (in
// open-loop runs) latency from the intended start. Record is called by its
// writer, DrainInto by a sampler; a mutex (uncontended but for one swap
// per window) orders the two. Values above the Pair's max count as max.
type Pair struct {
	mu    sync.Mutex
	max   int64
	h, ih *hdrhistogram.Histogram
}

// NewPair returns a Pair of histograms from 1 ns to max ns.
func NewPair(max int64) *Pair {
	return &Pair{max: max, h: NewHistogramUpTo(max), ih: NewHistogramUpTo(max)}
}

// Record adds one timed operation: its service time ns and, when
// intended >= 0, its latency from the intended start (never below ns).
func (r *Pair) Record(ns, intended int64) {
	r.mu.Lock()
	_ = r.h.RecordValue(min(ns, r.max))
	if intended >= 0 {
		_ = r.ih.RecordValue(min(max(intended, ns), r.max))
	}
	r.mu.Unlock()
}

// DrainInto adds the Pair's counts to dst and idst and resets it.
func (r *Pair) DrainInto(dst, idst *hdrhistogram.Histogram) {
	r.mu.Lock()
	dst.Merge(r.h)
	idst.Merge(r.ih)
	r.h.Reset()
	r.ih.Reset()
	r.mu.Unlock()
}
