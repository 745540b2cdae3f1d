package writepath

import (
	"fmt"
	"sync/atomic"
)

// InProc is the in-process transport: every request is handed to the
// server's request queue and served by a handler goroutine, so each costs a
// goroutine handoff both ways, like an RPC without the network. Payloads are
// passed by reference, never copied. A Get whose reply would exceed
// DefaultMaxReply fails with ErrReplyTooLarge, as over TCP.
//
// Concurrency: safe for concurrent use. Lifetime: until Close or the
// server's Close.
type InProc struct {
	s      *Server
	closed atomic.Bool
}

// NewInProc returns an in-process transport to s.
func NewInProc(s *Server) *InProc { return &InProc{s: s} }

// Regions implements Transport.
func (t *InProc) Regions() int { return t.s.Regions() }

func (t *InProc) check(size int) error {
	if t.closed.Load() {
		return ErrClosed
	}
	if size > DefaultMaxFrame {
		return fmt.Errorf("%w: %d B request", ErrFrameTooLarge, size)
	}
	return nil
}

// Put implements Transport.
func (t *InProc) Put(b *Batch) error {
	if err := t.check(b.Size()); err != nil {
		return err
	}
	c := getCall()
	c.op, c.payload, c.done = FramePut, b.Bytes(), syncDone
	if err := t.s.submit(c); err != nil {
		putCall(c)
		return err
	}
	<-c.ch
	err := c.err
	putCall(c)
	return err
}

// PutAsync implements Transport.
func (t *InProc) PutAsync(b *Batch, done func(error)) {
	if err := t.check(b.Size()); err != nil {
		done(err)
		return
	}
	c := getCall()
	c.op, c.payload, c.done, c.cb = FramePut, b.Bytes(), asyncDone, done
	if err := t.s.submit(c); err != nil {
		putCall(c)
		done(err)
	}
}

// Get implements Transport.
func (t *InProc) Get(keys [][]byte) ([][]byte, error) {
	if err := t.check(0); err != nil {
		return nil, err
	}
	c := getCall()
	c.op, c.keys, c.done = FrameGet, keys, syncDone
	if err := t.s.submit(c); err != nil {
		putCall(c)
		return nil, err
	}
	<-c.ch
	resp, err := c.resp, c.err
	putCall(c)
	if err != nil {
		return nil, err
	}
	return decodeGetResults(resp, make([][]byte, 0, len(keys)))
}

// Close implements Transport; it does not close the server.
func (t *InProc) Close() error {
	t.closed.Store(true)
	return nil
}
