package child

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"
)

const ms = int64(time.Millisecond)

// timeline builds a synthetic trace's events, in order, for the
// utilization recorder.
type timeline struct {
	t   *testing.T
	evs []xtrace.Event
}

func (tl *timeline) add(ev xtrace.Event, err error) *timeline {
	tl.t.Helper()
	if err != nil {
		tl.t.Fatal(err)
	}
	tl.evs = append(tl.evs, ev)
	return tl
}

func (tl *timeline) sync(at int64, n int) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Sync]{Time: xtrace.Time(at), Kind: xtrace.EventSync, Details: xtrace.Sync{N: n}}))
}

func (tl *timeline) procs(at int64, n uint64) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Metric]{Time: xtrace.Time(at), Kind: xtrace.EventMetric,
		Details: xtrace.Metric{Name: "/sched/gomaxprocs:threads", Value: xtrace.Uint64Value(n)}}))
}

func (tl *timeline) stw(at int64, kind xtrace.EventKind) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Range]{Time: xtrace.Time(at), Kind: kind, Goroutine: 1, Proc: 0,
		Details: xtrace.Range{Name: "stop-the-world (GC mark termination)", Scope: xtrace.MakeResourceID(xtrace.GoID(1))}}))
}

func (tl *timeline) assist(at int64, kind xtrace.EventKind, g xtrace.GoID, p xtrace.ProcID) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Range]{Time: xtrace.Time(at), Kind: kind, Goroutine: g, Proc: p,
		Details: xtrace.Range{Name: "GC mark assist", Scope: xtrace.MakeResourceID(g)}}))
}

func (tl *timeline) sweep(at int64, kind xtrace.EventKind, p xtrace.ProcID) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Range]{Time: xtrace.Time(at), Kind: kind, Proc: p,
		Details: xtrace.Range{Name: "GC incremental sweep", Scope: xtrace.MakeResourceID(p)}}))
}

func (tl *timeline) gostate(at int64, g xtrace.GoID, p xtrace.ProcID, from, to xtrace.GoState) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.StateTransition]{Time: xtrace.Time(at), Kind: xtrace.EventStateTransition,
		Goroutine: g, Proc: p, Details: xtrace.MakeGoStateTransition(g, from, to)}))
}

func (tl *timeline) label(at int64, g xtrace.GoID, p xtrace.ProcID, l string) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Label]{Time: xtrace.Time(at), Kind: xtrace.EventLabel,
		Goroutine: g, Proc: p, Details: xtrace.Label{Label: l, Resource: xtrace.MakeResourceID(g)}}))
}

// other is an event that matters to no utilization.
func (tl *timeline) other(at int64) *timeline {
	return tl.add(xtrace.MakeEvent(xtrace.EventConfig[xtrace.Log]{Time: xtrace.Time(at), Kind: xtrace.EventLog,
		Goroutine: 1, Details: xtrace.Log{Category: "x", Message: "y"}}))
}

// phases runs the events through the recorder, on a child's clock that
// starts 1000 ns after the trace's.
func (tl *timeline) phases() *Phases { return tl.phasesUpTo(maxUtilRecs) }

func (tl *timeline) phasesUpTo(limit int) *Phases {
	u := newUtilRecorder()
	u.limit = limit
	for _, ev := range tl.evs {
		u.event(ev)
	}
	p := &Phases{util: u.log()}
	if p.util != nil {
		p.util.c0ns, p.util.slope = 1000, 1
	}
	return p
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// checkMMU checks flags' MMU with both accountings: they differ only on a
// mark worker that starts again and a curve that ends at 0.
func checkMMU(t *testing.T, name string, p *Phases, flags UtilFlags, want map[time.Duration]float64) {
	t.Helper()
	checkOne(t, name, p, flags, want)
	checkOne(t, name+" (go tool trace's accounting)", p, flags|UtilGoTool, want)
}

func checkOne(t *testing.T, name string, p *Phases, flags UtilFlags, want map[time.Duration]float64) {
	t.Helper()
	for w, u := range want {
		got := p.MMU(flags, []time.Duration{w})
		if len(got) != 1 || got[0].Window != w || !near(got[0].Util, u) {
			t.Errorf("%s: MMU(%v) = %v, want %.4f", name, w, got, u)
		}
	}
}

// One 2 ms pause in 10 ms on 4 Ps.
func TestMMUOnePause(t *testing.T) {
	tl := &timeline{t: t}
	p := tl.sync(0, 1).procs(0, 4).stw(4*ms, xtrace.EventRangeBegin).stw(6*ms, xtrace.EventRangeEnd).other(10 * ms).phases()
	want := map[time.Duration]float64{
		time.Millisecond: 0, 2 * time.Millisecond: 0, 5 * time.Millisecond: 0.6,
		10 * time.Millisecond: 0.8, time.Second: 0.8, // longer than the trace: the whole trace's mean
		0: 0,
	}
	checkMMU(t, "stw", p, UtilDefault, want)
	checkMMU(t, "stw per P", p, UtilDefault|UtilPerProc, want)
	checkMMU(t, "assists only", p, UtilAssist, map[time.Duration]float64{time.Millisecond: 1, 10 * time.Millisecond: 1})
	ww := p.WorstWindows(UtilSTW, time.Millisecond, 3)
	if len(ww) != 3 || ww[0].Util != 0 || ww[1].Util != 0 || ww[0].Window != time.Millisecond {
		t.Fatalf("worst 1 ms windows %v: want two inside the pause first", ww)
	}
	for _, w := range ww[:2] {
		if w.Start < time.Duration(1000+4*ms) || w.Start > time.Duration(1000+5*ms) {
			t.Errorf("worst window %v: want it inside the pause at 4-6 ms (+1000 ns on the child's clock)", w)
		}
	}
	if d := ww[1].Start - ww[0].Start; d < time.Millisecond && d > -time.Millisecond {
		t.Errorf("worst windows %v overlap", ww)
	}
	if ww[2].Util <= 0 || ww[2].Util > 1 {
		t.Errorf("third worst window %v: want one reaching out of the pause", ww[2])
	}
	if got := p.WorstWindows(UtilSTW, time.Second, 3); len(got) != 1 || got[0].Window != 10*time.Millisecond || !near(got[0].Util, 0.8) {
		t.Errorf("a window longer than the trace: %v, want the whole trace once", got)
	}
	if p.WorstWindows(UtilSTW, 0, 3) != nil || p.WorstWindows(UtilSTW, time.Millisecond, 0) != nil {
		t.Error("worst windows of no length, or none asked: want nil")
	}
}

// A fractional background worker on one of 4 Ps for 2 ms, then a
// dedicated one, which the per-P view leaves out (it holds up no
// goroutine of its own P).
func TestMMUBackgroundWorker(t *testing.T) {
	tl := &timeline{t: t}
	tl.sync(0, 1).procs(0, 4)
	tl.gostate(2*ms, 9, 0, xtrace.GoRunnable, xtrace.GoRunning).label(2*ms, 9, 0, "GC (fractional)")
	tl.gostate(4*ms, 9, 0, xtrace.GoRunning, xtrace.GoWaiting)
	tl.gostate(20*ms, 10, 1, xtrace.GoRunnable, xtrace.GoRunning).label(20*ms, 10, 1, "GC (dedicated)")
	tl.gostate(24*ms, 10, 1, xtrace.GoRunning, xtrace.GoWaiting)
	p := tl.other(40 * ms).phases()
	checkMMU(t, "program", p, UtilDefault, map[time.Duration]float64{
		time.Millisecond: 0.75, 4 * time.Millisecond: 0.75, 8 * time.Millisecond: 0.875,
		40 * time.Millisecond: 1 - 0.25*6/40.0,
	})
	checkMMU(t, "per P", p, UtilDefault|UtilPerProc, map[time.Duration]float64{
		time.Millisecond: 0, 2 * time.Millisecond: 0, 4 * time.Millisecond: 0.5,
	})
	checkMMU(t, "pauses only", p, UtilSTW, map[time.Duration]float64{time.Millisecond: 1})
	checkMMU(t, "idle worker", (&timeline{t: t}).procs(0, 2).label(ms, 3, 0, "GC (idle)").other(2*ms).phases(),
		UtilDefault, map[time.Duration]float64{time.Millisecond: 1})
}

// An assist on one of 4 Ps that is descheduled halfway and resumes on
// another P; only the assist selection counts it, the pause beside it
// counts only when selected.
func TestMMUAssistOnly(t *testing.T) {
	tl := &timeline{t: t}
	tl.sync(0, 1).procs(0, 4)
	tl.gostate(0, 5, 1, xtrace.GoRunnable, xtrace.GoRunning)
	tl.assist(1*ms, xtrace.EventRangeBegin, 5, 1)
	tl.gostate(2*ms, 5, 1, xtrace.GoRunning, xtrace.GoRunnable)
	tl.gostate(2500*1000, 5, 2, xtrace.GoRunnable, xtrace.GoRunning)
	tl.assist(3*ms, xtrace.EventRangeEnd, 5, 2)
	tl.stw(6*ms, xtrace.EventRangeBegin).stw(7*ms, xtrace.EventRangeEnd)
	p := tl.other(10 * ms).phases()
	checkMMU(t, "assists", p, UtilAssist, map[time.Duration]float64{
		time.Millisecond: 0.75, 2 * time.Millisecond: 1 - 0.25*1.5/2, 10 * time.Millisecond: 1 - 0.25*1.5/10,
	})
	checkMMU(t, "assists and pauses", p, UtilAssist|UtilSTW, map[time.Duration]float64{
		time.Millisecond: 0, 10 * time.Millisecond: 1 - (0.25*1.5+1)/10,
	})
	checkMMU(t, "assists per P", p, UtilAssist|UtilPerProc, map[time.Duration]float64{
		time.Millisecond: 0, 2 * time.Millisecond: 0.5,
	})
	checkMMU(t, "background only", p, UtilBackground, map[time.Duration]float64{time.Millisecond: 1})
}

// Sweeping counts only when selected.
func TestMMUSweep(t *testing.T) {
	tl := &timeline{t: t}
	p := tl.procs(0, 2).sweep(ms, xtrace.EventRangeBegin, 0).sweep(2*ms, xtrace.EventRangeEnd, 0).other(4 * ms).phases()
	checkMMU(t, "default", p, UtilDefault, map[time.Duration]float64{time.Millisecond: 1})
	checkMMU(t, "sweep", p, UtilDefault|UtilSweep, map[time.Duration]float64{time.Millisecond: 0.5, 4 * time.Millisecond: 1 - 0.5/4})
}

// An assist already running when the trace starts (first generation)
// was running since the start; in a later generation the same report is
// old news.
func TestMMUActiveAtStart(t *testing.T) {
	tl := &timeline{t: t}
	tl.sync(0, 1).procs(0, 4).gostate(0, 5, 1, xtrace.GoRunning, xtrace.GoRunning)
	p := tl.assist(5*ms, xtrace.EventRangeActive, 5, 1).assist(8*ms, xtrace.EventRangeEnd, 5, 1).other(10 * ms).phases()
	checkMMU(t, "first generation", p, UtilAssist, map[time.Duration]float64{
		time.Millisecond: 0.75, 10 * time.Millisecond: 1 - 0.25*8/10,
	})
	tl = &timeline{t: t}
	tl.sync(0, 1).procs(0, 4).assist(3*ms, xtrace.EventRangeBegin, 5, 1).sync(4*ms, 2)
	p = tl.assist(5*ms, xtrace.EventRangeActive, 5, 1).assist(8*ms, xtrace.EventRangeEnd, 5, 1).other(10 * ms).phases()
	checkMMU(t, "later generation", p, UtilAssist, map[time.Duration]float64{
		time.Millisecond: 0.75, 10 * time.Millisecond: 1 - 0.25*5/10, // open since its begin at 3 ms, not since the start
	})
}

// Collector work that starts and stops at one instant still marks that
// instant's utilization until the next event: the lowest value at a time
// wins.
func TestMMUInstant(t *testing.T) {
	tl := &timeline{t: t}
	tl.procs(0, 4).assist(5*ms, xtrace.EventRangeBegin, 5, 1).assist(5*ms, xtrace.EventRangeEnd, 5, 1)
	p := tl.other(5 * ms).other(6 * ms).other(7 * ms).other(10 * ms).phases()
	checkMMU(t, "instant", p, UtilAssist, map[time.Duration]float64{time.Millisecond: 0.75, 2 * time.Millisecond: 1 - 0.25/2})
}

func TestMMUNoData(t *testing.T) {
	if got := (&Phases{}).MMU(UtilDefault, DefaultMMUWindows); got != nil {
		t.Errorf("no trace: MMU %v, want nil", got)
	}
	var nilp *Phases
	if got := nilp.WorstWindows(UtilDefault, time.Millisecond, 3); got != nil {
		t.Errorf("nil phases: %v", got)
	}
	if got := (&timeline{t: t}).other(ms).other(2*ms).phases().MMU(UtilDefault, DefaultMMUWindows); got != nil {
		t.Errorf("no GOMAXPROCS: MMU %v, want nil", got)
	}
	// A damaged trace: an absurd GOMAXPROCS, a P it never announced.
	if got := (&timeline{t: t}).procs(0, maxUtilProcs+5).other(ms).phases().MMU(UtilDefault, DefaultMMUWindows); got != nil {
		t.Errorf("GOMAXPROCS past the limit: MMU %v, want nil", got)
	}
	// Past the log's limit the MMU is unknown, not the MMU of a part.
	tl := &timeline{t: t}
	tl.procs(0, 2).stw(ms, xtrace.EventRangeBegin).stw(2*ms, xtrace.EventRangeEnd).other(3 * ms)
	if got := tl.phasesUpTo(3).MMU(UtilSTW, DefaultMMUWindows); len(got) == 0 {
		t.Errorf("within the limit: MMU %v", got)
	}
	if got := tl.phasesUpTo(2).MMU(UtilSTW, DefaultMMUWindows); got != nil {
		t.Errorf("past the limit: MMU %v, want nil", got)
	}
	tl = &timeline{t: t}
	p := tl.procs(0, 2).sweep(ms, xtrace.EventRangeBegin, 7).assist(ms, xtrace.EventRangeEnd, 3, -1).other(2 * ms).phases()
	checkMMU(t, "unknown P", p, UtilDefault|UtilSweep, map[time.Duration]float64{time.Millisecond: 1})
}

func TestDefaultMMUWindows(t *testing.T) {
	has := map[time.Duration]bool{}
	for i, w := range DefaultMMUWindows {
		has[w] = true
		if i > 0 && w <= DefaultMMUWindows[i-1] {
			t.Errorf("windows not increasing at %v", w)
		}
	}
	first, last := DefaultMMUWindows[0], DefaultMMUWindows[len(DefaultMMUWindows)-1]
	if !has[time.Millisecond] || !has[10*time.Millisecond] || !has[100*time.Millisecond] || first > 100*time.Microsecond || last < time.Second {
		t.Errorf("DefaultMMUWindows %v: want 100µs..1s with 1, 10 and 100 ms", DefaultMMUWindows)
	}
}

// The MMU of random step functions equals a brute force over every whole
// nanosecond start (changes and windows are whole nanoseconds, so the
// least window starts on one).
func TestMMUBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 2 + rng.IntN(12)
		s := []point{{0, 1}}
		for len(s) < n {
			s = append(s, point{s[len(s)-1].t + 1 + rng.Int64N(20), float64(rng.IntN(5)) / 4})
		}
		c := newCurve(s)
		end := s[len(s)-1].t
		at := func(x int64) float64 { // utilization during [x, x+1)
			u := 0.0
			for _, p := range s {
				if p.t <= x {
					u = p.u
				}
			}
			return u
		}
		for w := int64(1); w <= end+3; w += 1 + rng.Int64N(4) {
			ew := min(w, end)
			want := math.Inf(1)
			for x := int64(0); x+ew <= end; x++ {
				sum := 0.0
				for y := x; y < x+ew; y++ {
					sum += at(y)
				}
				want = min(want, sum/float64(ew))
			}
			got := 1.0
			c.each(time.Duration(w), func(_ int64, _ time.Duration, mu float64) bool { got = min(got, mu); return true })
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("curve %v window %d: MMU %v, brute force %v", s, w, got, want)
			}
		}
	}
}

// A mark worker runs three times: fractional, fractional again, then
// idle. Each run counts once while it runs, the idle one not at all. go
// tool trace's accounting (UtilGoTool) counts the second start twice
// and never takes it back, so that P stays the collector's to the end.
func TestMMUWorkerRestarts(t *testing.T) {
	tl := &timeline{t: t}
	tl.sync(0, 1).procs(0, 4)
	tl.gostate(2*ms, 9, 0, xtrace.GoRunnable, xtrace.GoRunning).label(2*ms, 9, 0, "GC (fractional)")
	tl.gostate(3*ms, 9, 0, xtrace.GoRunning, xtrace.GoWaiting)
	tl.gostate(5*ms, 9, 1, xtrace.GoRunnable, xtrace.GoRunning).label(5*ms, 9, 1, "GC (fractional)")
	tl.gostate(6*ms, 9, 1, xtrace.GoRunning, xtrace.GoWaiting)
	tl.gostate(8*ms, 9, 2, xtrace.GoRunnable, xtrace.GoRunning).label(8*ms, 9, 2, "GC (idle)")
	tl.gostate(9*ms, 9, 2, xtrace.GoRunning, xtrace.GoWaiting)
	p := tl.other(20 * ms).phases()
	checkOne(t, "exact", p, UtilBackground, map[time.Duration]float64{
		time.Millisecond: 0.75, 4 * time.Millisecond: 1 - 0.25*2/4, 20 * time.Millisecond: 1 - 0.25*2/20,
	})
	checkOne(t, "go tool trace", p, UtilBackground|UtilGoTool, map[time.Duration]float64{
		time.Millisecond: 0.5, 20 * time.Millisecond: 1 - (0.25+0.25*15+0.25)/20,
	})
}

// A pause still open at the trace's end: the curve runs to the last
// event. go tool trace's stops where the pause starts, so its longer
// windows never see the pause.
func TestMMUOpenAtEnd(t *testing.T) {
	tl := &timeline{t: t}
	p := tl.procs(0, 4).stw(8*ms, xtrace.EventRangeBegin).other(9 * ms).other(10 * ms).phases()
	checkOne(t, "exact", p, UtilSTW, map[time.Duration]float64{
		2 * time.Millisecond: 0, 10 * time.Millisecond: 0.8, 20 * time.Millisecond: 0.8,
	})
	checkOne(t, "go tool trace", p, UtilSTW|UtilGoTool, map[time.Duration]float64{
		2 * time.Millisecond: 1, 10 * time.Millisecond: 1,
	})
}

// MMU and WorstWindows only read the parsed log: callers may share it.
func TestMMUConcurrent(t *testing.T) {
	tl := &timeline{t: t}
	p := tl.procs(0, 4).stw(4*ms, xtrace.EventRangeBegin).stw(6*ms, xtrace.EventRangeEnd).other(10 * ms).phases()
	done := make(chan []MMUPoint)
	for range 4 {
		go func() {
			_ = p.WorstWindows(UtilDefault, time.Millisecond, 3)
			done <- p.MMU(UtilDefault|UtilPerProc, DefaultMMUWindows)
		}()
	}
	for range 4 {
		if m := <-done; len(m) != len(DefaultMMUWindows) || !near(m[3].Util, 0) {
			t.Errorf("concurrent MMU %v", m)
		}
	}
}

// Odd logs (ends without begins, unknown Ps, GOMAXPROCS changing, records
// in any order of kind) never panic and give utilizations in [0, 1].
func TestMMURandomLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		l := &utilLog{slope: 1}
		var now int64
		for range 1 + rng.IntN(60) {
			now += rng.Int64N(3 * ms)
			r := utilRec{t: now, g: rng.Int64N(6) - 1, p: int32(rng.IntN(6) - 1), kind: recKind(rng.IntN(int(kLabel) + 1)), arg: uint8(rng.IntN(16))}
			if r.kind == kProcs {
				r.g = rng.Int64N(6)
			}
			if rng.IntN(3) == 0 {
				r.next = now + 1 + rng.Int64N(ms)
				now = r.next
			}
			l.recs = append(l.recs, r)
		}
		l.end = now + rng.Int64N(ms)
		p := &Phases{util: l}
		for f := range UtilFlags(64) {
			for _, m := range p.MMU(f, DefaultMMUWindows) {
				if !(m.Util >= 0 && m.Util <= 1) {
					t.Fatalf("log %+v flags %b: MMU %v", l.recs, f, m)
				}
			}
			for _, w := range p.WorstWindows(f, time.Millisecond, 3) {
				if !(w.Util >= 0 && w.Util <= 1) || w.Window <= 0 {
					t.Fatalf("log %+v flags %b: worst window %v", l.recs, f, w)
				}
			}
		}
	}
}
