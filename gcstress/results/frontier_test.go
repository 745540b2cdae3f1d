package results

import (
	"testing"
	"time"
)

// TestSettleSteady: a store filling grows reading by reading (not
// steady); once full it swings around one level (steady), also when its
// last readings fall; a rise of more than SettleGrowth at the end is not
// steady; too few readings never are.
func TestSettleSteady(t *testing.T) {
	const mib = 1 << 20
	filling := []uint64{10 * mib, 20 * mib, 30 * mib, 40 * mib, 50 * mib, 60 * mib, 70 * mib, 80 * mib}
	if SettleSteady(filling) {
		t.Error("a filling store read steady")
	}
	full := append(filling, 128*mib, 127*mib, 129*mib, 128*mib, 126*mib, 129*mib, 128*mib, 130*mib)
	if !SettleSteady(full) {
		t.Error("a full store (126-130 MiB) read not steady")
	}
	falling := append(full[:12:12], 100*mib, 90*mib, 95*mib, 99*mib)
	if !SettleSteady(falling) {
		t.Error("a store whose memory fell read not steady")
	}
	rising := append(full[:15:15], 135*mib) // +4.6% over the peak before
	if SettleSteady(rising) {
		t.Error("a rise of 4.6% read steady")
	}
	if SettleSteady(full[len(full)-2*SettleReadings+1:]) {
		t.Errorf("%d readings read steady", 2*SettleReadings-1)
	}
}

// windows are n one-second windows, cycles(i) GC cycles ending in the i-th.
func windows(n int, cycles func(i int) uint64) []Sample {
	ws := make([]Sample, n)
	for i := range ws {
		ws[i] = Sample{T: float64(i + 1), Dur: 1, WinCycles: cycles(i), HeapLive: 100 << 20, HeapGoal: 200 << 20, HeapObjects: 150 << 20}
	}
	return ws
}

// TestRunDone: a run with a cycle target ends once past MinRun with its
// cycles after the warm-up; it runs on past MinRun while short of them
// (to its cap); one that could not reach FrontierMinCycles by its cap
// even at twice its pace ends at MinRun; cycles in the warm-up do not
// count; without a target it never ends early.
func TestRunDone(t *testing.T) {
	s := Scenario{MinRun: 15 * time.Second, Duration: 45 * time.Second, MinCycles: 6, Thresholds: Thresholds{Warmup: 2 * time.Second}}
	every3 := func(i int) uint64 {
		if i%3 == 2 {
			return 1
		}
		return 0
	}
	if RunDone(s, windows(14, every3)) {
		t.Error("ended before MinRun")
	}
	if !RunDone(s, windows(18, every3)) { // cycles at 3, 6, ..., 18 s: 6
		t.Error("6 cycles past MinRun: did not end")
	}
	if RunDone(s, windows(15, every3)) { // 5 cycles
		t.Error("5 cycles of 6: ended")
	}
	// One cycle at 10 s: twice its pace (1 per 8 s after the warm-up)
	// brings 1+2x30/13 by 45 s: runs on.
	one := windows(15, func(i int) uint64 { return map[bool]uint64{true: 1}[i == 9] })
	if RunDone(s, one) {
		t.Error("one cycle in 13 s with 30 s left: cut short")
	}
	// No cycle, heap objects flat: hopeless, ends at MinRun.
	if !RunDone(s, windows(15, func(int) uint64 { return 0 })) {
		t.Error("no cycle and no growth: ran on to its cap")
	}
	// No cycle, heap objects growing 2 MiB/s toward a goal 50 MiB away:
	// at twice that the first cycle comes in 12.5 s, then one per 25 s:
	// 1 + 17.5/25 < 2 by 45 s: ends. At 8 MiB/s: 1 + (30-3.1)/6.25 >= 2.
	grow := func(rate uint64) []Sample {
		ws := windows(15, func(int) uint64 { return 0 })
		goal := uint64(100+14*rate+50) << 20
		for i := range ws {
			ws[i].HeapObjects, ws[i].HeapGoal, ws[i].HeapLive = (100+uint64(i)*rate)<<20, goal, goal-100<<20
		}
		return ws
	}
	if !RunDone(s, grow(2)) {
		t.Errorf("slow growth: ran on (projected %g)", projectedCycles(grow(2), 2, 45))
	}
	if RunDone(s, grow(8)) {
		t.Errorf("fast growth: cut short (projected %g)", projectedCycles(grow(8), 2, 45))
	}
	// Cycles in the warm-up do not count: 6 in the window ending at 1 s,
	// none after, the heap growing fast: runs on.
	warm := grow(8)
	warm[0].WinCycles = 6
	if RunDone(s, warm) {
		t.Error("cycles in the warm-up counted")
	}
	s.MinCycles = 0
	if RunDone(s, windows(40, every3)) {
		t.Error("no cycle target: ended early")
	}
}
