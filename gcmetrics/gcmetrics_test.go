package gcmetrics

import (
	"runtime"
	"testing"
)

var sink [][]byte

func TestDeltaSeesCycles(t *testing.T) {
	r := NewReader()
	a := r.Read()
	for range 4 {
		for range 1000 {
			sink = append(sink, make([]byte, 1024))
		}
		runtime.GC()
	}
	sink = nil
	b := r.Read()
	d := Sub(a, b)
	if d.Cycles < 4 {
		t.Fatalf("cycles = %d, want >= 4", d.Cycles)
	}
	if d.Pauses.Count() == 0 || d.Pauses.Quantile(0.99) <= 0 {
		t.Fatalf("no pauses recorded: %+v", d.Pauses)
	}
	if d.CPUUsed <= 0 || d.GCCPU <= 0 {
		t.Fatalf("no CPU recorded: %+v", d)
	}
	if p := d.GCCPUPercent(); p <= 0 || p > 100 {
		t.Fatalf("GC CPU %% = %v", p)
	}
	if d.AllocObjs < 4000 {
		t.Fatalf("allocated objects %d < 4000", d.AllocObjs)
	}
}

func TestQuantile(t *testing.T) {
	h := Histogram{Buckets: []float64{0, 1, 2, 3}, Counts: []uint64{1, 0, 9}}
	if q := h.Quantile(0.5); q != 3 {
		t.Errorf("p50 = %v, want 3", q)
	}
	if q := h.Quantile(0.05); q != 1 {
		t.Errorf("p5 = %v, want 1", q)
	}
	if m := h.Max(); m != 3 {
		t.Errorf("max = %v", m)
	}
	if (Histogram{}).Quantile(0.5) != 0 {
		t.Error("empty histogram quantile != 0")
	}
}

func TestCPUAddAndCounted(t *testing.T) {
	a := CPU{CPUUsed: 4, GCCPU: 1, Assist: 0.5, IdleMark: 2, Cycles: 1}
	b := CPU{CPUUsed: 12, GCCPU: 1, Assist: 0.5, Cycles: 2}
	s := a.Add(b)
	if s.GCCPUPercent() != 12.5 || s.AssistPercent() != 6.25 || s.Cycles != 3 || s.IdleMark != 2 {
		t.Fatalf("sum %+v: gc %v%%, assist %v%%", s, s.GCCPUPercent(), s.AssistPercent())
	}
	if (CPU{}).Counted() || (CPU{}).GCCPUPercent() != 0 || !s.Counted() {
		t.Fatal("Counted or the zero share is wrong")
	}
	// Idle-priority marking is left out of GC CPU, kept in CPU used.
	d := CPUBetween(Snapshot{}, Snapshot{CPUTotal: 10, CPUIdle: 2, GCTotal: 4, GCIdle: 2})
	if d.CPUUsed != 8 || d.GCCPU != 2 || d.IdleMark != 2 || d.GCCPUPercent() != 25 {
		t.Fatalf("CPUBetween = %+v", d)
	}
}

// liveNode is a pointerful object: the runtime's tiny allocator packs
// pointer-free objects under 16 bytes into one, pointerful ones it does not.
//
//lint:ignore U1000 next gives the object a pointer; it is never followed
type liveNode struct {
	next *liveNode
	v    int
}

// liveSink keeps the test's objects reachable across runtime.GC.
var liveSink [][]*liveNode

// TestLiveObjectsCountsHeldObjects: 100K small pointerful objects held across
// a GC raise LiveObjects by about that many (90% at least: a few objects
// of the test's own may die in between), and dropping them lowers it
// again after the next GC.
func TestLiveObjectsCountsHeldObjects(t *testing.T) {
	const n = 100_000
	runtime.GC()
	before := Read().LiveObjects
	held := make([]*liveNode, n)
	for i := range held {
		held[i] = &liveNode{v: i}
	}
	liveSink = append(liveSink, held)
	defer func() { liveSink = nil }()
	runtime.GC()
	with := Read().LiveObjects
	if with < before+n*9/10 {
		t.Fatalf("LiveObjects %d with %d objects held, %d before", with, n, before)
	}
	liveSink = nil
	runtime.GC()
	if after := Read().LiveObjects; after > with-n/2 {
		t.Fatalf("LiveObjects %d after dropping %d objects (%d while held)", after, n, with)
	}
}

// TestReadIntoSubIntoAllocateNothing: a sampler that keeps two Snapshots
// and one Delta reads and subtracts without allocating once warm.
func TestReadIntoSubIntoAllocateNothing(t *testing.T) {
	r := NewReader()
	var a, b Snapshot
	var d Delta
	r.ReadInto(&a)
	r.ReadInto(&b)
	SubInto(a, b, &d)
	allocs := testing.AllocsPerRun(100, func() {
		r.ReadInto(&b)
		SubInto(a, b, &d)
		a, b = b, a
	})
	if allocs != 0 {
		t.Fatalf("ReadInto+SubInto: %v allocations per call, want 0", allocs)
	}
	if want := Sub(a, b); want.Pauses.Count() != func() uint64 { SubInto(a, b, &d); return d.Pauses.Count() }() {
		t.Fatalf("SubInto pauses differ from Sub's")
	}
}
