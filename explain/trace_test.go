package explain

import (
	"math"
	"testing"
	"time"

	"golang.org/x/exp/trace"
)

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

// TestOpStats ties slow operations to mark phases, GC pauses, other pauses
// and assists on a hand-made timeline.
func TestOpStats(t *testing.T) {
	marks := []Span{{ms(10), ms(10)}, {ms(50), ms(10)}}
	gcPauses := []Pause{{Span{ms(9), ms(1)}, "GC sweep termination"}, {Span{ms(20), ms(1)}, "GC mark termination"}}
	other := []Pause{{Span{ms(80), ms(1)}, "goroutine profile"}}
	g := trace.GoID(7)
	assists := map[trace.GoID][]Span{g: {{ms(55), ms(1)}}}
	var ops []opSpan
	// 96 fast ops outside GC, 4 fast inside a mark phase.
	for i := 0; i < 96; i++ {
		ops = append(ops, opSpan{Span{ms(30) + time.Duration(i)*time.Microsecond, time.Microsecond}, g})
	}
	for i := 0; i < 4; i++ {
		ops = append(ops, opSpan{Span{ms(12), time.Microsecond}, g})
	}
	// Slow ops: one in mark with an assist, one across a GC pause, one
	// across the other pause, one clear of everything.
	ops = append(ops,
		opSpan{Span{ms(54), ms(3)}, g},
		opSpan{Span{ms(20.5), ms(2)}, 3},
		opSpan{Span{ms(79), ms(3)}, 3},
		opSpan{Span{ms(90), ms(2)}, 3},
	)
	// Default threshold: p99 by nearest rank is the 103rd of 104 values.
	if st := opStats("put", ops, marks, gcPauses, other, assists, 0); st.P99 != ms(3) || st.Threshold != ms(3) || st.Slow != 0 || st.P50 != time.Microsecond {
		t.Errorf("p99 threshold: %+v", st)
	}
	st := opStats("put", ops, marks, gcPauses, other, assists, ms(1))
	if st.Count != 104 || st.Slow != 4 {
		t.Fatalf("count %d threshold %v slow %d", st.Count, st.Threshold, st.Slow)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"SlowInMark", st.SlowInMark, 0.25},
		{"SlowInPause", st.SlowInPause, 0.25},
		{"SlowInGC", st.SlowInGC, 0.5},
		{"SlowInOtherPause", st.SlowInOtherPause, 0.25},
		{"SlowAssisted", st.SlowAssisted, 0.25},
		{"AllInGC", st.AllInGC, 6.0 / 104},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.4f, want %.4f", c.name, c.got, c.want)
		}
	}
	if !st.TiedToGC {
		t.Error("not tied to GC")
	}
	// A fixed threshold above every op: nothing slow.
	if st := opStats("put", ops, marks, gcPauses, other, assists, time.Second); st.Slow != 0 || st.TiedToGC {
		t.Errorf("fixed threshold: %+v", st)
	}
}

func TestNearestCycle(t *testing.T) {
	cycles := []GCCycle{{Mark: Span{ms(1), ms(1)}}, {Mark: Span{ms(4), ms(1)}}}
	for _, c := range []struct {
		p    Pause
		want int
	}{
		{Pause{Span{ms(3.5), ms(0.4)}, "GC sweep termination"}, 1},
		{Pause{Span{ms(2.1), ms(0.1)}, "GC mark termination"}, 0},
		{Pause{Span{ms(2.1), ms(0.1)}, "goroutine profile"}, -1},
		{Pause{Span{ms(100), ms(0.1)}, "GC mark termination"}, -1},
	} {
		if got := nearestCycle(cycles, c.p); got != c.want {
			t.Errorf("%+v -> %d, want %d", c.p, got, c.want)
		}
	}
}
