package gcbench

import (
	"flag"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// FewCyclesWarning on hand-built rounds: fewer than MinCycles cycles while
// allocating warns, naming the cycles and a -benchtime=Nx that would give
// enough at this rate; enough cycles, no allocation, or the collector off
// do not.
func TestFewCyclesWarning(t *testing.T) {
	const mib = 1 << 20
	w := FewCyclesWarning(CycleRun{N: 2000, Cycles: 1, AllocBytes: 2000 << 10, HeadroomBytes: 64 * mib})
	// 1 KiB an op, a cycle every 64 MiB: 6 cycles take 6 x 65536 ops, 400000 in two digits.
	for _, want := range []string{"1 GC cycle(s)", "b.N=2000", "2.0 MiB allocated", "need at least 5", "-benchtime=400000x", "every 64.0 MiB", "lower GOGC"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	for name, r := range map[string]CycleRun{
		"enough cycles":      {N: 2000, Cycles: MinCycles, AllocBytes: 2 * mib, HeadroomBytes: 64 * mib},
		"allocation-free":    {N: 2000, Cycles: 0, AllocBytes: 1999, HeadroomBytes: 64 * mib},
		"collector off":      {N: 2000, Cycles: 0, AllocBytes: 2 * mib, HeadroomBytes: 1 << 62},
		"no ops (b.N unset)": {N: 0, Cycles: 0, AllocBytes: 2 * mib, HeadroomBytes: 64 * mib},
	} {
		if w := FewCyclesWarning(r); w != "" {
			t.Errorf("%s: warning %q, want none", name, w)
		}
	}
	if w := FewCyclesWarning(CycleRun{N: 10, Cycles: 0, AllocBytes: 640, HeadroomBytes: 4 << 20}); !strings.Contains(w, "0.6 KiB allocated") {
		t.Errorf("a small allocation: %q", w)
	}
	// No headroom to go by: the advice is a longer -benchtime, no count.
	if w := FewCyclesWarning(CycleRun{N: 10, Cycles: 0, AllocBytes: 10 * mib}); !strings.Contains(w, "a longer -benchtime") {
		t.Errorf("without headroom: %q", w)
	}
}

// lastRound follows the testing package's own loop: a count is reached at
// that b.N, a duration when the round's time reaches it, 1e9 ops end it.
func TestLastRound(t *testing.T) {
	for _, c := range []struct {
		n       int
		elapsed time.Duration
		bt      string
		want    bool
	}{
		{1, time.Millisecond, "2000x", false}, {2000, time.Millisecond, "2000x", true}, {1, 0, "1x", true},
		{100, 10 * time.Millisecond, "1s", false}, {90_000, 1001 * time.Millisecond, "1s", true},
		{100, 200 * time.Millisecond, "100ms", true}, {1e9, time.Millisecond, "1h", true},
		{100, 500 * time.Millisecond, "bogus", false},
	} {
		if got := lastRound(c.n, c.elapsed, c.bt); got != c.want {
			t.Errorf("lastRound(%d, %v, %q) = %v, want %v", c.n, c.elapsed, c.bt, got, c.want)
		}
	}
}

var ballast []byte

// benchFixed runs f through testing.Benchmark at -benchtime n (after the
// framework's N=1 round) and reports whether its final round had the
// few-cycles warning.
func benchFixed(t *testing.T, n string, f func(*testing.B)) bool {
	t.Helper()
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set(n); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	runtime.GC()
	testing.Benchmark(f)
	return CyclesWarned("")
}

// Through the testing package: 1 KiB an op for 2000 ops beside a 64 MiB live
// heap completes no cycle of its own and is warned; 64 KiB an op at GOGC 10
// completes many and is not.
func TestStopWarnsOnFewCycles(t *testing.T) {
	if os.Getenv("GOGC") == "off" {
		t.Skip("GOGC=off: no cycle is missing")
	}
	few := benchFixed(t, "2000x", func(b *testing.B) {
		ballast = make([]byte, 64<<20)
		m := Start(b)
		b.ResetTimer()
		for range b.N {
			sink = make([]byte, 1024)
		}
		b.StopTimer()
		m.Stop()
		runtime.KeepAlive(ballast)
	})
	ballast = nil
	if !few {
		t.Errorf("no few-cycles warning for 2 MiB allocated beside a 64 MiB heap")
	}
	// GOGC 10: cycles every tenth of whatever live heap other tests left.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	many := benchFixed(t, "2000x", func(b *testing.B) {
		m := Start(b)
		b.ResetTimer()
		for range b.N {
			sink = make([]byte, 64<<10)
		}
		b.StopTimer()
		m.Stop()
	})
	if many {
		t.Errorf("a few-cycles warning for 125 MiB allocated at GOGC 10")
	}
}

var sink []byte
