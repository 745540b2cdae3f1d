package child

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/trace"
	"strconv"
	"strings"
	"time"

	xtrace "golang.org/x/exp/trace"
)

// The trace log categories a Recorder writes: clock marks (the message is
// the child's clock in nanoseconds at the moment of the log) and worker
// marks (the message is the worker's index, logged from its goroutine).
const (
	ClockCategory  = "gcstress.clock"
	WorkerCategory = "gcstress.worker"
)

// Sentinel errors.
var (
	ErrTrace   = errors.New("gctrace: bad trace")
	ErrNoClock = errors.New("gctrace: trace has no clock mark")
)

// Recorder traces a measured phase into a file (runtime/trace.Start), for
// Parse. One per scenario; its methods are called from the child's main
// goroutine (Worker from any). The trace goes to a file, never the Go
// heap, so the tracer adds nothing for the collector to mark.
type Recorder struct {
	f    *os.File
	t0   time.Time
	ctx  context.Context
	size int64
}

// StartGCTrace creates a trace file in dir (the system's temporary folder when
// dir is "") and starts tracing; t0 is the child's clock origin. It fails
// when the process is already tracing (trace.Start's error).
func StartGCTrace(dir string, t0 time.Time) (*Recorder, error) {
	f, err := os.CreateTemp(dir, "reads-*.trace")
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	r := &Recorder{f: f, t0: t0, ctx: context.Background()}
	r.Mark()
	return r, nil
}

// Mark logs a clock mark. Parse maps the trace's clock onto the child's
// from the first and last marks.
func (r *Recorder) Mark() {
	trace.Log(r.ctx, ClockCategory, strconv.FormatInt(int64(time.Since(r.t0)), 10))
}

// Worker logs that the calling goroutine is worker i, so that its mark
// assists are charged to it. It does nothing when no trace runs.
func Worker(i int) {
	if trace.IsEnabled() {
		trace.Log(context.Background(), WorkerCategory, strconv.Itoa(i))
	}
}

// Stop logs a last clock mark, stops the trace and closes the file.
func (r *Recorder) Stop() error {
	r.Mark()
	trace.Stop()
	st, err := r.f.Stat()
	if err == nil {
		r.size = st.Size()
	}
	return errors.Join(err, r.f.Close())
}

// Bytes is the trace's size, once stopped.
func (r *Recorder) Bytes() int64 { return r.size }

// Parse parses the stopped trace and removes its file.
func (r *Recorder) Parse() (*Phases, int64, error) {
	defer os.Remove(r.f.Name())
	f, err := os.Open(r.f.Name())
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return Parse(f)
}

// Remove removes the trace file (a Recorder that will not be parsed).
func (r *Recorder) Remove() { os.Remove(r.f.Name()) }

// Parse reads a trace written while a Recorder ran: the mark phases (each
// with the GC's stop-the-world pauses that open and close it, sweep and
// mark termination, merged in), the collector's stop-the-world pauses and
// the mark assists of the goroutines that logged
// a worker mark, on the child's clock. It returns the timeline, normalized,
// and the events read.
func Parse(rd io.Reader) (ph *Phases, events int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			ph, err = nil, fmt.Errorf("%w: parser: %v", ErrTrace, p)
		}
	}()
	r, err := xtrace.NewReader(rd)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrTrace, err)
	}
	sc := newScan()
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, sc.events, fmt.Errorf("%w: %v", ErrTrace, err)
		}
		sc.event(ev)
	}
	ph, err = sc.phases()
	return ph, sc.events, err
}

type raw struct{ a, b xtrace.Time }

type clockMark struct {
	t  xtrace.Time
	ns int64
}

// scan is Parse's state: open ranges and the spans closed so far, in trace
// time.
type scan struct {
	events      int64
	seen        bool
	first, last xtrace.Time
	clocks      []clockMark
	workers     map[xtrace.GoID]int
	markOpen    xtrace.Time // -1: none
	marks       []raw
	stwOpen     map[xtrace.GoID]xtrace.Time
	pauses      []raw
	assistOpen  map[xtrace.GoID]xtrace.Time
	assists     map[xtrace.GoID][]raw
	util        *utilRecorder
}

func newScan() *scan {
	return &scan{workers: map[xtrace.GoID]int{}, markOpen: -1, stwOpen: map[xtrace.GoID]xtrace.Time{},
		assistOpen: map[xtrace.GoID]xtrace.Time{}, assists: map[xtrace.GoID][]raw{}, util: newUtilRecorder()}
}

func (sc *scan) event(ev xtrace.Event) {
	sc.util.event(ev)
	if ev.Kind() == xtrace.EventSync {
		return
	}
	sc.events++
	t := ev.Time()
	if !sc.seen {
		sc.first, sc.seen = t, true
	}
	sc.last = max(sc.last, t)
	switch ev.Kind() {
	case xtrace.EventLog:
		sc.log(ev.Log(), ev.Goroutine(), t)
	case xtrace.EventRangeBegin, xtrace.EventRangeActive, xtrace.EventRangeEnd:
		sc.rangeEvent(ev, t)
	}
}

func (sc *scan) log(l xtrace.Log, g xtrace.GoID, t xtrace.Time) {
	switch l.Category {
	case ClockCategory:
		if ns, err := strconv.ParseInt(l.Message, 10, 64); err == nil {
			sc.clocks = append(sc.clocks, clockMark{t, ns})
		}
	case WorkerCategory:
		if i, err := strconv.Atoi(l.Message); err == nil && g != xtrace.NoGoroutine {
			sc.workers[g] = i
		}
	}
}

// rangeEvent opens or closes a mark phase, an assist or a pause. A range
// reported active (open since before the trace, or again in a later
// generation) opens only if it is not open yet, at the trace's start.
func (sc *scan) rangeEvent(ev xtrace.Event, t xtrace.Time) {
	rg := ev.Range()
	active := ev.Kind() == xtrace.EventRangeActive
	begin := ev.Kind() != xtrace.EventRangeEnd
	if active {
		t = sc.first
	}
	switch {
	case rg.Name == "GC concurrent mark phase":
		switch {
		case begin && sc.markOpen < 0:
			sc.markOpen = t
		case !begin:
			sc.marks = append(sc.marks, raw{max(sc.markOpen, sc.first), t})
			sc.markOpen = -1
		}
	case rg.Name == "GC mark assist":
		openClose(sc.assistOpen, rg.Scope.Goroutine(), begin, t, sc.first, func(s raw) {
			g := rg.Scope.Goroutine()
			sc.assists[g] = append(sc.assists[g], s)
		})
	case strings.HasPrefix(rg.Name, "stop-the-world ("):
		// The collector's pauses only (sweep and mark termination, which
		// open and close a mark phase): not the tracer's own at its start
		// and end, nor a profile's.
		if strings.HasPrefix(rg.Name, "stop-the-world (GC") {
			openClose(sc.stwOpen, ev.Goroutine(), begin, t, sc.first, func(s raw) {
				sc.pauses = append(sc.pauses, s)
				sc.marks = append(sc.marks, s)
			})
		}
	}
}

// openClose opens g's range at t (unless open) or closes it, handing the
// span to done; a close without an open starts at first.
func openClose(open map[xtrace.GoID]xtrace.Time, g xtrace.GoID, begin bool, t, first xtrace.Time, done func(raw)) {
	s, ok := open[g]
	if begin {
		if !ok {
			open[g] = t
		}
		return
	}
	if !ok {
		s = first
	}
	delete(open, g)
	done(raw{s, t})
}

// phases closes what is still open at the last event and maps every span
// onto the child's clock.
func (sc *scan) phases() (*Phases, error) {
	if len(sc.clocks) == 0 {
		return nil, ErrNoClock
	}
	if sc.markOpen >= 0 {
		sc.marks = append(sc.marks, raw{sc.markOpen, sc.last})
	}
	for g, s := range sc.assistOpen {
		sc.assists[g] = append(sc.assists[g], raw{s, sc.last})
	}
	for _, s := range sc.stwOpen {
		sc.pauses = append(sc.pauses, raw{s, sc.last})
	}
	c0, c1 := sc.clocks[0], sc.clocks[len(sc.clocks)-1]
	slope := 1.0
	if c1.t > c0.t && c1.ns > c0.ns {
		slope = float64(c1.ns-c0.ns) / float64(c1.t-c0.t)
	}
	at := func(t xtrace.Time) int64 { return c0.ns + int64(float64(t-c0.t)*slope) }
	conv := func(rs []raw) []Span {
		out := make([]Span, 0, len(rs))
		for _, r := range rs {
			out = append(out, Span{at(r.a), at(r.b)})
		}
		return out
	}
	ph := &Phases{Mark: conv(sc.marks), Pause: conv(sc.pauses), Assist: map[int][]Span{}, util: sc.util.log()}
	if ph.util != nil {
		ph.util.c0t, ph.util.c0ns, ph.util.slope = int64(c0.t), c0.ns, slope
	}
	for g, rs := range sc.assists {
		if w, ok := sc.workers[g]; ok {
			ph.Assist[w] = append(ph.Assist[w], conv(rs)...)
		}
	}
	ph.Normalize()
	return ph, nil
}
