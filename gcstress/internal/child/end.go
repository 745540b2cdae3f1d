package child

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
)

// opLatMax is the histograms' range, as the Puts': 1 ns to 100 s.
const opLatMax = 100 * int64(time.Second)

// End parses the stopped trace and fills e's MMU, worst windows, assist
// attribution (the kept writes, and reads, the mix's timed reads; none:
// no "read" entry) and gc_trace. It returns the parsed timeline for the
// mix's read attribution, or nil (and the reason) without one.
func (t *Trace) End(e *results.Sample, reads []Op) (*Phases, string) {
	if t == nil {
		return nil, "no trace"
	}
	info := &results.GCTrace{Note: t.note}
	e.GCTrace, t.info = info, info
	for _, d := range t.drop {
		info.Dropped += d
	}
	if t.rec == nil {
		return nil, t.note
	}
	t0 := time.Now()
	ph, events, err := t.rec.Parse()
	info.ParseSeconds, info.Bytes, info.Events = time.Since(t0).Seconds(), t.rec.Bytes(), events
	if err != nil {
		info.Note = err.Error()
		return nil, info.Note
	}
	info.Traced, info.SpanNs, info.Cycles = true, t.stopNs, len(ph.Mark)
	if t.bound != "" {
		info.Note = "stopped early at its " + t.bound + ": the load's first " + time.Duration(t.stopNs).Round(time.Millisecond).String() + " traced"
	}
	fillMMU(e, ph)
	var writes []Op
	for _, ws := range t.writes {
		writes = append(writes, ws...)
	}
	e.OpAssist = map[string]results.OpAssist{}
	if a, ok := t.assist(ph, writes); ok {
		e.OpAssist[results.AssistWrite] = a
	}
	if a, ok := t.assist(ph, reads); ok {
		e.OpAssist[results.AssistRead] = a
	}
	return ph, ""
}

// Info is the trace's record once End ran (nil before).
func (t *Trace) Info() *results.GCTrace {
	if t == nil {
		return nil
	}
	return t.info
}

// assist is the attribution of the ops that ended inside the traced span;
// false when none did.
func (t *Trace) assist(ph *Phases, ops []Op) (results.OpAssist, bool) {
	in := t.Within(ops)
	if len(in) == 0 {
		return results.OpAssist{}, false
	}
	s := SplitAssist(ph, in, func() *hdrhistogram.Histogram { return latency.NewHistogramUpTo(opLatMax) })
	return OpAssist(s), true
}

// Within is the ops that ended inside the traced span (all of them
// without a trace, which attributes none).
func (t *Trace) Within(ops []Op) []Op {
	if t == nil || t.info == nil || !t.info.Traced {
		return ops
	}
	in := make([]Op, 0, len(ops))
	for _, op := range ops {
		if op.End <= t.stopNs {
			in = append(in, op)
		}
	}
	return in
}

// OpAssist is a split's figures as summary.json has them.
func OpAssist(s AssistSplit) results.OpAssist {
	a := results.OpAssist{Ops: s.Ops, Slowest: s.Slow, OpsWithAssistPct: Pct(s.WithAssist, s.Ops)}
	if s.Ops > 0 {
		a.AssistNsPerOp = float64(s.AssistNs) / float64(s.Ops)
	}
	if s.Slow > 0 {
		p := Pct(s.SlowWithAssist, s.Slow)
		a.SlowestPctWithAssistPct = &p
	}
	if s.With.TotalCount() > 0 {
		v := s.With.ValueAtQuantile(99)
		a.P99WithAssistNs = &v
	}
	if s.Without.TotalCount() > 0 {
		v := s.Without.ValueAtQuantile(99)
		a.P99WithoutAssistNs = &v
	}
	return a
}
