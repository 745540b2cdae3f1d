package gcstress

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/writegc/writegc/gcstress/internal/child"
	"github.com/writegc/writegc/internal/registry"
	"github.com/writegc/writegc/memtable"
)

// Engine is a write path under load: what a scenario's writers Put into.
// Register one with RegisterEngine to run it under every scenario.
//
// Concurrency: Put is called from Scenario.Writers goroutines at once. The
// key and value slices are valid only during the call (writers reuse them):
// an engine that keeps them must copy them. A Put error ends the scenario,
// which is then reported failed with that error.
//
// Lifetime: an Engine serves one scenario in one child process. Close is
// called once, when the load ends; if writers are still blocked in Put a
// second after the end (a run-time cap, an interrupt or the memory cap
// stopped the load while a full engine held them), Close is called while
// those Puts are in flight and should make them return; their errors are
// then ignored. Close's error is reported in the scenario's end record.
type Engine interface {
	Put(key, value []byte) error
	Close() error
}

// StatsEngine is an Engine that also reports its flushes and backpressure.
// Stats is optional: an Engine without it is sampled with zero EngineStats.
// Stats is called from the sampling goroutine, concurrently with Put, once
// per window, once after the writers returned and before Close (for
// EngineStats.Entries) and once after Close.
type StatsEngine interface {
	Engine
	Stats() EngineStats
}

// NoteEngine is an Engine with figures of its own that fit no
// EngineStats field, such as a cache's accepted writes and hit ratio.
// Notes is optional. It is called once, from the child's main goroutine,
// after Close returned (so it may read what Close computed); its map goes
// to the end record's engine_notes in summary.json and samples.jsonl and to
// the terminal and Markdown reports' engine notes. Keys are snake_case
// names; the map is not kept past the call's use.
type NoteEngine interface {
	Engine
	Notes() map[string]float64
}

// EngineStats are an engine's counters, sampled once per window. Flushes,
// FlushedBytes and BlockedNanos are cumulative since the engine was built;
// PendingFlushes and MemtableBytes are values at the moment of the call.
// BlockedNanos is the time writers spent blocked by backpressure, summed
// over writers. Entries (optional: 0 means unknown, and the keys written
// stand in) is the entries the engine holds now, what the end record's
// objects and bytes per entry divide by. OffHeapBytes (optional) is what
// the engine holds outside the Go heap now, which GOMEMLIMIT cannot see:
// the frontier's recommendation adds it to the peak RSS. A plain value.
//
// It is this package's own type, not an alias, so that go doc shows its
// fields; childEngine.Stats converts it to the child's child.EngineStats.
type EngineStats struct {
	Flushes        int64 // memtables flushed
	FlushedBytes   int64 // bytes those flushes wrote
	PendingFlushes int64 // full memtables waiting for a flusher
	MemtableBytes  int64 // bytes held in memtables (flushed or not yet)
	BlockedNanos   int64 // time writers spent blocked by backpressure, summed over writers
	// Entries is the entries the engine holds now (optional: 0 means
	// unknown, and the keys written stand in).
	Entries int64
	// OffHeapBytes is what the engine holds outside the Go heap now
	// (optional), which GOMEMLIMIT cannot see.
	OffHeapBytes int64
}

// ErrUnknownKind: a scenario names a kind that is neither a registered
// engine nor a memtable kind.
var ErrUnknownKind = errors.New("unknown kind")

// The engine registry. Lookup of a scenario's Kind (engineFor):
//  1. a kind registered with RegisterEngine runs that engine (writegc's own
//     kinds are registered this way, each as its memtable kind inside the
//     region server, see engine.go);
//  2. otherwise a kind known to memtable.New (memtable.Register included)
//     runs inside writegc's region server, exactly like writegc's own
//     kinds: WAL, flushers, backpressure, and the scenario's write path;
//  3. anything else is ErrUnknownKind.
//
// The registry is guarded by a mutex; registration is normally done at
// start-up, before Run or RunChild.
var engines registry.Of[func(Scenario) (Engine, error)]

// RegisterEngine makes kind a gcstress kind (-kinds, Config.Kinds) whose
// scenarios Put into the Engine newEngine builds. newEngine is called once
// per scenario, in the scenario's child process, with the Scenario it runs
// (value size, keys, memstore, regions, writers and so on): the program
// that calls Run must register the same kinds before RunChild runs in the
// child (a main that registers first and then calls cli.Main does).
//
// RegisterEngine panics when kind breaks memtable.ValidKindName's rule
// ([a-z0-9][a-z0-9._-]*, at most 64 bytes: the rule of both registries),
// when newEngine is nil, or when kind is already registered
// (writegc's heap, arena, offheap and btree included): each is a
// programming error. Registration cannot be undone.
func RegisterEngine(kind string, newEngine func(Scenario) (Engine, error)) {
	if err := memtable.ValidKindName(kind); err != nil {
		panic("gcstress: RegisterEngine: " + err.Error()) // the one rule of both registries
	}
	if newEngine == nil {
		panic(fmt.Sprintf("gcstress: RegisterEngine(%q): nil constructor", kind))
	}
	engines.Add("gcstress: RegisterEngine", kind, newEngine)
}

// Kinds lists every kind a scenario can run, sorted: the registered
// engines and the memtable kinds.
func Kinds() []string {
	ks := memtable.Kinds()
	for _, k := range engines.Kinds() {
		if !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// engineFor finds kind's constructor (see the registry's lookup order).
func engineFor(kind string) (func(Scenario) (Engine, error), error) {
	newE, ok := engines.Lookup(kind)
	switch {
	case ok:
		return newE, nil
	case slices.Contains(memtable.Kinds(), kind):
		return newServerEngine, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownKind, kind, strings.Join(Kinds(), ","))
}

// childEngine is an Engine as the child drives it: Stats always there
// (zero when the Engine has none) and Close run once, whoever calls it
// first (the early close that releases blocked writers, or the last one).
type childEngine struct {
	Engine
	once     sync.Once
	closeErr error
}

// Stats is the Engine's EngineStats as the child's sampler takes them
// (the boundary between the public type and the internal one).
func (e *childEngine) Stats() child.EngineStats {
	if se, ok := e.Engine.(StatsEngine); ok {
		return child.EngineStats(se.Stats())
	}
	return child.EngineStats{}
}

// Notes is the engine's NoteEngine figures, nil when it has none.
func (e *childEngine) Notes() map[string]float64 {
	if ne, ok := e.Engine.(NoteEngine); ok {
		return ne.Notes()
	}
	return nil
}

// Close closes the engine once; a concurrent second call waits for the
// first and returns its error.
func (e *childEngine) Close() error {
	e.once.Do(func() { e.closeErr = e.Engine.Close() })
	return e.closeErr
}

// newEngine builds the engine of scenario s's kind.
func newEngine(s Scenario) (*childEngine, error) {
	newE, err := engineFor(s.Kind)
	if err != nil {
		return nil, err
	}
	e, err := newE(s)
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", s.Kind, err)
	}
	if e == nil {
		return nil, fmt.Errorf("engine %s: constructor returned a nil Engine", s.Kind)
	}
	return &childEngine{Engine: e}, nil
}
