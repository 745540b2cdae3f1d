// Package registry is the kind registry that memtable (Register) and
// gcstress (RegisterEngine) each keep: a map from a kind name to its
// constructor, written at start-up and read from any goroutine.
//
// Invariants: a kind is added once, and removed only by a test that
// registered it (Remove); Add, Lookup, Kinds and Remove are safe for
// concurrent use (one mutex); the zero Of is an empty
// registry. Checking a kind's name and constructor is the caller's (each
// registry panics with its own words).
package registry

import (
	"fmt"
	"slices"
	"sync"
)

// Of maps kind names to values of type F, usually constructors.
type Of[F any] struct {
	mu    sync.RWMutex
	kinds map[string]F
}

// Add makes f kind's value. It panics when kind is already there, naming
// who registered it ("memtable: Register"): a programming error.
func (r *Of[F]) Add(who, kind string, f F) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.kinds[kind]; dup {
		panic(fmt.Sprintf("%s: kind %q registered twice", who, kind))
	}
	if r.kinds == nil {
		r.kinds = map[string]F{}
	}
	r.kinds[kind] = f
}

// Lookup returns kind's value and whether it is registered.
func (r *Of[F]) Lookup(kind string) (F, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.kinds[kind]
	return f, ok
}

// Kinds lists the registered kinds, sorted.
func (r *Of[F]) Kinds() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ks := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Remove forgets kind, for a test that registered it and must leave the
// registry as it found it; programs have no undo.
func (r *Of[F]) Remove(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.kinds, kind)
}
