package gcbench

import (
	"flag"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcmetrics"
)

func TestLiveHeapGrows(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name      string
		prev, cur Round
		want      bool
	}{
		{"kept per op", Round{1, 4 * mib}, Round{100_000, 104 * mib}, true},
		{"steady", Round{1, 40 * mib}, Round{100_000, 40*mib + 4096}, false},
		{"fell", Round{1, 40 * mib}, Round{100_000, 30 * mib}, false},
		{"under 1 MiB", Round{1, 1 * mib}, Round{100_000, 1*mib + mib/2}, false},
		{"under 10%", Round{1, 100 * mib}, Round{100_000, 108 * mib}, false},
		{"fewer ops", Round{100_000, 4 * mib}, Round{1, 104 * mib}, false},
		{"same ops", Round{100, 4 * mib}, Round{100, 104 * mib}, false},
	} {
		if got := LiveHeapGrows(c.prev, c.cur); got != c.want {
			t.Errorf("%s: LiveHeapGrows(%v, %v) = %v, want %v", c.name, c.prev, c.cur, got, c.want)
		}
	}
}

// TestTrackRoundWarnsOncePerRun feeds rounds by hand: the warning comes at
// the first growing round, not again in that run, and again after a new
// run (a round with fewer ops) grows.
func TestTrackRoundWarnsOncePerRun(t *testing.T) {
	const name, mib = "BenchmarkTrack/x=1", 1 << 20
	steps := []struct {
		n    int
		live uint64
		warn bool
	}{
		{1, 2 * mib, false}, {100, 12 * mib, true}, {10_000, 50 * mib, false},
		{1, 2 * mib, false}, {100, 2 * mib, false}, {10_000, 40 * mib, true},
	}
	for i, s := range steps {
		w := trackRound(name, s.n, s.live)
		if (w != "") != s.warn {
			t.Errorf("step %d (N=%d, live %d MiB): warning %q, want one: %v", i, s.n, s.live/mib, w, s.warn)
		}
		if w != "" && !strings.Contains(w, "b.N") {
			t.Errorf("step %d: warning %q does not name b.N", i, w)
		}
	}
}

var kept [][]byte

// TestStopWarnsWhenLiveHeapGrowsWithN runs a benchmark that keeps 1 KiB
// per op through the testing package (N=1, then N=20000) and expects the
// warning on record.
func TestStopWarnsWhenLiveHeapGrowsWithN(t *testing.T) {
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("20000x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	testing.Benchmark(func(b *testing.B) {
		m := Start(b)
		b.ResetTimer()
		for range b.N {
			kept = append(kept, make([]byte, 1024))
		}
		b.StopTimer()
		m.Stop()
		kept = nil
	})
	rounds.Lock()
	tr := rounds.m[""]
	rounds.Unlock()
	if tr == nil || !tr.warned {
		t.Fatalf("no live-heap warning for 1 KiB kept per op: %+v", tr)
	}
}

// TestIntervalSubtractsForcedCycle checks Interval on hand-built readings:
// the forced cycle's CPU and cycle come off; pauses stop at pre.
func TestIntervalSubtractsForcedCycle(t *testing.T) {
	buckets := []float64{math.Inf(-1), 0, 1e-4, math.Inf(1)}
	snap := func(total, idle, gc, gcIdle, assist float64, cycles uint64, pauses ...uint64) gcmetrics.Snapshot {
		return gcmetrics.Snapshot{CPUTotal: total, CPUIdle: idle, GCTotal: gc, GCIdle: gcIdle, GCAssist: assist,
			Cycles: cycles, Pauses: gcmetrics.Histogram{Buckets: buckets, Counts: pauses}}
	}
	start := snap(100, 40, 5, 1, 1, 10, 0, 0, 0)
	pre := snap(100, 40, 5, 1, 1, 10, 0, 6, 1)          // counters not yet advanced; pauses are
	end := snap(120, 50, 9, 2, 1.5, 14, 0, 8, 1)        // 3 benchmark cycles + 1 forced
	cal := snap(121, 50.5, 9.2, 2.1, 1.5, 15, 0, 10, 1) // one forced cycle: 0.5 used, 0.2 GC (0.1 idle)
	d := Interval(start, pre, end, cal)
	c := d.CPU
	if !near(c.CPUUsed, 10-0.5) || !near(c.GCCPU, 3-0.1) || !near(c.IdleMark, 1-0.1) || !near(c.Assist, 0.5) || c.Cycles != 3 {
		t.Errorf("Interval CPU = %+v, want used 9.5, gc 2.9, idle 0.9, assist 0.5, cycles 3", c)
	}
	if got := d.Pauses.Count(); got != 7 {
		t.Errorf("Interval pauses = %d, want the 7 before the forced collections", got)
	}
	// A calibration cycle dearer than the whole interval leaves zeros, not negatives.
	z := Interval(start, start, start, cal)
	if z.CPUUsed != 0 || z.GCCPU != 0 || z.Cycles != 0 {
		t.Errorf("Interval over nothing = %+v, want zeros", z.CPU)
	}
	runtime.KeepAlive(z)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
