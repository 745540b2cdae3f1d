package child

import "testing"

// Per-op assist time on a synthetic timeline: worker 1 assists in
// [150, 160) and [300, 340); only worker 1's ops overlap them.
func TestAssistNanos(t *testing.T) {
	p := &Phases{Assist: map[int][]Span{1: {{300, 340}, {150, 160}}}}
	p.Normalize()
	for _, c := range []struct {
		op   Op
		want int64
	}{
		{Op{0, 150, 1}, 0},    // ends where the assist starts
		{Op{155, 158, 1}, 3},  // inside one
		{Op{100, 400, 1}, 50}, // both, whole
		{Op{159, 310, 1}, 11}, // the end of one, the start of the other
		{Op{100, 400, 2}, 0},  // another worker
		{Op{320, 320, 1}, 1},  // an instant inside
	} {
		if got := p.AssistNanos(c.op); got != c.want {
			t.Errorf("AssistNanos(%+v) = %d, want %d", c.op, got, c.want)
		}
	}
}

// 1000 writes of 1 µs, one in 100 of 1 ms; half of those (worker 1's)
// assisted for 2 µs: the slowest 1% are the ten slow ones, five assisted.
func TestSplitAssist(t *testing.T) {
	p := &Phases{Assist: map[int][]Span{}}
	var ops []Op
	for i := range int64(1000) {
		start := i * 10_000
		op := Op{Start: start, End: start + 1000, Worker: 0}
		if i%100 == 0 {
			op.End = start + 1_000_000
			if i%200 == 0 {
				op.Worker = 1
				p.Assist[1] = append(p.Assist[1], Span{start + 10, start + 2010})
			}
		}
		ops = append(ops, op)
	}
	p.Normalize()
	s := SplitAssist(p, ops, newHist)
	if s.Ops != 1000 || s.WithAssist != 5 || s.AssistNs != 5*2000 {
		t.Fatalf("ops %d, with assist %d, assist ns %d; want 1000, 5, 10000", s.Ops, s.WithAssist, s.AssistNs)
	}
	if s.Slow != 10 || s.SlowWithAssist != 5 {
		t.Errorf("slow %d with assist %d, want 10 and 5", s.Slow, s.SlowWithAssist)
	}
	if s.With.TotalCount() != 5 || s.Without.TotalCount() != 995 {
		t.Errorf("histograms hold %d and %d, want 5 and 995", s.With.TotalCount(), s.Without.TotalCount())
	}
	if got := s.With.ValueAtQuantile(50); got < 990_000 {
		t.Errorf("with-assist p50 %d, want about 1 ms", got)
	}
	if got := s.Without.ValueAtQuantile(50); got > 1100 {
		t.Errorf("without-assist p50 %d, want about 1 µs", got)
	}
}
