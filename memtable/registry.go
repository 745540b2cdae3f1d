package memtable

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The kinds writegc ships. New and the writepath server take kinds as plain
// strings (a public contract), so these are untyped string constants.
const (
	KindHeap    = "heap"
	KindArena   = "arena"
	KindOffHeap = "offheap"
	KindBTree   = "btree"
)

// The registry maps a kind to its constructor. writegc's own kinds register
// from init functions in this package; a user's kinds register with Register
// before the first New that names them, typically first thing in main. It is
// guarded by a mutex: Register, New and Kinds may run concurrently.
var registry struct {
	mu    sync.RWMutex
	kinds map[string]func(Options) (Memtable, error)
}

// Register makes a memtable kind known to New and Kinds, and through New to
// everything built on it: the writepath server (ServerOptions.Kind) and
// gcstress (-kinds), which then runs the kind inside writegc's region
// server with its WAL, flushers and backpressure.
//
// newMemtable must return an empty Memtable that honours the Memtable
// contract (concurrency, Close, Size charging); it is called once per
// memtable, from any goroutine. Options are passed as given; a kind may
// ignore the arena settings.
//
// Register panics when kind is empty, contains a comma or a space (kinds
// are listed comma-separated on command lines), is already registered, or
// when newMemtable is nil: these are programming errors, found at start-up.
// Registration cannot be undone.
func Register(kind string, newMemtable func(Options) (Memtable, error)) {
	if kind == "" || strings.ContainsAny(kind, ", \t\n") {
		panic(fmt.Sprintf("memtable: Register: bad kind name %q", kind))
	}
	if newMemtable == nil {
		panic(fmt.Sprintf("memtable: Register(%q): nil constructor", kind))
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.kinds[kind]; dup {
		panic(fmt.Sprintf("memtable: Register: kind %q registered twice", kind))
	}
	if registry.kinds == nil {
		registry.kinds = map[string]func(Options) (Memtable, error){}
	}
	registry.kinds[kind] = newMemtable
}

// register is Register for this package's own kinds.
func register(kind string, newMemtable func(Options) (Memtable, error)) { Register(kind, newMemtable) }

// Kinds lists the registered kinds in sorted order.
func Kinds() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	ks := make([]string, 0, len(registry.kinds))
	for k := range registry.kinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// lookup returns kind's constructor.
func lookup(kind string) (func(Options) (Memtable, error), bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	c, ok := registry.kinds[kind]
	return c, ok
}
