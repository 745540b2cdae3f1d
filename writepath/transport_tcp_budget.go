package writepath

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// inFlight is a byte budget split in two: amounts of at most readChunk
// bytes are charged to small (an eighth), larger ones to large, so that
// large charges held by slow or hostile clients never hold up small ones.
type inFlight struct{ small, large byteBudget }

func (f *inFlight) init(name string, limit int64) {
	f.small.limit = limit / 8
	f.large.limit = limit - f.small.limit
	f.small.name, f.large.name = name, name
}

func (f *inFlight) part(n int64) *byteBudget {
	if n <= readChunk {
		return &f.small
	}
	return &f.large
}

func (f *inFlight) acquire(n int64, quit <-chan struct{}, deadline time.Time) error {
	return f.part(n).acquire(n, quit, deadline)
}

func (f *inFlight) used() int64 { return f.small.used.Load() + f.large.used.Load() }

func (f *inFlight) release(n int64) {
	if n > 0 {
		f.part(n).release(n)
	}
}

// byteBudget is a first-come first-served counting semaphore of bytes. An
// amount larger than the limit is granted when nothing else is charged.
type byteBudget struct {
	name  string // the option it enforces, for errors
	limit int64
	used  atomic.Int64 // written under mu; read without it by Stats
	mu    sync.Mutex
	queue []*budgetWaiter
}

// budgetWaiter is one queued request for n bytes; ready closes once they
// are charged.
type budgetWaiter struct {
	n       int64
	ready   chan struct{}
	granted bool
}

var errBudgetWait = errors.New("timed out waiting for payload budget")

func (b *byteBudget) fitsLocked(n int64) bool {
	u := b.used.Load()
	return u+n <= b.limit || u == 0
}

// grantLocked charges the waiters at the head of the queue that fit.
func (b *byteBudget) grantLocked() {
	for len(b.queue) > 0 && b.fitsLocked(b.queue[0].n) {
		w := b.queue[0]
		b.used.Add(w.n)
		w.granted = true
		close(w.ready)
		b.queue[0] = nil
		b.queue = b.queue[1:]
	}
}

// tryAcquire charges n bytes if they fit now and nobody waits.
func (b *byteBudget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 && b.fitsLocked(n) {
		b.used.Add(n)
		return true
	}
	return false
}

// enqueue asks for n bytes: they are charged when w.ready closes (perhaps
// at once). Withdraw with cancel.
func (b *byteBudget) enqueue(n int64) *budgetWaiter {
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, w)
	b.grantLocked()
	b.mu.Unlock()
	return w
}

// cancel withdraws w; bytes already granted to it are released.
func (b *byteBudget) cancel(w *budgetWaiter) {
	b.mu.Lock()
	if w.granted {
		b.used.Add(-w.n)
	} else {
		for i, q := range b.queue {
			if q == w {
				b.queue = append(b.queue[:i], b.queue[i+1:]...)
				break
			}
		}
	}
	b.grantLocked() // w may have held back smaller requests behind it
	b.mu.Unlock()
}

// acquire charges n bytes, waiting behind earlier waiters until they fit,
// until deadline or until quit closes.
func (b *byteBudget) acquire(n int64, quit <-chan struct{}, deadline time.Time) error {
	if b.tryAcquire(n) {
		return nil
	}
	w := b.enqueue(n)
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-w.ready:
		return nil
	case <-quit:
		b.cancel(w)
		return ErrClosed
	case <-timer.C:
		b.cancel(w)
		return fmt.Errorf("%w (%s, %d B part)", errBudgetWait, b.name, b.limit)
	}
}

func (b *byteBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used.Add(-n)
	b.grantLocked()
	b.mu.Unlock()
}
