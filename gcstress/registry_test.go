package gcstress

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/child"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
)

// Test kinds, registered in init so that the children this test binary
// serves (TestMain) know them too, as a user's main registers before
// cli.Main.
const (
	testEngineKind   = "test-map"     // an Engine without Stats
	testMemtableKind = "test-btree"   // a memtable only: runs in the region server
	testFailingKind  = "test-failing" // a constructor that fails
)

func init() {
	RegisterEngine(testEngineKind, func(Scenario) (Engine, error) { return &mapEngine{m: map[string][]byte{}}, nil })
	RegisterEngine(testFailingKind, func(Scenario) (Engine, error) { return nil, errors.New("no store today") })
	memtable.Register(testMemtableKind, func(o memtable.Options) (memtable.Memtable, error) {
		return memtable.New(memtable.KindBTree, o)
	})
}

// mapEngine is the smallest Engine: a map under a mutex, closed once.
type mapEngine struct {
	mu     sync.Mutex
	m      map[string][]byte
	closes int
}

func (e *mapEngine) Put(key, value []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[string(key)] = append([]byte(nil), value...)
	return nil
}

func (e *mapEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closes++
	return nil
}

// TestKindsListsEnginesAndMemtables: Kinds is the sorted union of the
// registered engines and the memtable kinds, and Validate accepts each.
func TestKindsListsEnginesAndMemtables(t *testing.T) {
	ks := Kinds()
	for _, want := range []string{"arena", "btree", "heap", "offheap", testEngineKind, testMemtableKind} {
		if !slices.Contains(ks, want) {
			t.Errorf("Kinds() = %v lacks %s", ks, want)
		}
	}
	if !slices.IsSorted(ks) || len(slices.Compact(slices.Clone(ks))) != len(ks) {
		t.Fatalf("Kinds() = %v, want sorted and unique", ks)
	}
	c := DefaultConfig()
	c.Kinds = []string{testEngineKind, testMemtableKind}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestRegisterEnginePanics(t *testing.T) {
	newE := func(Scenario) (Engine, error) { return &mapEngine{}, nil }
	for name, f := range map[string]func(){
		"duplicate":           func() { RegisterEngine(testEngineKind, newE) },
		"writegc's own kind":  func() { RegisterEngine(memtable.KindArena, newE) },
		"empty name":          func() { RegisterEngine("", newE) },
		"comma":               func() { RegisterEngine("a,b", newE) },
		"slash":               func() { RegisterEngine("a/b", newE) },
		"upper case":          func() { RegisterEngine("MyStore", newE) },
		"escape":              func() { RegisterEngine("x\x1b[2J", newE) },
		"nil constructor":     func() { RegisterEngine("test-nil", nil) },
		"memtable duplicate":  func() { memtable.Register(testMemtableKind, nil) },
		"memtable own (heap)": func() { memtable.Register(memtable.KindHeap, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestNewEngineLookup: a registered engine is built as is (zero stats, one
// Close however often the child calls it); a memtable-only kind runs in the
// region server (its stats count the memtable); an unknown kind and a
// failing constructor are errors naming the kind.
func TestNewEngineLookup(t *testing.T) {
	s := Scenario{Kind: testEngineKind, Regions: 1, Flushers: 1, Memstore: 1 << 20, Backpressure: true,
		MaxPendingFlushes: 2, Path: PathServer, Writers: 1}
	e, err := newEngine(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Put([]byte("k"), []byte("v")); err != nil || e.Stats() != (child.EngineStats{}) {
		t.Fatalf("put %v stats %+v", err, e.Stats())
	}
	e.Close()
	e.Close()
	if m := e.Engine.(*mapEngine); m.closes != 1 || string(m.m["k"]) != "v" {
		t.Fatalf("closes %d, map %v", m.closes, m.m)
	}

	s.Kind = testMemtableKind
	e, err = newEngine(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Engine.(*serverEngine); !ok {
		t.Fatalf("memtable kind built %T, want the region server", e.Engine)
	}
	if err := e.Put([]byte("k"), []byte("v")); err != nil || e.Stats().MemtableBytes <= 0 {
		t.Fatalf("put %v stats %+v", err, e.Stats())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	for kind, want := range map[string]string{"nosuch": "unknown kind", testFailingKind: "no store today"} {
		s.Kind = kind
		if _, err := newEngine(s); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: %v, want an error naming the kind", kind, err)
		}
	}
}

// TestRegisteredKindsRunInChildren: a registered engine and a
// memtable-only kind each run a scenario in a real child process and end
// classified; a failing constructor ends its scenario failed, not the run.
func TestRegisteredKindsRunInChildren(t *testing.T) {
	for _, kind := range []string{testEngineKind, testMemtableKind, testFailingKind} {
		s := tinyScenario(t, kind+"/100B", kind, 20_000)
		res, err := (&Runner{}).Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if kind == testFailingKind {
			if res.Verdict.Class != results.Failed || !strings.Contains(res.Exit.Message, "no store today") {
				t.Errorf("%s: verdict %s, exit %+v", kind, res.Verdict.Class, res.Exit)
			}
			continue
		}
		if res.End == nil || res.End.Reason != "keys" || res.End.Keys != 20_000 || res.Verdict.Class == "" {
			t.Errorf("%s: end %+v verdict %+v stderr %s", kind, res.End, res.Verdict, res.Stderr)
		}
		if kind == testMemtableKind && res.End != nil && res.End.Flushes == 0 {
			t.Errorf("%s: no flushes through the region server: %+v", kind, res.End)
		}
	}
}

// TestEngineStatsIsPublic: EngineStats, which every engine returns, is a
// type of this package (an alias of an internal type hid its fields from
// go doc), converted at the child's boundary with its fields intact.
func TestEngineStatsIsPublic(t *testing.T) {
	typ := reflect.TypeOf(EngineStats{})
	if typ.PkgPath() != "github.com/writegc/writegc/gcstress" || typ.Name() != "EngineStats" {
		t.Fatalf("EngineStats is %s.%s, want a type of package gcstress", typ.PkgPath(), typ.Name())
	}
	in := EngineStats{Flushes: 1, FlushedBytes: 2, PendingFlushes: 3, MemtableBytes: 4, BlockedNanos: 5, Entries: 6, OffHeapBytes: 7}
	e := &childEngine{Engine: statsOnly{in}}
	got := e.Stats()
	if got != (child.EngineStats{Flushes: 1, FlushedBytes: 2, PendingFlushes: 3, MemtableBytes: 4, BlockedNanos: 5, Entries: 6, OffHeapBytes: 7}) {
		t.Fatalf("converted %+v from %+v", got, in)
	}
}

// statsOnly is an Engine whose Stats are fixed.
type statsOnly struct{ st EngineStats }

func (statsOnly) Put(_, _ []byte) error { return nil }
func (statsOnly) Close() error          { return nil }
func (s statsOnly) Stats() EngineStats  { return s.st }
