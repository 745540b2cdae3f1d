package memtable

import (
	"math/bits"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// opGuard lets Close wait for the operations in flight on an arena memtable
// before it releases the chunks they read, without a lock on the hot path.
//
// An operation enters by adding one to a counter and then checking the
// closed flag; it leaves by subtracting one from the same counter. Close sets
// the flag and then waits until every counter reads zero. Go's atomics are
// sequentially consistent, so an operation that saw the flag clear had
// already made its counter non-zero before Close set it, and Close waits for
// it; an operation that saw the flag set backs out and touches nothing.
//
// The counter is one of a set of cache-line-padded slots, picked by hashing
// the address of a variable on the caller's stack: goroutines have distinct
// stacks, so concurrent readers mostly land on different slots and the
// enter/leave pair is an uncontended atomic add rather than a shared line
// bouncing between cores. The slot choice only needs to be stable between
// enter and leave, which hold the slot pointer.
//
// Cost per operation: two atomic adds on a mostly private cache line and one
// load of a flag that is written once. Close polls (it is rare; operations
// are short).
type opGuard struct {
	closed atomic.Bool
	shift  uint // 64 - log2(len(slots))
	slots  []guardSlot
}

type guardSlot struct {
	n atomic.Int64
	_ cpu.CacheLinePad
}

func newOpGuard() opGuard {
	// About four slots per P keeps collisions rare; at most 256.
	n := min(max(4*runtime.GOMAXPROCS(0), 4), 256)
	lg := bits.Len(uint(n - 1))
	return opGuard{shift: uint(64 - lg), slots: make([]guardSlot, 1<<lg)}
}

// enter registers an operation. It returns nil when the memtable is closed;
// otherwise the caller must pass the slot to leave when it is done.
func (g *opGuard) enter() *guardSlot {
	var probe byte
	// Fibonacci hashing of the stack address at 1 KiB granularity.
	h := uint64(uintptr(unsafe.Pointer(&probe))>>10) * 0x9e3779b97f4a7c15
	s := &g.slots[h>>g.shift]
	s.n.Add(1)
	if g.closed.Load() {
		s.n.Add(-1)
		return nil
	}
	return s
}

func (*opGuard) leave(s *guardSlot) { s.n.Add(-1) }

// close stops new operations and waits for those in flight. It must be called
// once.
func (g *opGuard) close() {
	g.closed.Store(true)
	for spins := 0; ; spins++ {
		busy := false
		for i := range g.slots {
			if g.slots[i].n.Load() != 0 {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
		if spins < 64 {
			runtime.Gosched()
		} else {
			time.Sleep(min(time.Duration(spins-63)*time.Microsecond, time.Millisecond))
		}
	}
}
