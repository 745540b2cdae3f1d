package writepath

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for TCPServerOptions.
const (
	DefaultMaxConns         = 1024
	DefaultMaxConnRequests  = 128
	DefaultMaxConnQueued    = 4
	DefaultMaxInFlightBytes = 256 << 20
	DefaultReadTimeout      = 30 * time.Second
	DefaultIdleTimeout      = 5 * time.Minute
	DefaultWriteTimeout     = 30 * time.Second
	// DefaultMinReadRate is TCPServerOptions.MinReadRate's default.
	DefaultMinReadRate = 1 << 20

	// largeGrace is how long a large payload may lag behind MinReadRate
	// (see TCPServerOptions.MinReadRate).
	largeGrace = time.Second
	// acceptBackoffMin and acceptBackoffMax bound the wait before the
	// listener retries after a failed Accept (doubling from the first).
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second

	connReadBuf  = 16 << 10
	connWriteBuf = 16 << 10
	// refuseWrite bounds writing the refusal to a connection over MaxConns.
	refuseWrite = 10 * time.Millisecond
)

// TCPServerOptions configure ListenTCP and ServeTCP. Zero or negative
// values mean the default; the defaults are safe for a server exposed to
// careless or hostile clients. Request payloads of all connections stay
// under MaxInFlightBytes, and so do built, unsent replies; besides, each
// connection holds 32 KiB of buffers and at most max(MaxFrame, MaxReply)
// bytes of Gets whose replies wait for budget.
type TCPServerOptions struct {
	// Logger receives one record per connection that ends in an error
	// (garbage, truncated or oversized frames, timeouts, broken sockets);
	// nil discards. The server keeps serving other connections.
	Logger *slog.Logger
	// MaxFrame limits a request frame's payload (default DefaultMaxFrame,
	// at most MaxFramePayload). It is checked from the length prefix,
	// before anything is allocated; payload buffers then grow as bytes
	// arrive.
	MaxFrame int
	// MaxReply limits a Get reply's encoded size (default DefaultMaxReply,
	// at most MaxFramePayload). The size is computed before the reply is
	// built; a Get over it is answered with ErrReplyTooLarge and the
	// connection stays usable.
	MaxReply int
	// MaxConns limits open connections (default DefaultMaxConns); a
	// connection over it gets an ErrTooManyConns error frame and is closed.
	MaxConns int
	// MaxConnsPerPeer limits the open connections of one peer, that is one
	// remote IP address (default MaxConns/4, at least 1), so that one
	// client cannot take every slot for IdleTimeout. A connection over it
	// is refused like one over MaxConns (ErrTooManyConns), while other
	// peers still connect. Connections whose remote address is not an IP
	// address (a listener of another kind) have no per-peer limit.
	MaxConnsPerPeer int
	// MaxConnRequests limits the requests of one connection that were read
	// and not yet answered (default DefaultMaxConnRequests). At the limit,
	// or while its unanswered requests and unsent replies hold more than
	// max(MaxFrame, MaxReply) bytes, the server stops reading that
	// connection; the others go on.
	MaxConnRequests int
	// MaxConnQueued limits the requests of one connection waiting in the
	// server's shared request queue (default DefaultMaxConnQueued). The
	// queue is first in, first out, so without it one connection that
	// pipelines MaxConnRequests requests would put them all ahead of every
	// other client's next request; with it, a request waits behind at most
	// MaxConnQueued requests of each other connection.
	MaxConnQueued int
	// MaxInFlightBytes is the server-wide budget of request payload bytes
	// being read or served, and separately of Get replies built and not
	// yet written (default DefaultMaxInFlightBytes; 7/8 of it at least
	// MaxFrame and MaxReply). A Get reply that does not fit is built later
	// by its connection's writer, once it fits; other replies of that
	// connection go on meanwhile. A frame's payload is charged whole once its header
	// is read (nothing is allocated for it before that; its buffer then
	// grows as bytes arrive) and released when a handler is done with it.
	// Payloads of at most 64 KiB draw on their own eighth of the budget,
	// larger ones on the rest, so that clients announcing large frames
	// cannot hold up small requests. While its part is spent, a connection
	// waits (first come, first served) before reading a payload, at most
	// until its ReadTimeout. A client that announces frames and sends them
	// slowly holds budget until MinReadRate or ReadTimeout cuts it off,
	// and then only its peer's share (MaxPeerInFlightBytes).
	MaxInFlightBytes int64
	// MaxPeerInFlightBytes is one peer's (remote IP's) share of
	// MaxInFlightBytes: its connections together hold at most this many
	// request payload bytes, split into the small and large parts in the
	// same proportion (default MaxInFlightBytes/4). A payload larger than
	// the peer's large part is charged once the peer holds nothing else
	// there. A peer over its share waits in its own queue, not in front of
	// other peers, so slow or hostile senders on a few addresses cannot
	// hold up everyone's large frames. (A connection reads one frame at a
	// time, so its own share of payloads being read is one frame.)
	MaxPeerInFlightBytes int64
	// MinReadRate is the slowest a payload of more than 64 KiB may arrive,
	// in bytes per second, once its budget is charged (default
	// DefaultMinReadRate): its first n bytes must be in within
	// 1 s + n/MinReadRate of the charge (and the whole frame within
	// ReadTimeout as always). A sender that falls behind is closed and its
	// budget released, so that a slowloris holds a large frame's budget
	// for about a second, not for ReadTimeout.
	MinReadRate int64
	// ReadTimeout bounds how long a frame may take to arrive once its
	// first byte has (the handshake: once the connection is accepted),
	// waiting for MaxInFlightBytes included (default DefaultReadTimeout).
	ReadTimeout time.Duration
	// IdleTimeout closes a connection that has nothing in flight and
	// starts no frame for this long (default DefaultIdleTimeout).
	IdleTimeout time.Duration
	// WriteTimeout bounds each write of replies to a connection (default
	// DefaultWriteTimeout): a client that stops reading is closed after
	// it, and only its own connection waits meanwhile.
	WriteTimeout time.Duration
}

// withDefaults fills in defaults and validates.
func (o TCPServerOptions) withDefaults() (TCPServerOptions, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxFrame, DefaultMaxFrame)
	def(&o.MaxReply, DefaultMaxReply)
	def(&o.MaxConns, DefaultMaxConns)
	def(&o.MaxConnsPerPeer, max(1, o.MaxConns/4))
	def(&o.MaxConnRequests, DefaultMaxConnRequests)
	def(&o.MaxConnQueued, DefaultMaxConnQueued)
	if o.MaxInFlightBytes <= 0 {
		m := int64(max(o.MaxFrame, o.MaxReply))
		o.MaxInFlightBytes = max(DefaultMaxInFlightBytes, m+m/4)
	}
	if o.MaxPeerInFlightBytes <= 0 {
		o.MaxPeerInFlightBytes = o.MaxInFlightBytes / 4
	}
	if o.MinReadRate <= 0 {
		o.MinReadRate = DefaultMinReadRate
	}
	defDur(&o.ReadTimeout, DefaultReadTimeout)
	defDur(&o.IdleTimeout, DefaultIdleTimeout)
	defDur(&o.WriteTimeout, DefaultWriteTimeout)
	switch {
	case uint64(o.MaxFrame) > MaxFramePayload, uint64(o.MaxReply) > MaxFramePayload:
		return o, fmt.Errorf("%w: MaxFrame %d or MaxReply %d over %d", ErrInvalidOption, o.MaxFrame, o.MaxReply, uint64(MaxFramePayload))
	case o.MaxInFlightBytes-o.MaxInFlightBytes/8 < int64(max(o.MaxFrame, o.MaxReply)):
		return o, fmt.Errorf("%w: 7/8 of MaxInFlightBytes %d < MaxFrame %d or MaxReply %d", ErrInvalidOption, o.MaxInFlightBytes, o.MaxFrame, o.MaxReply)
	}
	return o, nil
}

// TCPStats is a snapshot of a TCPServer's counters.
type TCPStats struct {
	Conns         int   // open connections
	Peers         int   // remote IP addresses with open connections
	ConnErrors    int64 // connections closed because of an error or timeout
	Refused       int64 // connections refused at MaxConns or MaxConnsPerPeer
	RefusedPeer   int64 // of Refused, those refused at MaxConnsPerPeer
	AcceptErrors  int64 // failed Accepts, retried after a backoff
	InFlightBytes int64 // request payload bytes charged to MaxInFlightBytes
	ReplyBytes    int64 // Get reply bytes built and not yet written
}

// TCPServer serves one Server over TCP (protocol in frame.go). Each
// connection has a reader goroutine that decodes frames and hands requests
// to the server's queue, and a writer goroutine that owns the socket's
// write side: handlers queue replies to it (the queue always has room, see
// MaxConnRequests) and never touch a socket, so a client that stops reading
// blocks only itself. A Get reply too large for the connection's byte limit
// at the moment is built later by that writer. Requests on one connection
// are pipelined; responses may come back out of order.
//
// Concurrency: safe for concurrent use. Lifetime: until Close, which closes
// the listener and every connection (not the Server). Limits: see
// TCPServerOptions.
type TCPServer struct {
	s       *Server
	ln      net.Listener
	opts    TCPServerOptions
	log     *slog.Logger
	budget  inFlight // request payloads being read or served
	replies inFlight // Get replies built and not yet written
	mu      sync.Mutex
	conns   map[*tcpConn]struct{}
	peers   map[string]*tcpPeer // by remote IP; entries with open connections
	closed  bool
	done    chan struct{} // closed by Close: ends the accept loop's backoff
	wg      sync.WaitGroup

	connErrors   atomic.Int64
	refused      atomic.Int64
	refusedPeer  atomic.Int64
	acceptErrors atomic.Int64
}

// tcpPeer is one remote IP's share: its open connections (guarded by
// TCPServer.mu) and its part of the request payload budget. A connection
// keeps its peer until its last request is released, even after the peer
// left TCPServer.peers.
type tcpPeer struct {
	conns  int
	budget inFlight
}

// ListenTCP listens on addr ("" = "127.0.0.1:0") and serves s.
func ListenTCP(s *Server, addr string, opts TCPServerOptions) (*TCPServer, error) {
	if _, err := opts.withDefaults(); err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ts, err := ServeTCP(s, ln, opts)
	if err != nil {
		ln.Close()
	}
	return ts, err
}

// ServeTCP serves s on ln until Close; an invalid option is
// ErrInvalidOption (ln is then left open).
func ServeTCP(s *Server, ln net.Listener, opts TCPServerOptions) (*TCPServer, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ts := &TCPServer{s: s, ln: ln, opts: opts, log: opts.Logger, conns: map[*tcpConn]struct{}{},
		peers: map[string]*tcpPeer{}, done: make(chan struct{})}
	ts.budget.init("MaxInFlightBytes", opts.MaxInFlightBytes)
	ts.replies.init("MaxInFlightBytes (replies)", opts.MaxInFlightBytes)
	if ts.log == nil {
		ts.log = slog.New(slog.DiscardHandler)
	}
	ts.wg.Add(1)
	go ts.accept()
	return ts, nil
}

// Addr is the listening address.
func (ts *TCPServer) Addr() net.Addr { return ts.ln.Addr() }

// Options returns the options in effect (defaults filled in).
func (ts *TCPServer) Options() TCPServerOptions { return ts.opts }

// ConnErrors counts connections closed because of an error or a timeout.
func (ts *TCPServer) ConnErrors() int64 { return ts.connErrors.Load() }

// Stats returns a snapshot of the counters.
func (ts *TCPServer) Stats() TCPStats {
	ts.mu.Lock()
	n, peers := len(ts.conns), len(ts.peers)
	ts.mu.Unlock()
	return TCPStats{Conns: n, Peers: peers, ConnErrors: ts.connErrors.Load(), Refused: ts.refused.Load(),
		RefusedPeer: ts.refusedPeer.Load(), AcceptErrors: ts.acceptErrors.Load(),
		InFlightBytes: ts.budget.used(), ReplyBytes: ts.replies.used()}
}

// accept is the listener's loop. A failed Accept (at the fd limit:
// EMFILE, ENFILE; ECONNABORTED, ENOBUFS, ENOMEM, a timeout, or anything
// else) is logged and retried after a backoff that doubles from 5 ms to
// 1 s and starts over after the next success, as net/http's does; only a
// closed listener ends the loop.
func (ts *TCPServer) accept() {
	defer ts.wg.Done()
	var backoff time.Duration
	for {
		c, err := ts.ln.Accept()
		if err != nil {
			if ts.isClosed() || errors.Is(err, net.ErrClosed) {
				if !ts.isClosed() {
					ts.log.Error("writepath: listener closed under the server; accept stops", "err", err)
				}
				return
			}
			ts.acceptErrors.Add(1)
			backoff = min(max(2*backoff, acceptBackoffMin), acceptBackoffMax)
			ts.log.Warn("writepath: accept failed; retrying", "err", err, "in", backoff)
			select {
			case <-time.After(backoff):
			case <-ts.done:
				return
			}
			continue
		}
		backoff = 0
		if !ts.admit(c) {
			return
		}
	}
}

func (ts *TCPServer) isClosed() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.closed
}

// peerKey is the per-peer limits' name for a remote address: its IP, or
// "" (no per-peer limits) when it has none.
func peerKey(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok && ta.IP != nil {
		return ta.IP.String()
	}
	return ""
}

// admit starts serving c, or refuses it at MaxConns or MaxConnsPerPeer; it
// returns false once the server is closed.
func (ts *TCPServer) admit(c net.Conn) bool {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	n := ts.opts.MaxConnRequests
	conn := &tcpConn{ts: ts, c: c, out: make(chan outItem, n+1), quit: make(chan struct{}), wake: make(chan struct{}, 1)}
	key := peerKey(c.RemoteAddr())
	ts.mu.Lock()
	p := ts.peers[key]
	switch {
	case ts.closed:
		ts.mu.Unlock()
		c.Close()
		return false
	case len(ts.conns) >= ts.opts.MaxConns:
		ts.mu.Unlock()
		ts.refuse(c, fmt.Errorf("%w (limit %d)", ErrTooManyConns, ts.opts.MaxConns))
		return true
	case key != "" && p != nil && p.conns >= ts.opts.MaxConnsPerPeer:
		ts.mu.Unlock()
		ts.refusedPeer.Add(1)
		ts.refuse(c, fmt.Errorf("%w (limit %d per peer, %s)", ErrTooManyConns, ts.opts.MaxConnsPerPeer, key))
		return true
	}
	if key != "" {
		if p == nil {
			p = &tcpPeer{}
			p.budget.init("MaxPeerInFlightBytes", ts.opts.MaxPeerInFlightBytes)
			ts.peers[key] = p
		}
		p.conns++
		conn.peer, conn.peerKey = p, key
	}
	ts.conns[conn] = struct{}{}
	ts.mu.Unlock()
	ts.wg.Add(2)
	go conn.read()
	go conn.write()
	return true
}

// forget takes a closed connection off the server's counts.
func (ts *TCPServer) forget(tc *tcpConn) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.conns, tc)
	if p := tc.peer; p != nil {
		if p.conns--; p.conns == 0 && ts.peers[tc.peerKey] == p {
			delete(ts.peers, tc.peerKey)
		}
	}
}

// refuse tells c why it is refused (one Error frame, written at once: the
// new socket's send buffer is empty) and closes it. Data the client sent is
// not read, so the close may reset the connection, but only after the
// frame was sent; the client reads it before the reset.
func (ts *TCPServer) refuse(c net.Conn, why error) {
	ts.refused.Add(1)
	c.SetWriteDeadline(time.Now().Add(refuseWrite))
	e := appendError(nil, why)
	c.Write(AppendFrame(nil, FrameError, 0, e))
	c.Close()
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
	close(ts.done)
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

// handshakeReply is the HelloOK payload: regions, max frame.
func (ts *TCPServer) handshakeReply() []byte {
	hello := binary.LittleEndian.AppendUint32(nil, uint32(ts.s.Regions()))
	return binary.LittleEndian.AppendUint32(hello, uint32(ts.opts.MaxFrame))
}
