package child

import (
	"strings"

	xtrace "golang.org/x/exp/trace"
)

// UtilFlags selects which collector work counts against the mutator, as
// go tool trace's MMU page does.
type UtilFlags uint8

// UtilFlags bits.
const (
	UtilSTW        UtilFlags = 1 << iota // stop-the-world pauses (the collector's)
	UtilBackground                       // background mark workers
	UtilAssist                           // mark assists
	UtilSweep                            // sweeping
	UtilPerProc                          // per-P utilization instead of the whole program's
	// UtilGoTool accounts exactly as go tool trace does, its defects
	// included: a mark worker that starts again is counted twice and
	// never uncounted, so its P stays the collector's for the rest of
	// the trace, and a curve whose last stretch is at 0 ends where that
	// stretch begins. Only for checking against go tool trace.
	UtilGoTool
)

// UtilDefault is go tool trace's default selection: pauses, background
// workers and assists, over the whole program.
const UtilDefault = UtilSTW | UtilBackground | UtilAssist

// Limits on what the utilization log may hold; past them the trace's MMU
// is unknown (nil), not a guess from part of it.
const (
	maxUtilRecs  = 1 << 22 // 128 MiB of records
	maxUtilProcs = 1 << 12 // a GOMAXPROCS beyond this is a damaged trace
	maxSeries    = 1 << 14 // per-P series, counting Ps removed and added again
)

// recKind is what a utilization record says happened.
type recKind uint8

const (
	kSync   recKind = iota // a generation's sync: g is its ordinal
	kProcs                 // GOMAXPROCS changed: g is the new value
	kSTW                   // a collector stop-the-world range
	kAssist                // a mark assist range: g is the assisting goroutine
	kSweep                 // an incremental sweep range
	kState                 // a goroutine that is or was collector work started or stopped running
	kLabel                 // a background mark worker's label: g is the worker
)

// Range, state and label arguments of a record.
const (
	aBegin     uint8 = 0
	aEnd       uint8 = 1
	aActive    uint8 = 2
	aExec      uint8 = 4 // an active range: the event's goroutine was running
	aScopeExec uint8 = 8 // an active assist: the assisting goroutine was running
	aOldExec   uint8 = 1 // kState: was running
	aNewExec   uint8 = 2 // kState: runs now
	aDedicated uint8 = 1 // kLabel: a dedicated worker
	aIdle      uint8 = 2 // kLabel: an idle worker (it runs on a P the mutator left idle)
)

// utilRec is one event that can change the mutator's utilization under
// some UtilFlags, in trace time.
type utilRec struct {
	t    int64
	g    int64
	next int64 // the first later event's time, if one came before the next record; else 0
	p    int32
	kind recKind
	arg  uint8
}

// utilLog is every flag selection's input in one: the records of the
// events that matter to any selection, so each selection's utilization is
// a replay of the log (utilization), not a second pass over the trace.
type utilLog struct {
	recs []utilRec
	end  int64 // the last event's time: every series ends there at 0
	// The child's clock: ns = c0ns + (t - c0t) * slope.
	c0t, c0ns int64
	slope     float64
}

func (l *utilLog) clock(t int64) int64 { return l.c0ns + int64(float64(t-l.c0t)*l.slope) }

// utilRecorder builds a utilLog during Parse's scan. Of the events
// between two records it keeps only the first one later than the record,
// as the record's next: every event resets the utilization to the
// current state, and only the first one at a later time can change the
// step function (an event at the same time keeps that time's lowest
// value).
type utilRecorder struct {
	recs     []utilRec
	limit    int  // maxUtilRecs (a test's is smaller)
	over     bool // past limit: no MMU
	seen     bool
	end      int64
	needTick bool
	relT     int64
	exec     map[xtrace.GoID]bool // running goroutines
	inAssist map[xtrace.GoID]bool // goroutines inside a mark assist
	worker   map[xtrace.GoID]bool // goroutines ever labelled a mark worker
}

func newUtilRecorder() *utilRecorder {
	return &utilRecorder{limit: maxUtilRecs, exec: map[xtrace.GoID]bool{}, inAssist: map[xtrace.GoID]bool{}, worker: map[xtrace.GoID]bool{}}
}

func (u *utilRecorder) event(ev xtrace.Event) {
	t := int64(ev.Time())
	u.end, u.seen = t, true
	r, ok := u.record(ev)
	if !ok {
		if u.needTick && t > u.relT && len(u.recs) > 0 {
			u.recs[len(u.recs)-1].next = t
			u.needTick = false
		}
		return
	}
	r.t, r.p = t, int32(ev.Proc())
	u.add(r)
	u.needTick, u.relT = true, t
}

func (u *utilRecorder) add(r utilRec) {
	if u.over {
		return
	}
	if len(u.recs) >= u.limit {
		u.over, u.recs = true, nil
		return
	}
	u.recs = append(u.recs, r)
}

// record is ev's record, if ev can matter to some selection.
func (u *utilRecorder) record(ev xtrace.Event) (utilRec, bool) {
	switch ev.Kind() {
	case xtrace.EventSync:
		return utilRec{kind: kSync, g: int64(ev.Sync().N)}, true
	case xtrace.EventMetric:
		m := ev.Metric()
		if m.Name != "/sched/gomaxprocs:threads" || m.Value.Kind() != xtrace.ValueUint64 {
			return utilRec{}, false
		}
		return utilRec{kind: kProcs, g: int64(min(m.Value.Uint64(), maxUtilProcs+1))}, true
	case xtrace.EventRangeBegin, xtrace.EventRangeActive, xtrace.EventRangeEnd:
		return u.rangeRecord(ev)
	case xtrace.EventStateTransition:
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			return utilRec{}, false
		}
		g := st.Resource.Goroutine()
		from, to := st.Goroutine()
		if to.Executing() {
			u.exec[g] = true
		} else {
			delete(u.exec, g)
		}
		if !u.inAssist[g] && !u.worker[g] {
			return utilRec{}, false
		}
		var a uint8
		if from.Executing() {
			a |= aOldExec
		}
		if to.Executing() {
			a |= aNewExec
		}
		return utilRec{kind: kState, g: int64(g), arg: a}, true
	case xtrace.EventLabel:
		l := ev.Label().Label
		if !strings.HasPrefix(l, "GC ") {
			return utilRec{}, false
		}
		u.worker[ev.Goroutine()] = true
		r := utilRec{kind: kLabel, g: int64(ev.Goroutine())}
		switch l {
		case "GC (dedicated)":
			r.arg = aDedicated
		case "GC (idle)":
			r.arg = aIdle
		}
		return r, true
	}
	return utilRec{}, false
}

func (u *utilRecorder) rangeRecord(ev xtrace.Event) (utilRec, bool) {
	rg := ev.Range()
	var r utilRec
	switch {
	case strings.HasPrefix(rg.Name, "stop-the-world") && strings.Contains(rg.Name, "GC"):
		r.kind = kSTW
	case rg.Name == "GC mark assist":
		r.kind, r.g = kAssist, int64(xtrace.NoGoroutine)
		if rg.Scope.Kind == xtrace.ResourceGoroutine {
			r.g = int64(rg.Scope.Goroutine())
		}
	case rg.Name == "GC incremental sweep":
		r.kind = kSweep
	default:
		return r, false
	}
	switch ev.Kind() {
	case xtrace.EventRangeEnd:
		r.arg = aEnd
		if r.kind == kAssist {
			delete(u.inAssist, xtrace.GoID(r.g))
		}
	case xtrace.EventRangeActive:
		r.arg = aActive
		if u.exec[ev.Goroutine()] {
			r.arg |= aExec
		}
		if r.kind == kAssist && u.exec[xtrace.GoID(r.g)] {
			r.arg |= aScopeExec
		}
		fallthrough
	default:
		if r.kind == kAssist && xtrace.GoID(r.g) != xtrace.NoGoroutine {
			u.inAssist[xtrace.GoID(r.g)] = true
		}
	}
	return r, true
}

// log is the finished log, nil when the trace had no events or too many.
func (u *utilRecorder) log() *utilLog {
	if u.over || !u.seen {
		return nil
	}
	return &utilLog{recs: u.recs, end: u.end, slope: 1}
}

// point is the mutator's utilization from t until the next point's time.
type point struct {
	t int64
	u float64
}

// utilization replays the log under flags: one step function over the
// whole program, or one per P (and per P's life, when GOMAXPROCS shrinks
// and grows again) with UtilPerProc. Each series ends with a point at 0 at
// the last event. Nil when the trace never said its GOMAXPROCS.
func (l *utilLog) utilization(flags UtilFlags) [][]point {
	if l == nil {
		return nil
	}
	rp := replay{flags: flags, assist: map[int64]bool{}, worker: map[int64]uint8{}, on: map[int64]int32{}}
	for i, r := range l.recs {
		rp.next = l.recs[i+1:]
		rp.step(r)
		if r.next > 0 && len(rp.ps) > 0 {
			rp.emit(r.next)
		}
		if rp.over {
			return nil
		}
	}
	for _, p := range rp.ps {
		rp.end(p.series, l.end)
	}
	return rp.out
}

type procState struct {
	gc     int // collector work on this P (go tool trace's count; sweeps): > 0 means it is not the mutator's
	run    int // goroutines doing collector work running on this P
	series int
}

type procsAt struct {
	t int64
	n int
}

// replay is one selection's state while utilization walks the log.
type replay struct {
	flags  UtilFlags
	out    [][]point
	ps     []procState
	procs  []procsAt
	stw    int
	nSync  int64
	assist map[int64]bool  // goroutines in an assist (when assists count)
	worker map[int64]uint8 // mark workers (when they count): their last label's aDedicated/aIdle bits
	on     map[int64]int32 // goroutines counted in a P's run: that P
	next   []utilRec       // the records after the one in hand
	over   bool
}

func (rp *replay) perProc() bool { return rp.flags&UtilPerProc != 0 }
func (rp *replay) goTool() bool  { return rp.flags&UtilGoTool != 0 }

// end closes a series at t with a 0. go tool trace's merges it into a
// stretch already at 0, so its curve stops where that stretch starts.
func (rp *replay) end(series int, t int64) {
	s := rp.out[series]
	if rp.goTool() || len(s) == 0 || s[len(s)-1].t >= t {
		rp.out[series] = addPoint(s, point{t, 0})
		return
	}
	rp.out[series] = append(s, point{t, 0})
}

// counts says whether a range record's collector work counts under flags.
func (rp *replay) counts(k recKind) bool {
	switch k {
	case kSTW:
		return rp.flags&UtilSTW != 0
	case kAssist:
		return rp.flags&UtilAssist != 0
	case kSweep:
		return rp.flags&UtilSweep != 0
	}
	return false
}

// gc adds d to P p's collector work, if p is a P the trace announced.
func (rp *replay) gc(p int32, d int) {
	if p >= 0 && int(p) < len(rp.ps) {
		rp.ps[p].gc += d
	}
}

func (rp *replay) step(r utilRec) {
	switch r.kind {
	case kSync:
		rp.nSync = r.g
	case kProcs:
		rp.setProcs(r.t, int(r.g))
	}
	if len(rp.ps) == 0 {
		return // nothing is known before the first GOMAXPROCS
	}
	if rp.goTool() {
		rp.goToolStep(r)
	} else {
		rp.exactStep(r)
	}
	rp.emit(r.t)
}

// goToolStep is go tool trace's accounting: one count per P, raised and
// lowered by every begin, end, start and stop of collector work.
func (rp *replay) goToolStep(r utilRec) {
	switch r.kind {
	case kSTW, kAssist, kSweep:
		rp.rangeStep(r)
	case kState:
		if rp.assist[r.g] || rp.worker[r.g] != 0 {
			switch r.arg & (aOldExec | aNewExec) {
			case aNewExec:
				rp.gc(r.p, 1)
			case aOldExec:
				rp.gc(r.p, -1)
			}
		}
	case kLabel:
		// A dedicated worker owns its P, so per P it holds up no
		// goroutine by itself; an idle one uses a P the mutator left.
		if rp.flags&UtilBackground != 0 && r.arg&aIdle == 0 && (!rp.perProc() || r.arg&aDedicated == 0) {
			rp.worker[r.g] = 1
			rp.gc(r.p, 1)
		}
	}
}

// exactStep counts each goroutine doing collector work once, on the P it
// runs on, while it runs: an assist from its begin to its end, a mark
// worker from its start to its stop unless its label says idle (or, per
// P, dedicated).
func (rp *replay) exactStep(r utilRec) {
	switch r.kind {
	case kSTW, kSweep:
		rp.rangeStep(r)
	case kAssist:
		rp.assistStep(r)
	case kState:
		switch r.arg & (aOldExec | aNewExec) {
		case aNewExec:
			if rp.assist[r.g] || rp.workerCounts(r.g) && !rp.labelFollows(r.g) {
				rp.count(r.g, r.p)
			}
		case aOldExec:
			rp.uncount(r.g)
		}
	case kLabel:
		if rp.flags&UtilBackground == 0 {
			return
		}
		rp.worker[r.g] = r.arg | 0x80 // never 0: known as a worker
		if rp.workerCounts(r.g) {
			rp.count(r.g, r.p)
		} else if !rp.assist[r.g] {
			rp.uncount(r.g)
		}
	}
}

// labelLook is how far labelFollows looks: the runtime writes a worker's
// label right after its start, so only other Ps' events come between.
const labelLook = 16

// labelFollows says whether worker g's start is followed by its label,
// which then says whether this run counts (an idle run must not count
// between its start and its label).
func (rp *replay) labelFollows(g int64) bool {
	for _, r := range rp.next[:min(len(rp.next), labelLook)] {
		if r.g == g && (r.kind == kLabel || r.kind == kState) {
			return r.kind == kLabel
		}
	}
	return false
}

// workerCounts says whether g is a mark worker whose current run counts.
func (rp *replay) workerCounts(g int64) bool {
	m, ok := rp.worker[g]
	return ok && m&aIdle == 0 && (!rp.perProc() || m&aDedicated == 0)
}

func (rp *replay) assistStep(r utilRec) {
	if !rp.counts(kAssist) || xtrace.GoID(r.g) == xtrace.NoGoroutine {
		return
	}
	switch r.arg &^ (aExec | aScopeExec) {
	case aActive:
		if rp.nSync > 1 {
			return
		}
		running := r.arg&aScopeExec != 0
		if running && !rp.perProc() {
			rp.backdate()
		}
		rp.assist[r.g] = true
		if running {
			rp.count(r.g, r.p)
		}
	case aBegin:
		rp.assist[r.g] = true
		rp.count(r.g, r.p) // an assist begins on its running goroutine
	case aEnd:
		delete(rp.assist, r.g)
		if !rp.workerCounts(r.g) {
			rp.uncount(r.g)
		}
	}
}

// count puts running goroutine g's collector work on P p, once.
func (rp *replay) count(g int64, p int32) {
	if _, ok := rp.on[g]; ok || p < 0 || int(p) >= len(rp.ps) {
		return
	}
	rp.on[g] = p
	rp.ps[p].run++
}

func (rp *replay) uncount(g int64) {
	p, ok := rp.on[g]
	if !ok {
		return
	}
	delete(rp.on, g)
	if int(p) < len(rp.ps) {
		rp.ps[p].run--
	}
}

func (rp *replay) setProcs(t int64, n int) {
	if n > maxUtilProcs {
		rp.over = true
		return
	}
	if len(rp.ps) > n {
		if rp.perProc() {
			for _, p := range rp.ps[n:] {
				rp.end(p.series, t)
			}
		}
		rp.ps = rp.ps[:n]
		for g, p := range rp.on {
			if int(p) >= n {
				delete(rp.on, g) // its P is gone: a P added later starts clean
			}
		}
	}
	for len(rp.ps) < n {
		s := 0
		if rp.perProc() || len(rp.out) == 0 {
			if len(rp.out) >= maxSeries {
				rp.over = true
				return
			}
			s = len(rp.out)
			rp.out = append(rp.out, []point{{t, 1}})
		}
		rp.ps = append(rp.ps, procState{series: s})
	}
	if len(rp.procs) == 0 || rp.procs[len(rp.procs)-1].n != n {
		rp.procs = append(rp.procs, procsAt{t, n})
	}
}

// rangeStep opens or closes a pause, an assist (go tool trace's
// accounting) or a sweep. A range found already open in the first
// generation was open since the trace's start: the whole-program series
// so far loses that P's share (an assist only if the event's goroutine
// was running). Later generations repeat what is known.
func (rp *replay) rangeStep(r utilRec) {
	if !rp.counts(r.kind) {
		return
	}
	switch r.arg &^ (aExec | aScopeExec) {
	case aActive:
		if rp.nSync > 1 {
			return
		}
		if !rp.perProc() && (r.kind == kSweep || r.kind == kAssist && r.arg&aExec != 0) {
			rp.backdate()
		}
		fallthrough
	case aBegin:
		switch r.kind {
		case kSTW:
			rp.stw++
		case kSweep:
			rp.gc(r.p, 1)
		case kAssist:
			rp.gc(r.p, 1)
			if xtrace.GoID(r.g) != xtrace.NoGoroutine {
				rp.assist[r.g] = true
			}
		}
	case aEnd:
		switch r.kind {
		case kSTW:
			rp.stw--
			if !rp.goTool() {
				rp.stw = max(rp.stw, 0) // an end without a begin: the pause began before the trace
			}
		case kSweep:
			rp.gc(r.p, -1)
		case kAssist:
			rp.gc(r.p, -1)
			delete(rp.assist, r.g)
		}
	}
}

// backdate takes one P's share, at the GOMAXPROCS of each point's time,
// from every point of the whole-program series so far.
func (rp *replay) backdate() {
	s, pi := rp.out[0], 0
	for i := range s {
		for pi+1 < len(rp.procs) && rp.procs[pi+1].t < s[i].t {
			pi++
		}
		s[i].u = max(s[i].u-1/float64(rp.procs[pi].n), 0)
	}
}

// emit adds each series' utilization at t, after an event.
func (rp *replay) emit(t int64) {
	if !rp.perProc() {
		busy := 0
		for _, p := range rp.ps {
			if rp.stw > 0 || p.gc > 0 || p.run > 0 {
				busy++
			}
		}
		rp.out[0] = addPoint(rp.out[0], point{t, 1 - float64(busy)/float64(len(rp.ps))})
		return
	}
	for _, p := range rp.ps {
		u := 1.0
		if rp.stw > 0 || p.gc > 0 || p.run > 0 {
			u = 0
		}
		rp.out[p.series] = addPoint(rp.out[p.series], point{t, u})
	}
}

// addPoint appends a change of utilization; at a time already in the
// series the lowest value wins (a moment of collector work is not lost to
// a later event at the same time). Time never runs backwards.
func addPoint(s []point, x point) []point {
	n := len(s)
	if n == 0 {
		return append(s, x)
	}
	last := &s[n-1]
	x.t = max(x.t, last.t)
	switch {
	case x.u == last.u:
	case x.t == last.t:
		last.u = min(last.u, x.u)
	default:
		s = append(s, x)
	}
	return s
}
