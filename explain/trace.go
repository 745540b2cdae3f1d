package explain

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// Span is one interval on a trace's timeline, as an offset from the trace's
// first event.
type Span struct {
	Start, Duration time.Duration
}

func (s Span) end() time.Duration { return s.Start + s.Duration }

func (s Span) overlaps(o Span) bool { return s.Start < o.end() && o.Start < s.end() }

// Pause is one stop-the-world pause.
type Pause struct {
	Span
	// Reason is the runtime's reason, e.g. "GC mark termination".
	Reason string
}

// GCCycle is one collection's mark phase and the GC pauses that bracket it
// (sweep termination before, mark termination after).
type GCCycle struct {
	// Mark is the concurrent mark phase. A phase already running when the
	// trace began starts at 0; one still running at the end ends there.
	Mark   Span
	Pauses []Pause
}

// OpStats ties slow operations to the collector.
type OpStats struct {
	// Region is the region or task type that marks one operation.
	Region string
	// Count is how many complete operations the trace holds.
	Count int
	// P50, P99 and Max summarise their durations.
	P50, P99, Max time.Duration
	// Threshold is the duration above which an operation is slow
	// (Options.SlowOp, or P99).
	Threshold time.Duration
	// Slow is how many operations were above Threshold.
	Slow int
	// SlowInMark, SlowInPause and SlowInGC are the shares (0..1) of slow
	// operations that overlapped a mark phase, a GC stop-the-world pause,
	// or either. AllInGC is the same share over all operations: the baseline.
	SlowInMark, SlowInPause, SlowInGC, AllInGC float64
	// SlowInOtherPause is the share of slow operations that overlapped a
	// stop-the-world pause not made by the GC (e.g. the goroutine profiles
	// fgprof takes 99 times a second).
	SlowInOtherPause float64
	// SlowAssisted is the share of slow operations whose goroutine ran a
	// mark assist during the operation.
	SlowAssisted float64
	// TiedToGC is the verdict: slow operations overlapped the collector
	// at least 15 points more often than operations in general, or at
	// least half of them assisted.
	TiedToGC bool
}

// TraceAccount explains a runtime trace: the GC timeline and, when the
// trace marks operations with regions or tasks, whether slow ones fell
// inside GC work.
type TraceAccount struct {
	File string
	// Duration is from the first to the last event.
	Duration time.Duration
	// Cycles are the GC cycles seen, in order.
	Cycles []GCCycle
	// OtherPauses are stop-the-world pauses outside GC cycles or not made
	// by the GC (their Reason does not begin with "GC").
	OtherPauses []Pause
	// MarkShare is the part of Duration in mark phases (0..1).
	MarkShare float64
	// Pauses counts the GC's stop-the-world pauses (those in Cycles);
	// PauseTotal, PauseMax and PauseP99 summarise them.
	Pauses                         int
	PauseTotal, PauseMax, PauseP99 time.Duration
	// Ops is nil when the trace holds no region or task of Options.Region;
	// RegionTypes then lists the region and task types it does hold.
	Ops         *OpStats
	RegionTypes []string
}

type openRegion struct {
	typ   string
	start trace.Time
}

// traceScan is the state of one pass over a trace's events: the ranges,
// regions and tasks open so far and the spans they closed.
type traceScan struct {
	want        string // the region or task type that marks one operation
	first, last trace.Time
	seen        bool
	markStart   trace.Time // -1: no mark phase open
	marks       []Span
	stwOpen     map[trace.GoID]trace.Time
	pauses      []Pause
	assistOpen  map[trace.GoID]trace.Time
	assists     map[trace.GoID][]Span
	regOpen     map[trace.GoID][]openRegion
	taskOpen    map[trace.TaskID]openRegion
	ops         []opSpan
	types       map[string]int
}

func analyzeTrace(path string, data []byte, opts Options) (ta *TraceAccount, err error) {
	defer func() {
		// The parser is strict but not hardened against every damaged
		// input; a panic on a bad file becomes an error naming the file.
		if r := recover(); r != nil {
			ta, err = nil, fmt.Errorf("explain: %s: %w: trace parser: %v", path, ErrCorrupt, r)
		}
	}()
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("explain: %s: %w: %v", path, ErrCorrupt, err)
	}
	sc := &traceScan{want: opts.region(), markStart: -1, stwOpen: map[trace.GoID]trace.Time{},
		assistOpen: map[trace.GoID]trace.Time{}, assists: map[trace.GoID][]Span{},
		regOpen: map[trace.GoID][]openRegion{}, taskOpen: map[trace.TaskID]openRegion{}, types: map[string]int{}}
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("explain: %s: %w: %v", path, ErrCorrupt, err)
		}
		sc.event(ev)
	}
	if !sc.seen {
		return nil, fmt.Errorf("explain: %s: %w: trace has no events", path, ErrEmpty)
	}
	return sc.account(path, opts), nil
}

func (sc *traceScan) off(t trace.Time) time.Duration { return t.Sub(sc.first) }

// event takes one trace event into the scan.
func (sc *traceScan) event(ev trace.Event) {
	if ev.Kind() == trace.EventSync {
		return // also emitted for a trace with a header and nothing else
	}
	t := ev.Time()
	if !sc.seen {
		sc.first, sc.seen = t, true
	}
	sc.last = max(sc.last, t)
	switch ev.Kind() {
	case trace.EventRangeBegin, trace.EventRangeActive, trace.EventRangeEnd:
		sc.rangeEvent(ev, t)
	case trace.EventRegionBegin:
		rg := ev.Region()
		g := ev.Goroutine()
		sc.regOpen[g] = append(sc.regOpen[g], openRegion{rg.Type, t})
		sc.types[rg.Type]++
	case trace.EventRegionEnd:
		sc.regionEnd(ev.Region().Type, ev.Goroutine(), t)
	case trace.EventTaskBegin:
		tk := ev.Task()
		sc.taskOpen[tk.ID] = openRegion{tk.Type, t}
		sc.types[tk.Type]++
	case trace.EventTaskEnd:
		tk := ev.Task()
		if o, ok := sc.taskOpen[tk.ID]; ok {
			delete(sc.taskOpen, tk.ID)
			if o.typ == sc.want {
				sc.ops = append(sc.ops, opSpan{Span{sc.off(o.start), t.Sub(o.start)}, noGoroutine})
			}
		}
	}
}

// rangeEvent opens or closes a mark phase, a mark assist or a
// stop-the-world pause.
func (sc *traceScan) rangeEvent(ev trace.Event, t trace.Time) {
	rg := ev.Range()
	begin := ev.Kind() != trace.EventRangeEnd
	if ev.Kind() == trace.EventRangeActive {
		// A range already open when a generation starts is reported again in
		// every later generation (flight-recorder traces hold several): only
		// the first report, at the start of the trace, opens it.
		if rangeOpen(rg, ev.Goroutine(), sc.markStart, sc.assistOpen, sc.stwOpen) {
			return
		}
		t = sc.first
	}
	switch {
	case rg.Name == "GC concurrent mark phase":
		if begin {
			sc.markStart = t
			return
		}
		if sc.markStart < 0 {
			sc.markStart = sc.first
		}
		sc.marks = append(sc.marks, Span{sc.off(sc.markStart), t.Sub(sc.markStart)})
		sc.markStart = -1
	case rg.Name == "GC mark assist":
		g := rg.Scope.Goroutine()
		if begin {
			sc.assistOpen[g] = t
			return
		}
		s, ok := sc.assistOpen[g]
		if !ok {
			s = sc.first
		}
		delete(sc.assistOpen, g)
		sc.assists[g] = append(sc.assists[g], Span{sc.off(s), t.Sub(s)})
	case strings.HasPrefix(rg.Name, "stop-the-world ("):
		g := ev.Goroutine()
		if begin {
			sc.stwOpen[g] = t
		} else if s, ok := sc.stwOpen[g]; ok {
			delete(sc.stwOpen, g)
			reason := strings.TrimSuffix(strings.TrimPrefix(rg.Name, "stop-the-world ("), ")")
			sc.pauses = append(sc.pauses, Pause{Span{sc.off(s), t.Sub(s)}, reason})
		}
	}
}

// regionEnd closes the innermost open region of type typ on goroutine g.
func (sc *traceScan) regionEnd(typ string, g trace.GoID, t trace.Time) {
	st := sc.regOpen[g]
	for i := len(st) - 1; i >= 0; i-- {
		if st[i].typ == typ {
			if typ == sc.want {
				sc.ops = append(sc.ops, opSpan{Span{sc.off(st[i].start), t.Sub(st[i].start)}, g})
			}
			sc.regOpen[g] = slices.Delete(st, i, i+1)
			return
		}
	}
}

// account builds the TraceAccount from a finished scan.
func (sc *traceScan) account(path string, opts Options) *TraceAccount {
	if sc.markStart >= 0 {
		sc.marks = append(sc.marks, Span{sc.off(sc.markStart), sc.last.Sub(sc.markStart)})
	}
	ta := &TraceAccount{File: path, Duration: sc.last.Sub(sc.first)}
	ta.build(sc.marks, sc.pauses)
	if len(sc.ops) == 0 {
		for k := range sc.types {
			ta.RegionTypes = append(ta.RegionTypes, k)
		}
		slices.Sort(ta.RegionTypes)
		return ta
	}
	var gcPauses []Pause
	for _, c := range ta.Cycles {
		gcPauses = append(gcPauses, c.Pauses...)
	}
	ta.Ops = opStats(sc.want, sc.ops, sc.marks, gcPauses, ta.OtherPauses, sc.assists, opts.SlowOp)
	return ta
}

const noGoroutine = trace.NoGoroutine

// rangeOpen reports whether the range named name is already open: the mark
// phase, a goroutine's assist, or a goroutine's stop-the-world.
func rangeOpen(rg trace.Range, g trace.GoID, markStart trace.Time, assists, stws map[trace.GoID]trace.Time) bool {
	switch {
	case rg.Name == "GC concurrent mark phase":
		return markStart >= 0
	case rg.Name == "GC mark assist":
		_, ok := assists[rg.Scope.Goroutine()]
		return ok
	case strings.HasPrefix(rg.Name, "stop-the-world ("):
		_, ok := stws[g]
		return ok
	}
	return false
}

type opSpan struct {
	Span
	g trace.GoID
}

// gcPauseSlack is how far before a mark phase a sweep-termination pause, or
// after it a mark-termination pause, may lie and still belong to its cycle.
const gcPauseSlack = 5 * time.Millisecond

func (ta *TraceAccount) build(marks []Span, pauses []Pause) {
	var markTotal time.Duration
	for _, m := range marks {
		ta.Cycles = append(ta.Cycles, GCCycle{Mark: m})
		markTotal += m.Duration
	}
	if ta.Duration > 0 {
		ta.MarkShare = float64(markTotal) / float64(ta.Duration)
	}
	ds := make([]time.Duration, 0, len(pauses))
	for _, p := range pauses {
		placed := false
		if i := nearestCycle(ta.Cycles, p); i >= 0 {
			ta.Cycles[i].Pauses = append(ta.Cycles[i].Pauses, p)
			ds = append(ds, p.Duration)
			ta.PauseTotal += p.Duration
			ta.PauseMax = max(ta.PauseMax, p.Duration)
			placed = true
		}
		if !placed {
			ta.OtherPauses = append(ta.OtherPauses, p)
		}
	}
	ta.Pauses = len(ds)
	ta.PauseP99 = quantile(ds, 0.99)
}

// nearestCycle returns the cycle a GC pause belongs to, or -1: a sweep
// termination pause to the cycle whose mark phase starts nearest its end,
// any other GC pause to the cycle whose mark phase ends nearest its start,
// within gcPauseSlack.
func nearestCycle(cycles []GCCycle, p Pause) int {
	if !strings.HasPrefix(p.Reason, "GC") {
		return -1
	}
	best, bestD := -1, gcPauseSlack+1
	for i, c := range cycles {
		var d time.Duration
		if strings.Contains(p.Reason, "sweep termination") {
			d = c.Mark.Start - p.end()
		} else {
			d = p.Start - c.Mark.end()
		}
		if d < 0 {
			d = -d
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// quantile returns the q-quantile of ds (nearest rank); it sorts ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// overlapsAny reports whether s overlaps any of spans, which are sorted by
// start and do not overlap one another (true of mark phases, of pauses, and
// of one goroutine's assists), so only the last span starting before s
// ends can overlap it.
func overlapsAny(s Span, spans []Span) bool {
	i, _ := slices.BinarySearchFunc(spans, s.end(), func(a Span, t time.Duration) int {
		if a.Start < t {
			return -1
		}
		return 1
	})
	return i > 0 && spans[i-1].overlaps(s)
}

func byStart(a, b Span) int { return cmp.Compare(a.Start, b.Start) }

func spansOf(pauses []Pause) []Span {
	ps := make([]Span, len(pauses))
	for i, p := range pauses {
		ps[i] = p.Span
	}
	slices.SortFunc(ps, byStart)
	return ps
}

func opStats(region string, ops []opSpan, marks []Span, pauses, other []Pause, assists map[trace.GoID][]Span, slow time.Duration) *OpStats {
	st := &OpStats{Region: region, Count: len(ops)}
	ds := make([]time.Duration, len(ops))
	for i, o := range ops {
		ds[i] = o.Duration
	}
	st.P50 = quantile(ds, 0.50)
	st.P99 = quantile(ds, 0.99)
	st.Max = ds[len(ds)-1]
	st.Threshold = slow
	if slow <= 0 {
		st.Threshold = st.P99
	}
	slices.SortFunc(marks, byStart)
	ps, otherPs := spansOf(pauses), spansOf(other)
	for _, as := range assists {
		slices.SortFunc(as, byStart)
	}
	var inMark, inPause, inGC, allGC, assisted, inOther int
	for _, o := range ops {
		m, p := overlapsAny(o.Span, marks), overlapsAny(o.Span, ps)
		if m || p {
			allGC++
		}
		if o.Duration <= st.Threshold {
			continue
		}
		st.Slow++
		if m {
			inMark++
		}
		if p {
			inPause++
		}
		if m || p {
			inGC++
		}
		if overlapsAny(o.Span, otherPs) {
			inOther++
		}
		if o.g != noGoroutine && overlapsAny(o.Span, assists[o.g]) {
			assisted++
		}
	}
	st.AllInGC = float64(allGC) / float64(len(ops))
	if st.Slow > 0 {
		n := float64(st.Slow)
		st.SlowInMark, st.SlowInPause, st.SlowInGC, st.SlowAssisted = float64(inMark)/n, float64(inPause)/n, float64(inGC)/n, float64(assisted)/n
		st.SlowInOtherPause = float64(inOther) / n
		st.TiedToGC = st.SlowInGC-st.AllInGC >= 0.15 || st.SlowAssisted >= 0.5
	}
	return st
}
