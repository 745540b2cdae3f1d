package child

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
)

// Window drains the workers' recorders into the window's per-operation
// figures (and the run's histograms).
func (mr *MixRun) Window(w *results.Sample) {
	if mr == nil {
		return
	}
	w.Ops = mr.drain(true)
}

// drain moves the workers' counts into the window histograms and the
// run's, and returns the window's ops (window) or the run's.
func (mr *MixRun) drain(window bool) map[string]results.OpLatency {
	out := map[string]results.OpLatency{}
	for _, op := range proto.Ops() {
		mr.wh[op].Reset()
		mr.wih[op].Reset()
		var count, miss int64
		for _, mw := range mr.workers {
			mw.pairs[op].DrainInto(mr.wh[op], mr.wih[op])
			count += mw.count[op].Load()
			miss += mw.miss[op].Load()
		}
		mr.rh[op].Merge(mr.wh[op])
		mr.rih[op].Merge(mr.wih[op])
		h, ih, c, m := mr.rh[op], mr.rih[op], count, miss
		if window {
			h, ih, c, m = mr.wh[op], mr.wih[op], count-mr.lastCount[op], miss-mr.lastMiss[op]
			mr.lastCount[op], mr.lastMiss[op] = count, miss
		}
		if c == 0 && ih.TotalCount() == 0 {
			continue
		}
		out[op.String()] = opLatency(h, ih, c, m)
	}
	return out
}

func opLatency(h, ih *hdrhistogram.Histogram, count, miss int64) results.OpLatency {
	o := results.OpLatency{N: ih.TotalCount(), Count: count, Misses: miss}
	if o.N > 0 {
		o.ILatP50, o.ILatP99, o.ILatP999, o.ILatMax = ih.ValueAtQuantile(50), ih.ValueAtQuantile(99), ih.ValueAtQuantile(99.9), ih.Max()
		o.LatP99 = h.ValueAtQuantile(99)
	}
	return o
}

// End fills the end record: the run's per-operation figures, the preload
// phase, and the reads' attribution to the collector (parsing the trace,
// after the run's figures were taken).
func (mr *MixRun) End(e *results.Sample) {
	if mr == nil {
		return
	}
	e.Ops = mr.drain(false)
	p := mr.preload
	e.Preload = &p
	mr.attribute(e)
}

// attribute ties the kept reads to the trace's phases (and has the trace
// fill the end line's MMU and assist figures).
func (mr *MixRun) attribute(e *results.Sample) {
	ra := &results.ReadAttribution{Source: results.AttributionOff}
	e.ReadAttribution = ra
	var ops []Op
	for _, mw := range mr.workers {
		ops = append(ops, mw.reads...)
		ra.Dropped += mw.drop
	}
	ph, why := mr.tr.End(e, ops)
	in := mr.tr.Within(ops)
	ra.Reads, ra.Dropped = int64(len(in)), ra.Dropped+int64(len(ops)-len(in))
	ops = in
	if info := mr.tr.Info(); info != nil {
		ra.ParseSeconds, ra.TraceBytes, ra.TraceEvents = info.ParseSeconds, info.Bytes, info.Events
	}
	if ph == nil {
		ra.Note = why
		return
	}
	a := Attribute(ph, ops, func() *hdrhistogram.Histogram { return latency.NewHistogramUpTo(opLatMax) })
	ra.Source, ra.SlowNs, ra.Cycles = results.AttributionTrace, a.SlowNs, len(ph.Mark)
	ra.SlowInMarkPct, ra.SlowInPausePct = Pct(a.SlowInMark, a.Slow), Pct(a.SlowInPause, a.Slow)
	ra.SlowInAssistPct, ra.AllInMarkPct = Pct(a.SlowInAssist, a.Slow), Pct(a.AllInMark, a.Reads)
	if el := int64(e.T * 1e9); el > 0 {
		ra.MarkPct = Pct(ph.MarkNanos(0, el), el)
	}
	e.ReadInMark, e.ReadOutsideMark = readLatency(a.InMark), readLatency(a.Outside)
	if a.Tested {
		t := a.Test
		ra.Test = &results.MarkTest{P50P: t.P50P, P99P: t.P99P, P99Ns: t.P99Ns, AboveP99In: t.AboveIn, AboveP99Out: t.AboveOut}
	}
	if len(ph.Mark) == 0 {
		return // no collection to overlap: a share of slow reads in GC would be a vacuous 0%
	}
	pct := Pct(a.SlowInGC, a.Slow)
	e.SlowReadsInGCPct = &pct
}

func readLatency(h *hdrhistogram.Histogram) *results.ReadLatency {
	r := &results.ReadLatency{N: h.TotalCount()}
	if r.N > 0 {
		r.ILatP50, r.ILatP99, r.ILatP999 = h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9)
	}
	return r
}
