package gcstress

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
)

// testCountingKind is an engine whose n-th Stats call returns n in every
// figure (Entries 1000+n, so the footprint divides by a real count): an
// end record that mixes two calls shows it.
const testCountingKind = "test-countingstats"

func init() {
	RegisterEngine(testCountingKind, func(Scenario) (Engine, error) { return &countingStats{}, nil })
}

type countingStats struct {
	mu   sync.Mutex
	vals [][]byte
	n    atomic.Int64
}

func (e *countingStats) Put(_, value []byte) error {
	v := append([]byte(nil), value...)
	e.mu.Lock()
	e.vals = append(e.vals, v)
	e.mu.Unlock()
	return nil
}

func (e *countingStats) Stats() EngineStats {
	n := e.n.Add(1)
	return EngineStats{Flushes: n, FlushedBytes: 10 * n, PendingFlushes: n, MemtableBytes: 100 * n, BlockedNanos: 1000 * n, Entries: 1000 + n}
}

func (e *countingStats) Close() error { return nil }

// endOf runs s in a child and returns its end record (fatal without one).
func endOf(t *testing.T, s Scenario) *Sample {
	t.Helper()
	res, err := (&Runner{}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.End == nil {
		t.Fatalf("%s: no end record: %s", s.Name, res.Stderr)
	}
	return res.End
}

// TestEndRecordOneSnapshot: every engine figure of the end record comes
// from one Stats call, the one its footprint divided by, however the calls
// around it differ.
func TestEndRecordOneSnapshot(t *testing.T) {
	e := endOf(t, tinyScenario(t, testCountingKind+"/100B", testCountingKind, 5_000))
	n := e.Flushes
	if n < 1 || e.FlushedBytes != 10*n || e.PendingFlushes != n || e.MemtableBytes != 100*n || e.BlockedNanos != 1000*n || e.Entries != 1000+n {
		t.Errorf("end record mixes Stats calls: flushes %d, flushed %d, pending %d, memtable %d, blocked %d, entries %d",
			e.Flushes, e.FlushedBytes, e.PendingFlushes, e.MemtableBytes, e.BlockedNanos, e.Entries)
	}
}

// TestHeapObjectsPerEntryWithFlushes: the heap kind's objects per entry is
// its layout's (five objects an entry: node, tower, key, value box, value)
// when memtables flush during the run, as when none does: a flushed
// memtable must not stay reachable (it did, from the region's pending
// slice, and the figure read 8-15).
func TestHeapObjectsPerEntryWithFlushes(t *testing.T) {
	const layout = 5
	memstores := []int64{1 << 20, 64 << 20}
	if testing.Short() {
		memstores = memstores[:1] // the flushing one, where the figure went wrong; test-slow runs both
	}
	for _, memstore := range memstores {
		s := tinyScenario(t, "heap/100B", memtable.KindHeap, 60_000)
		s.Memstore = memstore
		e := endOf(t, s)
		if e.EntriesFrom != results.EntriesEngine {
			t.Fatalf("memstore %d: end %+v", memstore, e)
		}
		if memstore == 1<<20 && e.Flushes == 0 {
			t.Fatalf("memstore 1 MiB: no flush ran (%d entries)", e.Entries)
		}
		if e.ObjectsPerEntry < 0.9*layout || e.ObjectsPerEntry > 1.1*layout {
			t.Errorf("memstore %d: %.2f objects per entry over %d entries (%d flushes), want %d within 10%%",
				memstore, e.ObjectsPerEntry, e.Entries, e.Flushes, layout)
		}
		if e.Impossible {
			t.Errorf("memstore %d: %.0f bytes per entry flagged impossible", memstore, e.BytesPerEntry)
		}
	}
}

// testNothingKind holds nothing and says it holds every key written: its
// footprint is what the harness itself adds after the baseline.
const testNothingKind = "test-holdsnothing"

func init() {
	RegisterEngine(testNothingKind, func(Scenario) (Engine, error) { return &holdsNothing{}, nil })
}

type holdsNothing struct{ n atomic.Int64 }

func (e *holdsNothing) Put(_, _ []byte) error { e.n.Add(1); return nil }
func (e *holdsNothing) Stats() EngineStats    { return EngineStats{Entries: e.n.Load()} }
func (e *holdsNothing) Close() error          { return nil }

// TestFootprintLeavesOutTheHarness: an engine that holds nothing holds
// (almost) nothing per entry: the baseline is taken with the harness set up
// (its latency histograms alone are about 1 MB), so a footprint is not the
// harness's objects divided by however many entries the engine held. What
// the harness adds during the load (its windows, the trace's recorder) is
// tens of small objects: the bound is on the megabyte-scale figures, the
// histograms and the trace's operation sample, which must stay out.
func TestFootprintLeavesOutTheHarness(t *testing.T) {
	e := endOf(t, tinyScenario(t, testNothingKind+"/100B", testNothingKind, 3_000))
	if e.Entries != 3_000 {
		t.Fatalf("end %+v", e)
	}
	if objs, b := e.ObjectsPerEntry*float64(e.Entries), e.BytesPerEntry*float64(e.Entries); objs > 100 || b > 256<<10 {
		t.Errorf("an engine holding nothing holds %.0f objects and %.0f bytes after the load: the harness's", objs, b)
	}
}
