package writepath

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"time"
)

// TCPClientOptions configure DialTCP.
type TCPClientOptions struct {
	// MaxFrame limits a response frame's payload (default DefaultMaxFrame);
	// it must be at least the server's MaxReply, or a large Get reply
	// breaks the connection.
	MaxFrame int
	// DialTimeout bounds connecting and the handshake (default 5 s).
	DialTimeout time.Duration
}

// TCPTransport is the client side of the TCP transport: one connection,
// requests pipelined with ids, a writer goroutine that coalesces frames into
// few writes and a reader goroutine that completes requests.
//
// Concurrency: safe for concurrent use. Lifetime: until Close or until the
// connection breaks; then every request in flight fails with ErrConnLost
// (ErrClosed after Close) and later ones too (no reconnect). Limits: one
// connection; ids are 32-bit and wrap; frames over the server's MaxFrame
// (learnt at handshake) fail locally with ErrFrameTooLarge; a Get whose
// reply exceeds the server's MaxReply fails with ErrReplyTooLarge and the
// connection stays usable. DialTCP fails with ErrTooManyConns when the
// server is at its connection limit.
type TCPTransport struct {
	c        net.Conn
	regions  int
	maxFrame int

	out  chan *tcpReq
	quit chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	pending map[uint32]*tcpReq
	nextID  uint32
	err     error
}

type tcpReq struct {
	typ     FrameType
	id      uint32
	payload []byte
	ch      chan struct{}
	cb      func(error)
	err     error
	resp    []byte
}

// A tcpReq is not pooled: after a shutdown completes it, the writer goroutine
// may still be reading it from the out queue, so it must not be reused.

// DialTCP connects to a TCPServer at addr and performs the handshake.
func DialTCP(addr string, opts TCPClientOptions) (*TCPTransport, error) {
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = DefaultMaxFrame
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 5 * time.Second
	}
	c, err := net.DialTimeout("tcp", addr, opts.DialTimeout)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	c.SetDeadline(time.Now().Add(opts.DialTimeout))
	if _, err := c.Write(AppendFrame(nil, FrameHello, 0, []byte(ProtocolMagic))); err != nil {
		c.Close()
		return nil, err
	}
	f, _, err := ReadFrame(c, nil, 4096)
	if err == nil && f.Type == FrameError {
		err = DecodeError(f.Payload) // e.g. ErrTooManyConns
	} else if err == nil && (f.Type != FrameHelloOK || len(f.Payload) < 8) {
		err = fmt.Errorf("%w: bad handshake reply type %#x", ErrProtocol, f.Type)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	t := &TCPTransport{
		c:        c,
		regions:  int(binary.LittleEndian.Uint32(f.Payload)),
		maxFrame: opts.MaxFrame,
		out:      make(chan *tcpReq, 1024),
		quit:     make(chan struct{}),
		pending:  map[uint32]*tcpReq{},
	}
	if sm := int(binary.LittleEndian.Uint32(f.Payload[4:])); sm < t.maxFrame {
		t.maxFrame = sm // never send what the server would reject
	}
	t.wg.Add(2)
	go t.reader()
	go t.writer()
	return t, nil
}

// Regions implements Transport.
func (t *TCPTransport) Regions() int { return t.regions }

// start registers r and queues it for the writer.
func (t *TCPTransport) start(r *tcpReq) error {
	if len(r.payload) > t.maxFrame {
		return fmt.Errorf("%w: %d B request, limit %d B", ErrFrameTooLarge, len(r.payload), t.maxFrame)
	}
	t.mu.Lock()
	if t.err != nil {
		err := t.err
		t.mu.Unlock()
		return err
	}
	t.nextID++
	r.id = t.nextID
	t.pending[r.id] = r
	t.mu.Unlock()
	select {
	case t.out <- r:
		return nil
	case <-t.quit:
		// The reader or Close failed every pending request, r included,
		// or will: wait for that to happen through r's completion.
		return nil
	}
}

func (t *TCPTransport) roundTrip(typ FrameType, payload []byte) (resp []byte, err error) {
	r := &tcpReq{typ: typ, payload: payload, ch: make(chan struct{}, 1)}
	if err := t.start(r); err != nil {
		return nil, err
	}
	<-r.ch
	return r.resp, r.err
}

// Put implements Transport.
func (t *TCPTransport) Put(b *Batch) error {
	_, err := t.roundTrip(FramePut, b.Bytes())
	return err
}

// PutAsync implements Transport.
func (t *TCPTransport) PutAsync(b *Batch, done func(error)) {
	r := &tcpReq{typ: FramePut, payload: b.Bytes(), cb: done}
	if err := t.start(r); err != nil {
		done(err)
	}
}

// Get implements Transport.
func (t *TCPTransport) Get(keys [][]byte) ([][]byte, error) {
	resp, err := t.roundTrip(FrameGet, appendKeys(nil, keys))
	if err != nil {
		return nil, err
	}
	vals, err := decodeGetResults(resp, make([][]byte, 0, len(keys)))
	if err == nil && len(vals) != len(keys) {
		err = fmt.Errorf("%w: %d results for %d keys", ErrProtocol, len(vals), len(keys))
	}
	return vals, err
}

func (t *TCPTransport) writer() {
	defer t.wg.Done()
	bw := bufio.NewWriterSize(t.c, 64<<10)
	var hdr [frameHeader]byte
	for {
		select {
		case r := <-t.out:
			h := appendFrameHeader(hdr[:0], r.typ, r.id, len(r.payload))
			bw.Write(h)
			_, err := bw.Write(r.payload)
			if err == nil && len(t.out) == 0 {
				err = bw.Flush()
			}
			if err != nil {
				t.shutdown(fmt.Errorf("%w: write: %v", ErrConnLost, err))
				return
			}
		case <-t.quit:
			return
		}
	}
}

func (t *TCPTransport) reader() {
	defer t.wg.Done()
	br := bufio.NewReaderSize(t.c, 64<<10)
	var buf []byte
	for {
		f, nb, err := ReadFrame(br, buf, t.maxFrame)
		buf = nb
		if err != nil {
			t.shutdown(fmt.Errorf("%w: %v", ErrConnLost, err))
			return
		}
		t.mu.Lock()
		r, ok := t.pending[f.ID]
		delete(t.pending, f.ID)
		t.mu.Unlock()
		if !ok {
			t.shutdown(fmt.Errorf("%w: response to unknown request %d", ErrProtocol, f.ID))
			return
		}
		switch f.Type {
		case FramePutOK:
		case FrameGetOK:
			r.resp = append([]byte(nil), f.Payload...)
		case FrameError:
			r.err = DecodeError(f.Payload)
		default:
			r.err = fmt.Errorf("%w: response type %#x", ErrProtocol, f.Type)
		}
		r.complete()
	}
}

func (r *tcpReq) complete() {
	if r.cb != nil {
		r.cb(r.err)
		return
	}
	r.ch <- struct{}{}
}

// shutdown fails every pending request with err and closes the connection.
func (t *TCPTransport) shutdown(err error) {
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return
	}
	t.err = err
	pend := t.pending
	t.pending = map[uint32]*tcpReq{}
	close(t.quit)
	t.mu.Unlock()
	t.c.Close()
	for _, r := range pend {
		r.err = err
		r.complete()
	}
}

// Close implements Transport: requests in flight fail with ErrClosed.
func (t *TCPTransport) Close() error {
	t.shutdown(ErrClosed)
	t.wg.Wait()
	return nil
}
