// The record reader frames a gcstress child's stream and keeps what a child
// prints beside it: Reader reads newline-terminated records of at most a
// limit, checked before a record is buffered, and Capture keeps the first
// and last bytes of an output of any length and counts all of it.
//
// Invariants: a Reader never buffers more than its limit plus one
// bufio buffer, skips an over-long record to its newline and goes on, and
// drops a last record without its newline; a Capture holds at most twice
// its keep, and its Write never fails nor blocks for long (a child writing
// through a pipe is never held up). Reader is not safe for concurrent use;
// Capture is.

package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Reader reads a stream's records (lines without their newline),
// each at most limit bytes, checked before it is buffered. Not safe for
// concurrent use.
type Reader struct {
	br    *bufio.Reader
	limit int
	buf   []byte

	tooLong, fault error // returned for a record over the limit; wrapped around a read error
}

// NewReader reads r's records of at most limit bytes; tooLong is the error
// for a longer one, and a read error is returned wrapped in fault.
func NewReader(r io.Reader, limit int, tooLong, fault error) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), limit: limit, tooLong: tooLong, fault: fault}
}

// Next returns the next record, valid until the next call. At the end of
// the stream it returns io.EOF; a last record without its newline (a child
// killed while writing) is dropped. A record over the limit is skipped up
// to its newline and reported as the Reader's tooLong error; reading may go on.
func (r *Reader) Next() ([]byte, error) {
	r.buf = r.buf[:0]
	over := false
	for {
		frag, err := r.br.ReadSlice('\n')
		if !over && len(r.buf)+len(frag) > r.limit+1 { // +1: the newline
			over, r.buf = true, r.buf[:0]
		}
		if !over {
			r.buf = append(r.buf, frag...)
		}
		switch {
		case err == nil && over:
			return nil, r.tooLong
		case err == nil:
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("%w: read the child's stream: %v", r.fault, err)
		}
	}
}

// Capture keeps the first and last keep bytes written to it and counts
// them all. Write never fails and never blocks for long, so a child
// writing to it through a pipe is never held up. Safe for concurrent use.
type Capture struct {
	mu    sync.Mutex
	keep  int
	head  []byte
	tail  []byte // a ring of up to keep bytes; pos is where the next byte goes
	pos   int
	total int64
}

// NewCapture keeps the first and last keep bytes.
func NewCapture(keep int) *Capture { return &Capture{keep: keep} }

// Write keeps what p adds to the head and the tail; it never fails.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.keep - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > c.keep {
		p = p[len(p)-c.keep:]
	}
	for len(p) > 0 {
		if len(c.tail) < c.keep {
			k := min(c.keep-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			c.pos = len(c.tail) % c.keep
			continue
		}
		k := copy(c.tail[c.pos:], p)
		p = p[k:]
		c.pos = (c.pos + k) % c.keep
	}
	return n, nil
}

// Total is how many bytes were written.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// lastBytes returns the last bytes written after the head, oldest first.
func (c *Capture) lastBytes() []byte {
	if len(c.tail) < c.keep {
		return append([]byte(nil), c.tail...)
	}
	return append(append([]byte(nil), c.tail[c.pos:]...), c.tail[:c.pos]...)
}

// Tail returns the last n <= keep bytes written (fewer if fewer were): the
// ring alone once it is full, else head and ring, which then adjoin.
func (c *Capture) Tail(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := append(append([]byte(nil), c.head...), c.lastBytes()...)
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return string(all)
}

// Contents is what the Capture file holds: the head, a line saying how
// many bytes were left out when any were, and the tail.
func (c *Capture) Contents() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b bytes.Buffer
	b.Write(c.head)
	tail := c.lastBytes()
	if left := c.total - int64(len(c.head)) - int64(len(tail)); left > 0 {
		fmt.Fprintf(&b, "\n[gcstress: %d bytes left out: the first and last %d bytes of %d are kept]\n", left, c.keep, c.total)
	}
	b.Write(tail)
	return b.Bytes()
}
