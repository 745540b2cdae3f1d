package child

import (
	"os"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// AssistNanos is the mark-assist time op's own worker spent inside op's
// interval: the overlap of [op.Start, op.End) with the worker's assists.
func (p *Phases) AssistNanos(op Op) int64 {
	spans := p.Assist[op.Worker]
	end := max(op.End, op.Start+1)
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > op.Start })
	var n int64
	for ; i < len(spans) && spans[i].Start < end; i++ {
		n += min(spans[i].End, end) - max(spans[i].Start, op.Start)
	}
	return n
}

// AssistSplit is one operation kind's timed operations split by whether
// their goroutine did a mark assist during them: latency histograms
// (nanoseconds) of each side, the slowest 1% (at or above the p99 of all,
// and not the median's value, as Attribute's slow reads) and how many of
// them assisted, and the assist time summed over every op. A plain value.
type AssistSplit struct {
	Ops, WithAssist      int64
	Slow, SlowWithAssist int64
	AssistNs             int64
	With, Without        *hdrhistogram.Histogram
}

// SplitAssist splits ops by their own assists in p, recording latencies
// (End-Start) into histograms built by newHist.
func SplitAssist(p *Phases, ops []Op, newHist func() *hdrhistogram.Histogram) AssistSplit {
	s := AssistSplit{Ops: int64(len(ops)), With: newHist(), Without: newHist()}
	all := newHist()
	for _, op := range ops {
		_ = all.RecordValue(max(op.End-op.Start, 1))
	}
	slowNs, p50 := all.ValueAtQuantile(99), all.ValueAtQuantile(50)
	for _, op := range ops {
		lat := max(op.End-op.Start, 1)
		a := p.AssistNanos(op)
		s.AssistNs += a
		h := s.Without
		if a > 0 {
			s.WithAssist++
			h = s.With
		}
		_ = h.RecordValue(lat)
		if (lat >= slowNs || all.ValuesAreEquivalent(lat, slowNs)) && !all.ValuesAreEquivalent(lat, p50) {
			s.Slow++
			s.SlowWithAssist += b2i(a > 0)
		}
	}
	return s
}

// Written is the bytes the trace file holds so far (the tracer writes it
// as it goes), for a bound on its size; 0 when it cannot be read.
func (r *Recorder) Written() int64 {
	st, err := os.Stat(r.f.Name())
	if err != nil {
		return 0
	}
	return st.Size()
}
