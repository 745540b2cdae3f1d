// The operations' trace is the runtime trace of a gcstress child's measured
// phase, bounded, and what it says of the collector over time: the
// minimum mutator utilization and, for a bounded sample of timed
// operations per worker, the mark assists each one's goroutine did during
// it (phases.go parses the trace and does the interval work).
//
// Every measured phase is traced (a run with -trace=false, a mix with
// -read-trace off, or a run whose -profile takes the process's one trace,
// is not: its figures are absent, n/a); the trace stops early once its file passes MaxBytes or
// its span MaxSpan, so a long run is traced from its start only, and
// only operations that ended inside the traced span are attributed.
//
// Invariants:
//   - New (or Start), Begin, Stop and End are called by the child's main
//     goroutine, in that order; Keep by worker w's goroutine only, for its own w; the
//     watcher goroutine may stop the trace early, once (sync.Once).
//   - Keep allocates nothing (the sample is allocated by New, before
//     the footprint's baseline), so an engine's allocation figures stay its own.
//   - A nil *Trace does nothing.

package child

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// The trace's bounds: its file's size and its span from the load's start.
// Past either the trace stops and the load runs on untraced.
const (
	MaxBytes = 64 << 20
	MaxSpan  = 30 * time.Second
)

// watchEvery is how often the watcher checks the file's size.
const watchEvery = 100 * time.Millisecond

// MaxWrites bounds the timed writes kept for attribution, all workers
// together (24 B each, pointer-free: 1.5 MiB, the same for every kind):
// each worker keeps a uniform sample (a reservoir) of its writes inside
// the traced span, so a fast kind's sample is not its first second only.
const MaxWrites = 1 << 16

// Trace is one measured phase's trace; see the package comment.
type Trace struct {
	rec      *Recorder // nil: no trace (note says why)
	note     string
	maxBytes int64
	maxSpan  time.Duration
	t0       time.Time
	once     sync.Once
	quit     chan struct{}
	done     chan struct{} // closed when the watcher returned
	stopNs   int64         // the traced span's end on the child's clock
	bound    string        // why it stopped early ("" at the load's end)
	writes   [][]Op
	drop     []int64  // per worker: timed writes in the span not kept
	rng      []uint64 // per worker: the reservoir's xorshift state
	stopped  atomic.Bool
	info     *results.GCTrace // set by End
}

// StartOpTrace starts tracing the measured phase that started at t0 (the child's
// clock origin) for spec's workers: NewOpTrace, then Begin.
func StartOpTrace(spec results.Scenario, t0 time.Time, profileTrace bool) *Trace {
	t := NewOpTrace(spec, profileTrace)
	t.Begin(t0)
	return t
}

// NewOpTrace prepares the trace of a measured phase for spec's workers, unless
// spec turns it off or profileTrace (spec's -profile takes the process's
// one trace: explain's trace profile, which the child knows of). It
// allocates the whole sample, so that a child calling it before its
// footprint's baseline charges none of it to the engine.
func NewOpTrace(spec results.Scenario, profileTrace bool) *Trace {
	return newTrace(spec, profileTrace, MaxBytes, MaxSpan)
}

// newTrace is New with the bounds given.
func newTrace(spec results.Scenario, profileTrace bool, maxBytes int64, maxSpan time.Duration) *Trace {
	t := &Trace{maxBytes: maxBytes, maxSpan: maxSpan}
	switch {
	case spec.NoTrace:
		t.note = "-trace=false"
		return t
	case spec.Mixed() && !spec.ReadTrace:
		t.note = "-read-trace off"
		return t
	case profileTrace:
		t.note = "-profile trace holds the process's one runtime trace"
		return t
	}
	keep := MaxWrites / max(spec.Writers, 1)
	for range spec.Writers {
		t.writes = append(t.writes, make([]Op, 0, keep))
	}
	t.drop = make([]int64, spec.Writers)
	t.rng = make([]uint64, spec.Writers)
	for w := range t.rng {
		t.rng[w] = 0x9E3779B97F4A7C15 * uint64(w+1)
	}
	return t
}

// Begin starts the trace at the measured phase's start t0. It never fails:
// a trace that cannot start leaves the figures n/a, with the reason in the
// end line's gc_trace.note. Called once, before the workers start.
func (t *Trace) Begin(t0 time.Time) {
	t.t0 = t0
	if t.note != "" {
		return
	}
	rec, err := StartGCTrace("", t0) // the system's temporary folder: never a stray file in the results folder
	if err != nil {
		t.note = "trace did not start: " + err.Error()
		return
	}
	t.rec, t.quit, t.done = rec, make(chan struct{}), make(chan struct{})
	go t.watch()
}

// start is Start with the bounds given.
func start(spec results.Scenario, t0 time.Time, profileTrace bool, maxBytes int64, maxSpan time.Duration) *Trace {
	t := newTrace(spec, profileTrace, maxBytes, maxSpan)
	t.Begin(t0)
	return t
}

// watch stops the trace once its file passes maxBytes or its span maxSpan.
func (t *Trace) watch() {
	defer close(t.done)
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	span := time.NewTimer(t.maxSpan - time.Since(t.t0))
	defer span.Stop()
	for {
		select {
		case <-t.quit:
			return
		case <-span.C:
			t.stop("span bound")
			return
		case <-tick.C:
			if t.rec.Written() > t.maxBytes {
				t.stop("size bound")
				return
			}
		}
	}
}

// stop stops the trace, once.
func (t *Trace) stop(bound string) {
	t.once.Do(func() {
		t.stopped.Store(true)
		t.stopNs, t.bound = int64(time.Since(t.t0)), bound
		if err := t.rec.Stop(); err != nil {
			t.rec.Remove()
			t.rec, t.note = nil, "trace: "+err.Error()
		}
	})
}

// Stop stops the trace once the load ended (if the watcher did not).
func (t *Trace) Stop() {
	if t == nil || t.quit == nil {
		return
	}
	close(t.quit)
	<-t.done
	t.stop("")
}

// Keep offers worker w's timed write over [start, end) (from its intended
// start) to w's sample while the trace runs: the first writes fill it,
// then each replaces a random kept one with the probability that keeps the
// sample uniform (End attributes those the trace covered); called by
// worker w only.
func (t *Trace) Keep(w int, start, end time.Time) {
	if t == nil || w >= len(t.writes) || t.stopped.Load() {
		return
	}
	op := Op{Start: int64(start.Sub(t.t0)), End: int64(end.Sub(t.t0)), Worker: w}
	ws := t.writes[w]
	if len(ws) < cap(ws) {
		t.writes[w] = append(ws, op)
		return
	}
	t.drop[w]++
	x := t.rng[w]
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	t.rng[w] = x
	if j := x % uint64(int64(len(ws))+t.drop[w]); j < uint64(len(ws)) {
		ws[j] = op
	}
}
