package engines

import (
	"sync"
	"sync/atomic"

	"github.com/writegc/writegc/gcstress"
)

// guard lets Puts run concurrently and Close wait for them: enter before
// touching the engine, leave after; close runs its function once, with no
// Put inside, and makes later enters fail. Safe for concurrent use.
type guard struct {
	mu     sync.RWMutex
	closed bool
}

// enter reports whether the engine is open; when it is, the caller must
// call leave.
func (g *guard) enter() bool {
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return false
	}
	return true
}

func (g *guard) leave() { g.mu.RUnlock() }

// close waits for the callers inside and runs f, once; later calls return
// nil without running it.
func (g *guard) close(f func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	return f()
}

// stats is read while the engine is open, and after Close the figures
// stored in last (zero where none were).
func (g *guard) stats(last *atomic.Pointer[gcstress.EngineStats], read func() gcstress.EngineStats) gcstress.EngineStats {
	if !g.enter() {
		if l := last.Load(); l != nil {
			return *l
		}
		return gcstress.EngineStats{}
	}
	defer g.leave()
	return read()
}
