package latency

import (
	"testing"
	"time"
)

// TestPairClampsAndDrains: a Pair counts a value above its max as max,
// never records an intended latency below the service time, and is empty
// after DrainInto.
func TestPairClampsAndDrains(t *testing.T) {
	max := int64(time.Second)
	p := NewPair(max)
	p.Record(int64(time.Millisecond), -1)   // closed loop: no intended latency
	p.Record(int64(time.Millisecond), 10)   // intended below service: counts as service
	p.Record(10*int64(time.Second), 20*max) // above the range: max
	dst, idst := NewHistogramUpTo(max), NewHistogramUpTo(max)
	p.DrainInto(dst, idst)
	if dst.TotalCount() != 3 || idst.TotalCount() != 2 {
		t.Fatalf("counts %d %d, want 3 2", dst.TotalCount(), idst.TotalCount())
	}
	if got := idst.Min(); got < int64(time.Millisecond)*999/1000 {
		t.Errorf("intended min %d below the service time", got)
	}
	if dst.Max() < max*999/1000 || dst.Max() > max*1001/1000 {
		t.Errorf("max %d, want about %d", dst.Max(), max)
	}
	again, iagain := NewHistogramUpTo(max), NewHistogramUpTo(max)
	p.DrainInto(again, iagain)
	if again.TotalCount() != 0 || iagain.TotalCount() != 0 {
		t.Error("a drained Pair still holds counts")
	}
}
