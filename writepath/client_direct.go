package writepath

import "sync/atomic"

// Direct sends each Put as its own request and returns after the server's
// ack: HBase 2's HTable.put after HBASE-18500. No client-side state beyond
// a pooled encode buffer.
//
// Concurrency: safe for concurrent use; concurrent Puts are concurrent
// requests. Lifetime: until Close.
type Direct struct {
	t      Transport
	closed atomic.Bool
}

// NewDirect returns a direct client over t.
func NewDirect(t Transport) *Direct { return &Direct{t: t} }

// Put implements Client.
func (c *Direct) Put(key, value []byte) error {
	if c.closed.Load() {
		return ErrClosed
	}
	b := getBatch()
	b.Add(key, value)
	err := c.t.Put(b)
	putBatch(b)
	return err
}

// Flush implements Client (nothing is ever buffered).
func (c *Direct) Flush() error {
	if c.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Close implements Client.
func (c *Direct) Close() error {
	c.closed.Store(true)
	return nil
}
