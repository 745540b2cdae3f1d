package writepath

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// TCPServerOptions configure ListenTCP and ServeTCP.
type TCPServerOptions struct {
	// Logger receives one record per connection that ends in an error
	// (garbage, truncated or oversized frames, broken sockets); nil
	// discards. The server keeps serving other connections.
	Logger *slog.Logger
	// MaxFrame limits a request frame's payload (default DefaultMaxFrame).
	MaxFrame int
}

// TCPServer serves one Server over TCP (protocol in frame.go). Each
// connection has a reader goroutine that decodes frames and hands requests
// to the server's queue, and a writer goroutine that sends responses,
// batching them into one write while more are ready. Requests on one
// connection are pipelined; responses may come back out of order.
//
// Concurrency: safe for concurrent use. Lifetime: until Close, which closes
// the listener and every connection (not the Server).
type TCPServer struct {
	s      *Server
	ln     net.Listener
	opts   TCPServerOptions
	log    *slog.Logger
	mu     sync.Mutex
	conns  map[*tcpConn]struct{}
	closed bool
	wg     sync.WaitGroup

	connErrors atomic.Int64
}

// ListenTCP listens on addr ("" = "127.0.0.1:0") and serves s.
func ListenTCP(s *Server, addr string, opts TCPServerOptions) (*TCPServer, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return ServeTCP(s, ln, opts), nil
}

// ServeTCP serves s on ln until Close.
func ServeTCP(s *Server, ln net.Listener, opts TCPServerOptions) *TCPServer {
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = DefaultMaxFrame
	}
	ts := &TCPServer{s: s, ln: ln, opts: opts, log: opts.Logger, conns: map[*tcpConn]struct{}{}}
	if ts.log == nil {
		ts.log = slog.New(slog.DiscardHandler)
	}
	ts.wg.Add(1)
	go ts.accept()
	return ts
}

// Addr is the listening address.
func (ts *TCPServer) Addr() net.Addr { return ts.ln.Addr() }

// ConnErrors counts connections closed because of an error.
func (ts *TCPServer) ConnErrors() int64 { return ts.connErrors.Load() }

func (ts *TCPServer) accept() {
	defer ts.wg.Done()
	for {
		c, err := ts.ln.Accept()
		if err != nil {
			ts.mu.Lock()
			closed := ts.closed
			ts.mu.Unlock()
			if closed {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			ts.log.Error("writepath: accept failed; listener stops", "err", err)
			return
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		conn := &tcpConn{ts: ts, c: c, out: make(chan *[]byte, 256), quit: make(chan struct{})}
		ts.mu.Lock()
		if ts.closed {
			ts.mu.Unlock()
			c.Close()
			return
		}
		ts.conns[conn] = struct{}{}
		ts.mu.Unlock()
		ts.wg.Add(2)
		go conn.read()
		go conn.write()
	}
}

// Close stops accepting, closes every connection and waits for their
// goroutines (requests already in the server's queue still complete there).
func (ts *TCPServer) Close() error {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil
	}
	ts.closed = true
	conns := make([]*tcpConn, 0, len(ts.conns))
	for c := range ts.conns {
		conns = append(conns, c)
	}
	ts.mu.Unlock()
	err := ts.ln.Close()
	for _, c := range conns {
		c.fail(nil)
	}
	ts.wg.Wait()
	return err
}

// tcpConn is one server-side connection.
type tcpConn struct {
	ts   *TCPServer
	c    net.Conn
	out  chan *[]byte
	quit chan struct{}
	once sync.Once
}

var frameBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getFrameBuf() *[]byte { return frameBufPool.Get().(*[]byte) }

func putFrameBuf(b *[]byte) {
	if cap(*b) <= 256<<10 {
		*b = (*b)[:0]
		frameBufPool.Put(b)
	}
}

// fail closes the connection once, logging err (nil: server shutdown).
func (tc *tcpConn) fail(err error) {
	tc.once.Do(func() {
		remote := tc.c.RemoteAddr().String()
		switch {
		case err == nil:
		case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
			tc.ts.log.Info("writepath: connection closed by peer", "remote", remote)
		default:
			tc.ts.connErrors.Add(1)
			tc.ts.log.Error("writepath: closing connection", "remote", remote, "err", err)
		}
		close(tc.quit)
		tc.c.Close()
		tc.ts.mu.Lock()
		delete(tc.ts.conns, tc)
		tc.ts.mu.Unlock()
	})
}

func (tc *tcpConn) read() {
	defer tc.ts.wg.Done()
	br := bufio.NewReaderSize(tc.c, 64<<10)
	maxp := tc.ts.opts.MaxFrame
	// Handshake: the first frame must be a Hello.
	f, _, err := ReadFrame(br, make([]byte, 0, 16), 64)
	if err != nil {
		tc.fail(fmt.Errorf("handshake: %w", err))
		return
	}
	if f.Type != ftHello || string(f.Payload) != protoMagic {
		tc.fail(fmt.Errorf("%w: handshake: frame type %#x payload %q", ErrProtocol, f.Type, f.Payload))
		return
	}
	hello := binary.LittleEndian.AppendUint32(nil, uint32(tc.ts.s.Regions()))
	hello = binary.LittleEndian.AppendUint32(hello, uint32(maxp))
	fb := getFrameBuf()
	*fb = AppendFrame((*fb)[:0], ftHelloOK, f.ID, hello)
	if !tc.send(fb) {
		return
	}
	for {
		pb := getFrameBuf()
		f, buf, err := ReadFrame(br, (*pb)[:0], maxp)
		*pb = buf
		if err != nil {
			putFrameBuf(pb)
			tc.fail(err)
			return
		}
		c := getCall()
		c.tc, c.id, c.pbuf, c.done = tc, f.ID, pb, tcpDone
		switch f.Type {
		case ftPut:
			c.op, c.payload = opPut, f.Payload
		case ftGet:
			c.op = opGet
			c.keys, err = decodeKeys(f.Payload, nil)
		default:
			err = fmt.Errorf("%w: unknown frame type %#x", ErrProtocol, f.Type)
		}
		if err == nil {
			err = tc.ts.s.submit(c)
			if err == nil {
				continue
			}
			if errors.Is(err, ErrClosed) {
				// The server is closed: answer, keep the connection.
				c.err = err
				tcpDone(c)
				continue
			}
		}
		putFrameBuf(pb)
		putCall(c)
		tc.fail(err)
		return
	}
}

// tcpDone encodes a call's response (on the handler goroutine) and queues
// it for the writer.
func tcpDone(c *call) {
	tc := c.tc
	if errors.Is(c.err, ErrMalformed) {
		// Garbage inside a well-formed frame: a protocol error.
		err := c.err
		putFrameBuf(c.pbuf)
		putCall(c)
		tc.fail(err)
		return
	}
	out := getFrameBuf()
	switch {
	case c.err != nil:
		var p [64]byte
		e := appendError(p[:0], c.err)
		*out = AppendFrame((*out)[:0], ftError, c.id, e)
	case c.op == opPut:
		*out = appendFrameHeader((*out)[:0], ftPutOK, c.id, 0)
	default:
		*out = AppendFrame((*out)[:0], ftGetOK, c.id, c.resp)
	}
	putFrameBuf(c.pbuf)
	putCall(c)
	tc.send(out)
}

func (tc *tcpConn) send(fb *[]byte) bool {
	select {
	case tc.out <- fb:
		return true
	case <-tc.quit:
		putFrameBuf(fb)
		return false
	}
}

func (tc *tcpConn) write() {
	defer tc.ts.wg.Done()
	bw := bufio.NewWriterSize(tc.c, 64<<10)
	for {
		select {
		case fb := <-tc.out:
			_, err := bw.Write(*fb)
			putFrameBuf(fb)
			if err == nil && len(tc.out) == 0 {
				err = bw.Flush()
			}
			if err != nil {
				tc.fail(fmt.Errorf("write: %w", err))
				return
			}
		case <-tc.quit:
			return
		}
	}
}

// TCPClientOptions configure DialTCP.
type TCPClientOptions struct {
	// MaxFrame limits a response frame's payload (default DefaultMaxFrame).
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
// (learnt at handshake) fail locally with ErrFrameTooLarge.
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
	typ     uint8
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
	if _, err := c.Write(AppendFrame(nil, ftHello, 0, []byte(protoMagic))); err != nil {
		c.Close()
		return nil, err
	}
	f, _, err := ReadFrame(c, nil, 64)
	if err == nil && (f.Type != ftHelloOK || len(f.Payload) < 8) {
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

func (t *TCPTransport) roundTrip(typ uint8, payload []byte) (resp []byte, err error) {
	r := &tcpReq{typ: typ, payload: payload, ch: make(chan struct{}, 1)}
	if err := t.start(r); err != nil {
		return nil, err
	}
	<-r.ch
	return r.resp, r.err
}

// Put implements Transport.
func (t *TCPTransport) Put(b *Batch) error {
	_, err := t.roundTrip(ftPut, b.Bytes())
	return err
}

// PutAsync implements Transport.
func (t *TCPTransport) PutAsync(b *Batch, done func(error)) {
	r := &tcpReq{typ: ftPut, payload: b.Bytes(), cb: done}
	if err := t.start(r); err != nil {
		done(err)
	}
}

// Get implements Transport.
func (t *TCPTransport) Get(keys [][]byte) ([][]byte, error) {
	resp, err := t.roundTrip(ftGet, appendKeys(nil, keys))
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
		case ftPutOK:
		case ftGetOK:
			r.resp = append([]byte(nil), f.Payload...)
		case ftError:
			r.err = decodeError(f.Payload)
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
