package writepath

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// tcpConn is one server-side connection.
//
// Flow control: pending counts requests read and not yet answered; held
// counts their payload bytes plus the bytes of built, unsent replies. The
// reader reads the next frame only while pending < MaxConnRequests,
// queued < MaxConnQueued and held < connCap; the writer and handlers wake it
// when they lower them. The
// out queue has room for MaxConnRequests replies plus the handshake's, so
// a handler's send never waits.
type tcpConn struct {
	ts      *TCPServer
	c       net.Conn
	out     chan outItem
	quit    chan struct{}
	wake    chan struct{} // capacity 1
	once    sync.Once
	pending atomic.Int64
	queued  atomic.Int64 // requests in the server's queue, not yet on a handler
	held    atomic.Int64
	peer    *tcpPeer // nil: no per-peer limits (not an IP peer)
	peerKey string

	outMu   sync.Mutex // send against the writer's exit
	outDone bool       // the writer exited; send releases instead
}

// outItem is one reply for the writer: an encoded frame, or a deferred Get
// whose reply the writer builds.
type outItem struct {
	fb     *[]byte
	c      *call
	held   int64 // bytes to take off held once written
	reply  int64 // bytes to give back to TCPServer.replies once written
	answer bool  // answers a request (counts in pending)
}

var errIdle = errors.New("idle timeout")

var frameBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func getFrameBuf() *[]byte { return frameBufPool.Get().(*[]byte) }

func putFrameBuf(b *[]byte) {
	if cap(*b) <= 256<<10 {
		*b = (*b)[:0]
		frameBufPool.Put(b)
	}
}

func (tc *tcpConn) connCap() int64 { return int64(max(tc.ts.opts.MaxFrame, tc.ts.opts.MaxReply)) }

// fail closes the connection once, logging err (nil: server shutdown).
func (tc *tcpConn) fail(err error) {
	tc.once.Do(func() {
		remote := tc.c.RemoteAddr().String()
		switch {
		case err == nil:
		case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
			tc.ts.log.Info("writepath: connection closed by peer", "remote", remote)
		case errors.Is(err, errIdle):
			tc.ts.log.Info("writepath: closing idle connection", "remote", remote)
		default:
			tc.ts.connErrors.Add(1)
			tc.ts.log.Error("writepath: closing connection", "remote", remote, "err", err)
		}
		close(tc.quit)
		tc.c.Close()
		tc.ts.forget(tc)
	})
}

func (tc *tcpConn) poke() {
	select {
	case tc.wake <- struct{}{}:
	default:
	}
}

// waitRoom waits until the connection may read another request.
func (tc *tcpConn) waitRoom() bool {
	limit, capb := int64(tc.ts.opts.MaxConnRequests), tc.connCap()
	qlimit := int64(tc.ts.opts.MaxConnQueued)
	for tc.pending.Load() >= limit || tc.queued.Load() >= qlimit || tc.held.Load() >= capb {
		select {
		case <-tc.wake:
		case <-tc.quit:
			return false
		}
	}
	return true
}

// awaitFrame waits for the first byte of the next frame (at most
// IdleTimeout when nothing is in flight) and returns the deadline by which
// the whole frame must have arrived.
func (tc *tcpConn) awaitFrame(br *bufio.Reader) (time.Time, error) {
	o := &tc.ts.opts
	if br.Buffered() == 0 {
		var dl time.Time
		if tc.pending.Load() == 0 {
			dl = time.Now().Add(o.IdleTimeout)
		}
		tc.c.SetReadDeadline(dl)
		if _, err := br.Peek(1); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				err = fmt.Errorf("%w: nothing for %v", errIdle, o.IdleTimeout)
			}
			return time.Time{}, err
		}
	}
	dl := time.Now().Add(o.ReadTimeout)
	tc.c.SetReadDeadline(dl)
	return dl, nil
}

func (tc *tcpConn) handshake(br *bufio.Reader) bool {
	tc.c.SetReadDeadline(time.Now().Add(tc.ts.opts.ReadTimeout))
	f, _, err := ReadFrame(br, make([]byte, 0, 16), 64)
	if err != nil {
		tc.fail(fmt.Errorf("handshake: %w", err))
		return false
	}
	if f.Type != FrameHello || string(f.Payload) != ProtocolMagic {
		tc.fail(fmt.Errorf("%w: handshake: frame type %#x payload %q", ErrProtocol, f.Type, f.Payload))
		return false
	}
	fb := getFrameBuf()
	*fb = AppendFrame((*fb)[:0], FrameHelloOK, f.ID, tc.ts.handshakeReply())
	tc.send(outItem{fb: fb})
	return true
}

func (tc *tcpConn) read() {
	defer tc.ts.wg.Done()
	br := bufio.NewReaderSize(tc.c, connReadBuf)
	if !tc.handshake(br) {
		return
	}
	for tc.waitRoom() {
		dl, err := tc.awaitFrame(br)
		if err != nil {
			tc.fail(err)
			return
		}
		pb := getFrameBuf()
		pr := payloadReader{tc: tc, dl: dl}
		f, buf, err := readFrame(br, (*pb)[:0], tc.ts.opts.MaxFrame, pr.charge, pr.chunk)
		*pb = buf
		if err == nil {
			err = tc.dispatch(f, pb, pr.charged)
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			err = pr.timeoutError(err)
		}
		if err != nil {
			tc.releaseRequest(pr.charged, true)
			putFrameBuf(pb)
			tc.fail(err)
			return
		}
	}
}

// payloadReader charges one frame's payload to the peer's share and the
// server's budget, and sets the read deadline of each chunk of a large
// payload from MinReadRate.
type payloadReader struct {
	tc      *tcpConn
	dl      time.Time // the frame's ReadTimeout deadline
	charged int
	t0      time.Time // when the charge was granted
	rateDL  bool      // the deadline set last is MinReadRate's, before dl
}

func (pr *payloadReader) charge(n int) error {
	tc := pr.tc
	if err := tc.acquire(int64(n), pr.dl); err != nil {
		return err
	}
	pr.charged = n
	pr.t0 = time.Now()
	tc.held.Add(int64(n))
	return nil
}

// chunk (before the payload's bytes up to end are read) moves the read
// deadline of a payload over readChunk to 1 s + end/MinReadRate after the
// charge, never past the frame's deadline.
func (pr *payloadReader) chunk(end int) {
	if pr.charged <= readChunk {
		return
	}
	rate := float64(pr.tc.ts.opts.MinReadRate)
	d := pr.t0.Add(largeGrace + time.Duration(float64(end)/rate*float64(time.Second)))
	pr.rateDL = d.Before(pr.dl)
	if !pr.rateDL {
		d = pr.dl
	}
	pr.tc.c.SetReadDeadline(d)
}

func (pr *payloadReader) timeoutError(err error) error {
	o := &pr.tc.ts.opts
	if pr.rateDL {
		return fmt.Errorf("%d B payload arriving slower than MinReadRate %d B/s: %w", pr.charged, o.MinReadRate, err)
	}
	return fmt.Errorf("frame incomplete after ReadTimeout %v: %w", o.ReadTimeout, err)
}

// acquire charges n payload bytes to the connection's peer, then to the
// server: a peer over its share waits in its own queue, ahead of nobody
// else's requests.
func (tc *tcpConn) acquire(n int64, dl time.Time) error {
	if p := tc.peer; p != nil {
		if err := p.budget.acquire(n, tc.quit, dl); err != nil {
			return err
		}
	}
	if err := tc.ts.budget.acquire(n, tc.quit, dl); err != nil {
		if p := tc.peer; p != nil {
			p.budget.release(n)
		}
		return err
	}
	return nil
}

// dispatch hands one request frame to the server; an error closes the
// connection (the caller releases the frame).
func (tc *tcpConn) dispatch(f Frame, pb *[]byte, charged int) error {
	c := getCall()
	c.tc, c.id, c.pbuf, c.done, c.picked, c.charged = tc, f.ID, pb, tcpDone, tcpPicked, charged
	var err error
	switch f.Type {
	case FramePut:
		c.op, c.payload = FramePut, f.Payload
	case FrameGet:
		c.op, c.maxReply, c.respHeader, c.admit = FrameGet, tc.ts.opts.MaxReply, frameHeader, tcpAdmit
		c.keys, err = decodeKeys(f.Payload, nil)
	default:
		err = fmt.Errorf("%w: unknown frame type %#x", ErrProtocol, f.Type)
	}
	if err != nil {
		putCall(c)
		return err
	}
	tc.pending.Add(1)
	tc.queued.Add(1)
	if err := tc.ts.s.submit(c); err != nil {
		// The server is closed: answer, keep the connection.
		tcpPicked(c)
		c.err = err
		tcpDone(c)
	}
	return nil
}

// tcpPicked (on the handler, as it takes the call off the server's queue)
// lets the connection queue another request.
func tcpPicked(c *call) {
	if c.tc.queued.Add(-1) < int64(c.tc.ts.opts.MaxConnQueued) {
		c.tc.poke()
	}
}

// releaseRequest gives back a request's payload bytes: to the server-wide
// budget and, if conn, to the connection's held bytes.
func (tc *tcpConn) releaseRequest(charged int, conn bool) {
	tc.ts.budget.release(int64(charged))
	if p := tc.peer; p != nil {
		p.budget.release(int64(charged))
	}
	if conn && charged > 0 {
		tc.held.Add(-int64(charged))
		tc.poke()
	}
}

// tcpAdmit (on the handler) lets a Get reply of size bytes be built now if
// it fits the server's reply budget without waiting, and the connection's
// byte limit next to what the connection holds besides this request (a
// lone reply always fits). Otherwise the writer builds it once it fits.
func tcpAdmit(c *call, size int) bool {
	tc, n := c.tc, int64(size)
	if tc.held.Add(n)-int64(c.charged) > tc.connCap() {
		tc.held.Add(-n)
		return false
	}
	if !tc.ts.replies.part(n).tryAcquire(n) {
		tc.held.Add(-n)
		return false
	}
	c.replyCharge = size
	return true
}

// tcpDone encodes a call's response (on the handler goroutine) and queues
// it for the writer.
func tcpDone(c *call) {
	tc := c.tc
	rc := int64(c.replyCharge)
	if c.err != nil && rc > 0 { // admitted, then failed to build
		tc.held.Add(-rc)
		tc.ts.replies.release(rc)
		rc = 0
	}
	if errors.Is(c.err, ErrMalformed) {
		// Garbage inside a well-formed frame: a protocol error.
		err := c.err
		tc.releaseRequest(c.charged, true)
		putFrameBuf(c.pbuf)
		putCall(c)
		tc.fail(err)
		return
	}
	if c.deferred {
		// The writer builds the reply; the keys stay charged to the
		// connection, not to the server-wide budget.
		tc.releaseRequest(c.charged, false)
		tc.send(outItem{c: c, held: int64(c.charged), answer: true})
		return
	}
	var out *[]byte
	switch {
	case c.err != nil:
		var p [64]byte
		out = getFrameBuf()
		*out = AppendFrame((*out)[:0], FrameError, c.id, appendError(p[:0], c.err))
	case c.op == FramePut:
		out = getFrameBuf()
		*out = appendFrameHeader((*out)[:0], FramePutOK, c.id, 0)
	default:
		// serveGet left frameHeader bytes before the results.
		resp := c.resp
		appendFrameHeader(resp[:0], FrameGetOK, c.id, len(resp)-frameHeader)
		out = &resp
	}
	tc.releaseRequest(c.charged, true)
	putFrameBuf(c.pbuf)
	putCall(c)
	tc.send(outItem{fb: out, held: rc, reply: rc, answer: true})
}

// send queues it for the writer. The queue has room for every request the
// reader admitted; once the writer exited, the reply is dropped.
func (tc *tcpConn) send(it outItem) {
	tc.outMu.Lock()
	defer tc.outMu.Unlock()
	if tc.outDone {
		tc.drop(it)
		return
	}
	select {
	case tc.out <- it:
	default:
		panic("writepath: TCP reply queue full: more replies than admitted requests")
	}
}

// drop gives back what an unsent reply holds.
func (tc *tcpConn) drop(it outItem) {
	if it.fb != nil {
		putFrameBuf(it.fb)
	}
	if it.c != nil {
		putFrameBuf(it.c.pbuf)
		putCall(it.c)
	}
	tc.ts.replies.release(it.reply)
}

// buildDeferred builds, on the writer, the reply of a Get that tcpAdmit
// deferred, once size bytes of reply budget were granted for it.
func (tc *tcpConn) buildDeferred(c *call, size int) *[]byte {
	s := tc.ts.s
	out := getFrameBuf()
	*out = appendFrameHeader((*out)[:0], FrameGetOK, c.id, size)
	var err error
	*out, err = s.appendGetResults(*out, c.keys, c.maxReply)
	if err == nil && len(*out)-frameHeader != size {
		// Values changed since they were sized: fix the length.
		binary.LittleEndian.PutUint32(*out, uint32(5+len(*out)-frameHeader))
	}
	if err != nil {
		var p [64]byte
		*out = AppendFrame((*out)[:0], FrameError, c.id, appendError(p[:0], err))
	}
	putFrameBuf(c.pbuf)
	putCall(c)
	return out
}

// finish takes a written reply off the connection's counts.
func (tc *tcpConn) finish(it outItem) {
	if it.held != 0 {
		tc.held.Add(-it.held)
	}
	tc.ts.replies.release(it.reply)
	if it.answer {
		tc.pending.Add(-1)
	}
	tc.poke()
}

// connWriter is the state of a connection's writer goroutine: deferred
// Gets wait in order for reply budget (one waiter, for the first) while
// the other replies go on.
type connWriter struct {
	tc      *tcpConn
	bw      *bufio.Writer
	dl      time.Time
	waiting []outItem
	w       *budgetWaiter // for waiting[0]
	wsize   int
}

func (tc *tcpConn) write() {
	defer tc.ts.wg.Done()
	cw := &connWriter{tc: tc, bw: bufio.NewWriterSize(tc.c, connWriteBuf)}
	defer cw.exit()
	for {
		var ready <-chan struct{}
		if cw.w != nil {
			ready = cw.w.ready
		}
		var err error
		select {
		case it := <-tc.out:
			if it.c == nil {
				err = cw.put(it)
				break
			}
			cw.waiting = append(cw.waiting, it)
			if cw.w == nil {
				err = cw.nextDeferred()
			}
		case <-ready:
			it := cw.waiting[0]
			cw.waiting, cw.w = cw.waiting[1:], nil
			it.fb, it.reply = tc.buildDeferred(it.c, cw.wsize), int64(cw.wsize)
			it.c = nil
			if err = cw.put(it); err == nil {
				err = cw.nextDeferred()
			}
		case <-tc.quit:
			return
		}
		if err != nil {
			tc.fail(fmt.Errorf("write (client not reading for %v?): %w", tc.ts.opts.WriteTimeout, err))
			return
		}
	}
}

// nextDeferred sizes the first waiting Get and asks for its reply budget;
// a Get that cannot be sized is answered with the error at once.
func (cw *connWriter) nextDeferred() error {
	for len(cw.waiting) > 0 {
		c := cw.waiting[0].c
		size, err := cw.tc.ts.s.getReplySize(c.keys, c.maxReply)
		if err == nil {
			cw.wsize = size
			cw.w = cw.tc.ts.replies.part(int64(size)).enqueue(int64(size))
			return nil
		}
		it := cw.waiting[0]
		cw.waiting = cw.waiting[1:]
		var p [64]byte
		fb := getFrameBuf()
		*fb = AppendFrame((*fb)[:0], FrameError, c.id, appendError(p[:0], err))
		putFrameBuf(c.pbuf)
		putCall(c)
		it.fb, it.c = fb, nil
		if err := cw.put(it); err != nil {
			return err
		}
	}
	return nil
}

// put writes one encoded reply (flushing when nothing else is queued).
func (cw *connWriter) put(it outItem) error {
	// Refresh the deadline when less than 7/8 of WriteTimeout is left.
	wt := cw.tc.ts.opts.WriteTimeout
	if now := time.Now(); cw.dl.Sub(now) < wt-wt/8 {
		cw.dl = now.Add(wt)
		cw.tc.c.SetWriteDeadline(cw.dl)
	}
	_, err := cw.bw.Write(*it.fb)
	putFrameBuf(it.fb)
	cw.tc.finish(it)
	if err == nil && len(cw.tc.out) == 0 {
		err = cw.bw.Flush()
	}
	return err
}

// exit gives back what unsent replies hold; later sends drop theirs.
func (cw *connWriter) exit() {
	tc := cw.tc
	if cw.w != nil {
		tc.ts.replies.part(int64(cw.wsize)).cancel(cw.w)
	}
	for _, it := range cw.waiting {
		tc.drop(it)
	}
	tc.outMu.Lock()
	tc.outDone = true
	tc.outMu.Unlock()
	for {
		select {
		case it := <-tc.out:
			tc.drop(it)
		default:
			return
		}
	}
}
