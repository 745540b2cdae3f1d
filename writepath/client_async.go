package writepath

import (
	"errors"
	"sync"
)

// Async pipelines Puts: each Put is its own request, sent without waiting
// for the previous ones, with at most MaxInFlight requests outstanding (Put
// blocks beyond that). Completion is reported by callback (PutAsync), by
// future (PutFuture), or, for plain Put, by the next Put, Flush or Close
// returning the first failure: HBase's AsyncTable / PE asyncRandomWrite.
//
// Concurrency: safe for concurrent use. Lifetime: until Close, which waits
// for every request in flight. Callbacks run on transport goroutines and
// must not block for long.
type Async struct {
	t    Transport
	sem  chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error // first failure of a plain Put not yet reported
	all  []error
	done bool
}

func newAsync(t Transport, opts ClientOptions) *Async {
	return &Async{t: t, sem: make(chan struct{}, opts.MaxInFlight)}
}

// NewAsync returns an async client over t (MaxInFlight from opts).
func NewAsync(t Transport, opts ClientOptions) (*Async, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	return newAsync(t, opts), nil
}

// PutAsync sends one Put and calls cb (if not nil) exactly once with its
// outcome. It blocks while MaxInFlight requests are outstanding and returns
// ErrClosed (without calling cb) after Close.
func (c *Async) PutAsync(key, value []byte, cb func(error)) error {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	c.sem <- struct{}{}
	b := getBatch()
	b.Add(key, value)
	c.t.PutAsync(b, func(err error) {
		putBatch(b)
		<-c.sem
		if cb != nil {
			cb(err)
		} else if err != nil {
			c.mu.Lock()
			if c.err == nil {
				c.err = err
			}
			c.all = append(c.all, err)
			c.mu.Unlock()
		}
		c.wg.Done()
	})
	return nil
}

// Future is the outcome of one PutFuture.
type Future struct {
	done chan struct{}
	err  error
}

// Wait blocks until the Put is acknowledged and returns its error.
func (f *Future) Wait() error { <-f.done; return f.err }

// Done is closed once the Put completed.
func (f *Future) Done() <-chan struct{} { return f.done }

// PutFuture sends one Put and returns its future.
func (c *Async) PutFuture(key, value []byte) *Future {
	f := &Future{done: make(chan struct{})}
	if err := c.PutAsync(key, value, func(err error) { f.err = err; close(f.done) }); err != nil {
		f.err = err
		close(f.done)
	}
	return f
}

// Put implements Client: it returns once the request is in flight; a
// failure surfaces on a later Put, Flush or Close.
func (c *Async) Put(key, value []byte) error {
	c.mu.Lock()
	err := c.err
	c.err = nil
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.PutAsync(key, value, nil)
}

// Flush implements Client: it waits for every request in flight.
func (c *Async) Flush() error {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return ErrClosed
	}
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	err := c.err
	c.err = nil
	c.mu.Unlock()
	return err
}

// Close implements Client: it waits for every request in flight and returns
// every failure of a plain Put (errors.Join).
func (c *Async) Close() error {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return ErrClosed
	}
	c.done = true
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.all...)
}
