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
