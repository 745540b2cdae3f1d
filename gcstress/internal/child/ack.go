package child

import (
	"sync"
	"sync/atomic"
	"time"
)

// ackWindow is how far an insert may run ahead of the oldest one still in
// flight: far more than any scenario's writers.
const ackWindow = 1 << 16

// ackCounter is YCSB's acknowledged counter: the length of the prefix of
// record indexes whose inserts returned, so that a read of "the latest"
// never picks a record still being written (a miss that would be the
// harness's, not the engine's). Inserts complete out of order; ack marks
// one done and advances the prefix over every done one. Safe for
// concurrent use; ack waits while its index is a whole window ahead.
type ackCounter struct {
	n    atomic.Int64 // the prefix: records 0..n-1 are written
	mu   sync.Mutex   // advances n
	done [ackWindow]atomic.Bool
}

// start sets the prefix to n records (the preload).
func (a *ackCounter) start(n int64) { a.n.Store(n) }

// load is the prefix's length.
func (a *ackCounter) load() int64 { return a.n.Load() }

// ack records that the insert of index i returned.
func (a *ackCounter) ack(i int64) {
	for i-a.n.Load() >= ackWindow {
		time.Sleep(time.Millisecond) // its slot is a whole window ahead: wait for the oldest to land
	}
	a.done[i%ackWindow].Store(true)
	a.mu.Lock()
	for n := a.n.Load(); a.done[n%ackWindow].Load(); n++ {
		a.done[n%ackWindow].Store(false)
		a.n.Store(n + 1)
	}
	a.mu.Unlock()
}
