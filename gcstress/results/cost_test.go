package results

import (
	"math"
	"testing"
)

// TestNewCostScalesPTimeToCPU: GC and assist come as the runtime's P-time,
// which a busy machine inflates (a P keeps counting while its thread waits
// for a CPU); they are scaled by process CPU over non-idle P-time, never
// up, so that GC CPU per GB cannot exceed the process's CPU per GB.
func TestNewCostScalesPTimeToCPU(t *testing.T) {
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	// Quiet: P-time and CPU agree; the runtime's figures stand.
	q := NewCost(1e6, 1e9, 0.3, 0.01, 1.0, 1.0)
	if !near(q.GCCPUSPerGB, 0.3) || !near(q.AssistCPUSPerGB, 0.01) || !near(q.CPUSPerGB, 1) || !near(q.OnCPU, 1) || !near(q.GCCPUNsPerPut, 300) {
		t.Errorf("quiet: %+v", q)
	}
	// Busy: the same work, every P-time figure 1.5x (the threads ran 2/3 of
	// the time they held a P); CPU time unchanged.
	b := NewCost(1e6, 1e9, 0.45, 0.015, 1.0, 1.5)
	if !near(b.GCCPUSPerGB, q.GCCPUSPerGB) || !near(b.AssistCPUSPerGB, q.AssistCPUSPerGB) || !near(b.GCCPUNsPerPut, q.GCCPUNsPerPut) || !near(b.OnCPU, 2.0/3) {
		t.Errorf("busy: %+v, want the quiet figures %+v", b, q)
	}
	// More CPU than P-time (threads without a P: sysmon, the harness's own
	// syscalls): never scaled up.
	if u := NewCost(1e6, 1e9, 0.3, 0, 1.2, 1.0); !near(u.GCCPUSPerGB, 0.3) || u.OnCPU != 1 {
		t.Errorf("proc > P-time: %+v", u)
	}
	// No P-time known: unscaled, OnCPU 0 (omitted from JSON).
	if n := NewCost(1e6, 1e9, 0.3, 0, 1, 0); !near(n.GCCPUSPerGB, 0.3) || n.OnCPU != 0 {
		t.Errorf("no P-time: %+v", n)
	}
	if z := NewCost(0, 0, 0.3, 0, 1, 1); z.GCCPUNsPerPut != 0 || z.CPUSPerGB != 0 {
		t.Errorf("no puts: %+v", z)
	}
}

// TestCostAllocsAndCycles: allocations per Put and GC cycles per GB divide
// by the Puts and the bytes; nothing written leaves them 0.
func TestCostAllocsAndCycles(t *testing.T) {
	c := Cost{}.WithAllocs(1000, 64_000, 3_000).WithCycles(12, 2e9)
	if c.AllocBytesPerPut != 64 || c.AllocObjectsPerPut != 3 || c.CyclesPerGB != 6 {
		t.Errorf("got %+v", c)
	}
	if z := (Cost{}).WithAllocs(0, 1, 1).WithCycles(3, 0); z != (Cost{}) {
		t.Errorf("nothing written: %+v", z)
	}
}
