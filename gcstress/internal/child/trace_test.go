package child

import (
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// A run without a trace has no MMU and no assist figures (n/a), and says
// why; never zeros.
func TestNoTraceIsNA(t *testing.T) {
	for _, c := range []struct {
		spec results.Scenario
		want string
	}{
		{results.Scenario{Writers: 1, Mix: "b", Preload: 10}, "-read-trace off"},
		{results.Scenario{Writers: 1, NoTrace: true}, "-trace=false"},
		{results.Scenario{Writers: 1, Mix: "b", Preload: 10, ReadTrace: true, NoTrace: true}, "-trace=false"},
		{results.Scenario{Writers: 1, Profile: "trace"}, "-profile trace"},
	} {
		tr := StartOpTrace(c.spec, time.Now(), c.spec.Profile == "trace")
		tr.Keep(0, time.Now(), time.Now())
		tr.Stop()
		var e results.Sample
		ph, why := tr.End(&e, []Op{{Start: 0, End: 1}})
		if ph != nil || !strings.Contains(why, c.want) {
			t.Errorf("%+v: phases %v, why %q; want none, %q", c.spec, ph, why, c.want)
		}
		if e.MMU != nil || e.MMUWorst != nil || e.OpAssist != nil {
			t.Errorf("%+v: figures without a trace: %v %v %v", c.spec, e.MMU, e.MMUWorst, e.OpAssist)
		}
		if e.GCTrace == nil || e.GCTrace.Traced || e.GCTrace.Note == "" {
			t.Errorf("%+v: gc_trace %+v, want untraced with a note", c.spec, e.GCTrace)
		}
	}
	var nilTrace *Trace // the write-only loop before the load: every method a no-op
	nilTrace.Keep(0, time.Now(), time.Now())
	nilTrace.Stop()
}

// traced runs a traced phase in which worker 0 allocates and keeps timed
// writes (and reads), with collections forced, and returns the trace
// stopped. With a tiny maxBytes the phase runs on until the watcher
// stopped the trace, and 200 ops more.
func traced(t *testing.T, maxBytes int64, reads bool) (*Trace, results.Sample, []Op) {
	t.Helper()
	t0 := time.Now()
	tr := start(results.Scenario{Writers: 2}, t0, false, maxBytes, MaxSpan)
	if tr.rec == nil {
		t.Skipf("no trace: %s", tr.note)
	}
	var keep [][]byte
	done := make(chan []Op)
	go func() {
		Worker(0)
		var rs []Op
		after := 200
		for i := 0; i < 2000 || maxBytes < MaxBytes && after > 0 && time.Since(t0) < time.Minute; i++ {
			if !trace.IsEnabled() {
				after--
			}
			s := time.Now()
			keep = append(keep, make([]byte, 1024))
			if i%500 == 0 {
				runtime.GC()
			}
			e := time.Now()
			if i%2 == 0 {
				tr.Keep(0, s, e)
			} else {
				rs = append(rs, Op{Start: int64(s.Sub(t0)), End: int64(e.Sub(t0)), Worker: 0})
			}
		}
		done <- rs
	}()
	rs := <-done
	tr.Stop()
	var e results.Sample
	if !reads {
		rs = nil
	}
	if ph, why := tr.End(&e, rs); ph == nil {
		t.Fatalf("no timeline: %s", why)
	}
	return tr, e, rs
}

// A traced phase has its trace's record and the writes' attribution; reads
// get their own entry only when there are reads.
func TestTracedPhase(t *testing.T) {
	_, e, _ := traced(t, MaxBytes, false)
	g := e.GCTrace
	if g == nil || !g.Traced || g.Cycles == 0 || g.SpanNs <= 0 || g.Bytes <= 0 {
		t.Fatalf("gc_trace %+v: want traced, with cycles, a span and bytes", g)
	}
	if u, ok := results.MMUAt(e.MMU, int64(10*time.Millisecond)); !ok || u < 0 || u > 1 || len(e.MMU) != len(DefaultMMUWindows) {
		t.Errorf("mmu %+v: want every default window, 10 ms among them, utilizations in [0, 1]", e.MMU)
	}
	if len(e.MMUWorst) == 0 || e.MMUWorst[0].WindowNs <= 0 {
		t.Errorf("mmu_worst %+v: want the worst 10 ms windows", e.MMUWorst)
	}
	w, ok := e.OpAssist[results.AssistWrite]
	if !ok || w.Ops != 1000 {
		t.Fatalf("assist %+v: want 1000 writes", e.OpAssist)
	}
	if w.P99WithAssistNs == nil && w.P99WithoutAssistNs == nil {
		t.Errorf("write attribution %+v has no p99 on either side", w)
	}
	if _, ok := e.OpAssist[results.AssistRead]; ok {
		t.Errorf("a read entry without reads: %+v", e.OpAssist)
	}
	_, e, _ = traced(t, MaxBytes, true)
	if r, ok := e.OpAssist[results.AssistRead]; !ok || r.Ops != 1000 {
		t.Errorf("assist %+v: want 1000 reads beside the writes", e.OpAssist)
	}
}

// A trace past its size bound stops early, says so, and attributes only
// the ops that ended inside its span.
func TestSizeBound(t *testing.T) {
	tr, e, rs := traced(t, 1, true)
	if !strings.Contains(e.GCTrace.Note, "size bound") {
		t.Fatalf("gc_trace %+v: want stopped at its size bound", e.GCTrace)
	}
	in := tr.Within(rs)
	if len(in) == len(rs) {
		t.Skip("the phase ended before the watcher stopped the trace")
	}
	for _, op := range in {
		if op.End > e.GCTrace.SpanNs {
			t.Fatalf("op %+v ends past the span %d", op, e.GCTrace.SpanNs)
		}
	}
	if r := e.OpAssist[results.AssistRead]; r.Ops != int64(len(in)) {
		t.Errorf("%d reads attributed, want the %d inside the span", r.Ops, len(in))
	}
	if trace.IsEnabled() {
		t.Error("the trace still runs")
	}
}

// TestKeepIsUniform: once a worker's sample is full, later writes replace
// kept ones at random, so the sample spans the whole load, not its start;
// the count of writes not kept is exact; after the trace stopped nothing
// is offered.
func TestKeepIsUniform(t *testing.T) {
	tr := newTrace(results.Scenario{Writers: 1}, false, MaxBytes, MaxSpan)
	tr.writes[0] = make([]Op, 0, 200)
	t0 := time.Now()
	tr.t0 = t0
	const n = 20_000
	for i := range n {
		at := t0.Add(time.Duration(i))
		tr.Keep(0, at, at)
	}
	kept := tr.writes[0]
	if len(kept) != 200 || tr.drop[0] != n-200 {
		t.Fatalf("kept %d, dropped %d; want 200 and %d", len(kept), tr.drop[0], n-200)
	}
	var late int
	var sum int64
	for _, op := range kept {
		sum += op.Start
		if op.Start >= n/2 {
			late++
		}
	}
	if mean := sum / int64(len(kept)); mean < n/2-n/8 || mean > n/2+n/8 || late < 70 || late > 130 {
		t.Errorf("sample mean %d, %d of 200 from the second half: not uniform over 0..%d", mean, late, n)
	}
	tr.stopped.Store(true)
	tr.Keep(0, t0, t0)
	if tr.drop[0] != n-200 {
		t.Errorf("a write offered after the trace stopped was counted")
	}
}
