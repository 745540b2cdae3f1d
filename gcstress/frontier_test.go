package gcstress

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// User engines of the frontier test, registered through the public API
// (RegisterEngine) in init, so the children this binary serves know them:
// each has only Put, Close and Stats.
const (
	testRingKind    = "test-ring"    // a bounded ring of 512 B copies: garbage, little live data
	testBallastKind = "test-ballast" // the ring plus 48 MiB of pointers: live data to scan
)

func init() {
	RegisterEngine(testRingKind, func(Scenario) (Engine, error) { return newRingEngine(0), nil })
	RegisterEngine(testBallastKind, func(Scenario) (Engine, error) { return newRingEngine(48 << 20 / 64), nil })
}

type ringEngine struct {
	mu      sync.Mutex
	ring    [][]byte
	n       int
	ballast *node
}

// node is 64 B of pointers: live data the collector must scan.
type node struct {
	next *node
	p    [7]*node
}

func newRingEngine(ballast int) *ringEngine {
	e := &ringEngine{ring: make([][]byte, 4096)}
	for range ballast {
		e.ballast = &node{next: e.ballast, p: [7]*node{e.ballast}}
	}
	return e
}

func (e *ringEngine) Put(key, value []byte) error {
	b := make([]byte, 512)
	copy(b[copy(b, key):], value)
	e.mu.Lock()
	e.ring[e.n%len(e.ring)] = b
	e.n++
	e.mu.Unlock()
	return nil
}

func (e *ringEngine) Close() error { return nil }

// Stats reports the entries held and 3 MiB "off-heap", which the frontier
// must carry into offheap_bytes.
func (e *ringEngine) Stats() EngineStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return EngineStats{Entries: int64(min(e.n, len(e.ring))), OffHeapBytes: 3 << 20}
}

// TestFrontierUserEngines runs a tiny frontier (GOGC 100 x no limit and
// 16 MiB, 1/64 of a 1 GiB container: room for the race detector's
// shadow memory) over two user engines with only Stats:
// every point is in summary.json with the contract's fields and the
// engine's off-heap bytes; the engine whose 48 MiB of live data is three
// times its 16 MiB GOMEMLIMIT fails in the death spiral (memlimit-spiral);
// each kind gets a recommendation, which never names a failed point, and
// one that fits gets its longer confirmation run. With 48 MiB under 32 MiB
// (1.5 times), a loaded machine under -race once kept the collector's
// share near 25% without the limiter, so no 3 windows in a row met the
// spiral rule; at three times the limit the collector runs flat out, and
// its idle-time workers count toward that share.
func TestFrontierUserEngines(t *testing.T) {
	if testing.Short() {
		// A whole frontier run (about 18 s): make test-slow runs it. Under
		// -race beside the other packages its spiral point once read
		// degraded instead of failed (the collector got less than its
		// 25% of a loaded machine).
		t.Skip("runs a whole frontier")
	}
	c := DefaultConfig()
	c.Kinds, c.Values, c.CapacityValues, c.Sets = []string{testRingKind, testBallastKind}, []int64{100}, []int64{100}, []string{SetFrontier}
	c.Memstore, c.Regions, c.Window, c.Thresholds.Warmup = 1<<20, 1, 100*time.Millisecond, 300*time.Millisecond
	c.Rate, c.Out, c.Format = Rate{PerSec: 4, Unit: RateMBps}, t.TempDir(), FormatJSON
	c.Frontier = FrontierConfig{Container: 1 << 30, GOGC: []int{100}, MemLimitFracs: []float64{0, 1.0 / 64}, Headroom: 0.1,
		PointDuration: 2 * time.Second, ConfirmDuration: 2500 * time.Millisecond, Settle: 500 * time.Millisecond}
	sum, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Frontier) != 4 || sum.FrontierRun == nil || sum.FrontierRun.RateMBps < 3.999 || sum.FrontierRun.RateMBps > 4.001 || sum.FrontierRun.Settle != 500*time.Millisecond {
		t.Fatalf("frontier %+v run %+v", sum.Frontier, sum.FrontierRun)
	}
	for _, p := range sum.Frontier {
		if p.OffHeapBytes != 3<<20 || p.GOGC != 100 || (p.MemLimit != 0 && p.MemLimit != 16<<20) || p.Class == "" || p.PeakRSS == 0 {
			t.Errorf("point %+v", p)
		}
		if p.Kind == testBallastKind && p.MemLimit > 0 && (p.Class != results.Failed || p.Cause != results.CauseMemlimitSpiral) {
			t.Errorf("48 MiB live under a 16 MiB limit: %s %s (%s)", p.Class, p.Cause, p.Why)
		}
	}
	if len(sum.Recommendation) != 2 {
		t.Fatalf("recommendations %+v", sum.Recommendation)
	}
	for _, r := range sum.Recommendation {
		if r.Reason == "" || (r.Kind == testBallastKind && r.MemLimit == 16<<20) || (!r.Confirmed && (r.GOGC != 0 || !strings.HasPrefix(r.Reason, "no recommendation"))) {
			t.Errorf("recommendation %+v", r)
		}
		if r.Fits && (r.ConfirmScenario == "" || r.ConfirmPeakRSS == 0) {
			t.Errorf("no confirmation run: %+v", r)
		}
	}
	for _, p := range sum.Frontier {
		if p.SettleSeconds <= 0 || p.RunSeconds < 2 {
			t.Errorf("point %s: settle %g s, run %g s; want a settle phase and at least -point-duration", p.Scenario, p.SettleSeconds, p.RunSeconds)
		}
	}
	b, err := os.ReadFile(filepath.Join(c.Out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Frontier       []map[string]any `json:"frontier"`
		Recommendation []map[string]any `json:"recommendation"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || len(raw.Frontier) != 4 || len(raw.Recommendation) != 2 {
		t.Fatalf("summary.json: %v %+v", err, raw)
	}
	for _, k := range []string{"kind", "gogc", "memlimit_bytes", "gc_cpu_s_per_gb", "assist_s_per_gb", "peak_rss_bytes", "offheap_bytes", "ilat_p99_ns", "class", "pareto"} {
		if _, ok := raw.Frontier[0][k]; !ok {
			t.Errorf("frontier[] lacks %s", k)
		}
	}
	for _, k := range []string{"kind", "gogc", "memlimit_bytes", "memlimit_fraction", "reason", "confirmed", "confirm_gc_cpu_s_per_gb", "confirm_peak_rss_bytes"} {
		if _, ok := raw.Recommendation[0][k]; !ok {
			t.Errorf("recommendation[] lacks %s", k)
		}
	}
	if _, err := os.Stat(filepath.Join(c.Out, "frontier-"+testRingKind+".png")); err != nil {
		t.Error(err)
	}
}
