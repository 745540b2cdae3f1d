// The GC trace ties a gcstress child's reads to the collector: from a
// runtime execution trace of the measured phase it takes the GC mark
// phases, the stop-the-world pauses and each reader goroutine's mark
// assists (Parse), and says of each read's interval (from its intended
// start to its end) which of them it overlapped (Phases.Classify).
//
// The overlap logic (Phases, Classify, Attribute) works on plain
// intervals on the child's own clock (nanoseconds since the load's
// start) and knows nothing of traces, so a test can check it against a
// synthetic timeline; Parse maps a trace onto that clock from the clock
// marks Recorder logs into it.
//
// The same scan also logs the events that move the mutator's share of the
// CPU (pauses, mark workers, assists, sweeps, GOMAXPROCS), so Phases.MMU
// and Phases.WorstWindows give the minimum mutator utilization for any
// selection of the collector's work, as go tool trace's MMU page does.
//
// Invariants:
//   - Spans of one kind are sorted and disjoint after Normalize (which
//     Parse calls); an interval that touches a span only at an end point
//     does not overlap it.
//   - A range already open when the trace starts begins at the trace's
//     first clock mark; one still open at the end ends at the last event.
//   - Parse never panics on a damaged trace: the parser's panic becomes
//     an error wrapping ErrTrace.
//   - The MMU follows go tool trace's rules (which work counts, per P or
//     for the program, a range open at the start, at one instant the
//     lowest value wins) with its defects fixed: each goroutine doing
//     collector work counts once, on the P it runs on, while it runs (go
//     tool trace counts a mark worker that starts again twice and never
//     takes it back, so its P stays the collector's to the end), a mark
//     worker's idle run never counts (go tool trace counts it once the
//     worker ran in another mode), and the curve runs to the trace's last
//     event. UtilGoTool restores go tool
//     trace's accounting, figure for figure, to check against it. A
//     window longer than the trace is the whole trace; the MMU is on the
//     trace's clock, WorstWindow.Start on the child's.
//   - The utilization log holds at most maxUtilRecs records and a
//     GOMAXPROCS of at most maxUtilProcs; past either, or without any
//     GOMAXPROCS in the trace, MMU and WorstWindows are nil (unknown),
//     never a figure from part of the trace.

package child

import (
	"slices"
	"sort"
)

// Span is an interval [Start, End) in nanoseconds on the child's clock.
type Span struct{ Start, End int64 }

// Phases is the collector's timeline over a measured phase: Mark is the
// mark phases with the GC pauses that bracket them (a read held up by the
// mark termination pause is a read held up by the mark), Pause the
// collector's stop-the-world pauses (not the tracer's or a profile's).
// Assist is
// keyed by the child's worker index (Recorder.Worker). A plain value;
// Classify is safe for concurrent use once Normalize ran.
type Phases struct {
	Mark   []Span
	Pause  []Span
	Assist map[int][]Span

	util *utilLog // the collector's share of the CPU, for MMU; nil unless parsed
}

// Normalize sorts and merges each kind's spans.
func (p *Phases) Normalize() {
	p.Mark = merge(p.Mark)
	p.Pause = merge(p.Pause)
	for w, s := range p.Assist {
		p.Assist[w] = merge(s)
	}
}

func merge(s []Span) []Span {
	slices.SortFunc(s, func(a, b Span) int { return cmpInt(a.Start, b.Start) })
	out := s[:0]
	for _, x := range s {
		if x.End <= x.Start {
			x.End = x.Start + 1 // an instant still counts for an interval around it
		}
		if n := len(out); n > 0 && x.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, x.End)
			continue
		}
		out = append(out, x)
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// overlaps reports whether [start, end) overlaps one of the sorted,
// disjoint spans.
func overlaps(spans []Span, start, end int64) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > start })
	return i < len(spans) && spans[i].Start < end
}

// Overlap says which collector work a read's interval overlapped.
type Overlap uint8

// Overlap bits.
const (
	InMark   Overlap = 1 << iota // a concurrent mark phase
	InPause                      // a stop-the-world pause
	InAssist                     // a mark assist on the read's own goroutine
)

// Op is one timed read: its interval on the child's clock (Start is the
// intended start) and the worker that ran it.
type Op struct {
	Start, End int64
	Worker     int
}

// Classify is which of the phases op's interval overlapped.
func (p *Phases) Classify(op Op) Overlap {
	end := max(op.End, op.Start+1)
	var o Overlap
	if overlaps(p.Mark, op.Start, end) {
		o |= InMark
	}
	if overlaps(p.Pause, op.Start, end) {
		o |= InPause
	}
	if overlaps(p.Assist[op.Worker], op.Start, end) {
		o |= InAssist
	}
	return o
}

// MarkNanos is the mark phases' total length within [from, to).
func (p *Phases) MarkNanos(from, to int64) int64 {
	var n int64
	for _, s := range p.Mark {
		if a, b := max(s.Start, from), min(s.End, to); b > a {
			n += b - a
		}
	}
	return n
}
