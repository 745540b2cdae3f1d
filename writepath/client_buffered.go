package writepath

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Buffered is HBase's BufferedMutator: Puts are encoded into a client buffer
// that is handed to a background sender goroutine when it reaches
// BufferSize, every FlushInterval, and on Flush and Close. With autoflush
// (PathAutoFlush) every Put is handed over at once and Put waits for its
// ack: the extra buffer copy and goroutine handoff per Put are the overhead
// HBASE-18500 removed from HTable.put.
//
// Errors: a failed send is returned by the next Put or Flush (once), and
// every failed send is reported again, joined, by Close with the number of
// entries it lost; nothing accepted is dropped silently. Sends are issued
// in order, one at a time.
//
// Concurrency: safe for concurrent use. Lifetime: until Close, which sends
// the buffer, waits for the sender and stops the interval timer. Limits: at
// most MaxSends full buffers wait for the sender before Put blocks.
type Buffered struct {
	t         Transport
	opts      ClientOptions
	autoflush bool

	mu      sync.Mutex
	cur     *Batch
	pending error   // first failed send not yet returned
	failed  []error // every failed send, for Close
	closed  bool

	sendq   chan *sendReq
	stopped chan struct{}
	tick    *time.Ticker
	tickEnd chan struct{}
	free    sync.Pool
}

type sendReq struct {
	b    *Batch // nil: a flush barrier
	done chan error
}

func newBuffered(t Transport, opts ClientOptions, autoflush bool) *Buffered {
	c := &Buffered{
		t:         t,
		opts:      opts,
		autoflush: autoflush,
		sendq:     make(chan *sendReq, opts.MaxSends),
		stopped:   make(chan struct{}),
	}
	c.free.New = func() any { return NewBatch(min(opts.BufferSize+opts.BufferSize/8, 4<<20)) }
	c.cur = c.newBatch()
	go c.sender()
	if opts.FlushInterval > 0 && !autoflush {
		c.tick = time.NewTicker(opts.FlushInterval)
		c.tickEnd = make(chan struct{})
		go c.ticker()
	}
	return c
}

func (c *Buffered) newBatch() *Batch { b := c.free.Get().(*Batch); b.Reset(); return b }

// sender issues the queued sends in order.
func (c *Buffered) sender() {
	defer close(c.stopped)
	for r := range c.sendq {
		if r.b == nil {
			r.done <- nil
			continue
		}
		err := c.t.Put(r.b)
		if err != nil {
			err = fmt.Errorf("writepath: buffered send of %d entries: %w", r.b.Len(), err)
			c.mu.Lock()
			if c.pending == nil {
				c.pending = err
			}
			c.failed = append(c.failed, err)
			c.mu.Unlock()
		}
		c.free.Put(r.b)
		if r.done != nil {
			r.done <- err
		}
	}
}

func (c *Buffered) ticker() {
	for {
		select {
		case <-c.tick.C:
			c.mu.Lock()
			if !c.closed && c.cur.Len() > 0 {
				b := c.cur
				c.cur = c.newBatch()
				c.sendq <- &sendReq{b: b}
			}
			c.mu.Unlock()
		case <-c.tickEnd:
			return
		}
	}
}

// takePending returns and clears the first unreported send error.
func (c *Buffered) takePending() error {
	err := c.pending
	c.pending = nil
	return err
}

// Put implements Client.
func (c *Buffered) Put(key, value []byte) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if err := c.takePending(); err != nil {
		c.mu.Unlock()
		return err
	}
	c.cur.Add(key, value)
	if c.autoflush {
		b := c.cur
		c.cur = c.newBatch()
		done := make(chan error, 1)
		c.sendq <- &sendReq{b: b, done: done}
		c.mu.Unlock()
		if err := <-done; err != nil {
			c.mu.Lock()
			if c.pending == err {
				c.pending = nil // reported here
			}
			c.mu.Unlock()
			return err
		}
		return nil
	}
	if c.cur.Size() >= c.opts.BufferSize {
		b := c.cur
		c.cur = c.newBatch()
		// Sending under mu keeps sends in Put order; it blocks only while
		// MaxSends buffers already wait for the sender.
		c.sendq <- &sendReq{b: b}
	}
	c.mu.Unlock()
	return nil
}

// Flush implements Client.
func (c *Buffered) Flush() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	done := c.flushLocked()
	c.mu.Unlock()
	<-done
	c.mu.Lock()
	err := c.takePending()
	c.mu.Unlock()
	return err
}

// flushLocked queues the buffer and a barrier; the channel fires once
// everything queued before it has been sent.
func (c *Buffered) flushLocked() chan error {
	if c.cur.Len() > 0 {
		b := c.cur
		c.cur = c.newBatch()
		c.sendq <- &sendReq{b: b}
	}
	done := make(chan error, 1)
	c.sendq <- &sendReq{done: done}
	return done
}

// Close implements Client: it sends the buffer, waits for every send, and
// returns every failed send (errors.Join), reported before or not.
func (c *Buffered) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.tick != nil {
		c.tick.Stop()
		close(c.tickEnd)
	}
	done := c.flushLocked()
	c.closed = true
	c.mu.Unlock()
	<-done
	close(c.sendq)
	<-c.stopped
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.failed...)
}
