package writepath

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// failingListener fails its next fail Accepts (cycling through the
// transient errors a listener meets), or every one while always is set,
// before passing through to the real listener.
type failingListener struct {
	net.Listener
	fail   atomic.Int64
	always atomic.Bool
	calls  atomic.Int64
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var transientAcceptErrs = []error{
	syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED, syscall.ENOBUFS, syscall.ENOMEM, timeoutErr{},
}

func (l *failingListener) Accept() (net.Conn, error) {
	i := l.calls.Add(1)
	if l.always.Load() || l.fail.Add(-1) >= 0 {
		e := transientAcceptErrs[int(i)%len(transientAcceptErrs)]
		if errno, ok := e.(syscall.Errno); ok {
			e = os.NewSyscallError("accept4", errno)
		}
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: e}
	}
	return l.Listener.Accept()
}

// TestTCPAcceptRetries: the accept loop survives transient Accept errors
// (EMFILE, ENFILE, ECONNABORTED, ENOBUFS, ENOMEM, timeouts), backs off and
// serves the next clients; Close ends it even while it backs off.
func TestTCPAcceptRetries(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "btree"})
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &failingListener{Listener: inner}
	const fails = 9 // backoff 5 ms doubling: about 1.3 s in all, under hangBound
	ln.fail.Store(fails)
	var logs syncBuf
	ts, err := ServeTCP(s, ln, TCPServerOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	tr, err := DialTCP(ts.Addr().String(), TCPClientOptions{DialTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("dial after %d failed Accepts: %v", fails, err)
	}
	defer tr.Close()
	served(t, tr, 5)
	if n := ts.Stats().AcceptErrors; n != fails {
		t.Errorf("%d accept errors counted, want %d", n, fails)
	}
	for _, want := range []string{"too many open files", "retrying"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	ln.always.Store(true)
	c, err := net.Dial("tcp", ts.Addr().String()) // ends the Accept in progress
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for ts.Stats().AcceptErrors < fails+3 { // backing off now
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- ts.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the accept loop's backoff")
	}
}

// dialFrom connects to ts from the loopback address ip, completes the
// handshake and returns the connection; it skips the test where the
// address cannot be bound (loopback is 127.0.0.1 only on some OSes).
func dialFrom(t *testing.T, ts *TCPServer, ip string) (net.Conn, error) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", ts.Addr().String())
	if err != nil {
		if strings.Contains(err.Error(), "assign requested address") || strings.Contains(err.Error(), "bind") {
			t.Skipf("cannot dial from %s: %v", ip, err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	defer c.SetDeadline(time.Time{})
	c.Write(AppendFrame(nil, FrameHello, 0, []byte(ProtocolMagic)))
	f, _, err := ReadFrame(c, nil, 1024)
	if err == nil && f.Type != FrameHelloOK {
		err = DecodeError(f.Payload)
	}
	return c, err
}

// TestTCPAbusePeerConnLimit: one peer (remote IP) gets at most
// MaxConnsPerPeer of the connection slots; past them it is refused with
// ErrTooManyConns while another peer still connects, and a slot it frees
// is its own again.
func TestTCPAbusePeerConnLimit(t *testing.T) {
	_, ts, good := abuseServer(t, ServerOptions{}, TCPServerOptions{MaxConns: 16, MaxConnsPerPeer: 3})
	if _, err := dialFrom(t, ts, "127.0.0.2"); err != nil { // skips without 127.0.0.2
		t.Fatal(err)
	}
	var mine []net.Conn
	for range 2 { // with good: 3 from 127.0.0.1
		c, err := dialFrom(t, ts, "127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, c)
	}
	for range 5 {
		if _, err := DialTCP(ts.Addr().String(), TCPClientOptions{}); !errors.Is(err, ErrTooManyConns) || !strings.Contains(err.Error(), "per peer") {
			t.Fatalf("dial past MaxConnsPerPeer: %v, want ErrTooManyConns per peer", err)
		}
	}
	for range 2 {
		if _, err := dialFrom(t, ts, "127.0.0.2"); err != nil {
			t.Fatalf("another peer's dial: %v", err)
		}
	}
	if _, err := dialFrom(t, ts, "127.0.0.2"); !errors.Is(err, ErrTooManyConns) {
		t.Fatalf("the other peer's 4th dial: %v, want ErrTooManyConns", err)
	}
	if st := ts.Stats(); st.Conns != 6 || st.Peers != 2 || st.RefusedPeer != 6 || st.Refused != 6 {
		t.Fatalf("stats %+v, want 6 connections of 2 peers, 6 refused per peer", st)
	}
	served(t, good, 10)
	mine[0].Close()
	redialAfterFree(t, ts.Addr().String(), hangBound, 5*time.Millisecond, "dial after a slot was freed")
}

// slowLargePuts opens n connections with dial and on each announces a Put
// of size payload bytes, then sends it at 4 bytes a second until the
// server closes the connection or the test ends.
func slowLargePuts(t *testing.T, n, size int, dial func() net.Conn) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() })
	for range n {
		c := dial()
		if _, err := c.Write(append(appendFrameHeader(nil, FramePut, 1, size), 1, 0, 0, 0)); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := c.Write([]byte{0}); err != nil {
					return
				}
			}
		})
	}
}

// putWithin does one Put of a value of size bytes on tr and fails the test
// if it errs or takes longer than within.
func putWithin(t *testing.T, tr Transport, size int, within time.Duration) {
	t.Helper()
	err := testkit.Within(t, within, fmt.Sprintf("well-behaved %d B Put", size), func() error {
		return NewDirect(tr).Put([]byte("big-good"), make([]byte, size))
	})
	if err != nil {
		t.Fatalf("well-behaved %d B Put: %v", size, err)
	}
}

// largeLimits are small budgets for the large-frame tests: 14 MiB large
// part, frames up to 4 MiB, nothing cut by ReadTimeout within the test.
func largeLimits(peerShare, minRate int64, logs *syncBuf) TCPServerOptions {
	return TCPServerOptions{MaxFrame: 4 << 20, MaxReply: 4 << 20, MaxInFlightBytes: 16 << 20,
		MaxPeerInFlightBytes: peerShare, MinReadRate: minRate, MaxConnsPerPeer: 64,
		ReadTimeout: time.Minute, IdleTimeout: time.Minute, Logger: slog.New(slog.NewTextHandler(logs, nil))}
}

// TestTCPAbuseSlowLargeFramesRate: five connections of the good client's
// own address announce 3 MiB Puts (more than the 14 MiB large part
// together) and send 4 bytes a second. MinReadRate closes each about a
// second after its budget was charged, and the good client's 1 MiB Put,
// queued behind them, completes in seconds, not after ReadTimeout.
func TestTCPAbuseSlowLargeFramesRate(t *testing.T) {
	var logs syncBuf
	_, ts, good := abuseServer(t, ServerOptions{}, largeLimits(16<<20, 0, &logs))
	slowLargePuts(t, 5, 3<<20, func() net.Conn { return rawConn(t, ts, true) })
	deadline := time.Now().Add(hangBound)
	for ts.Stats().InFlightBytes < 12<<20 && ts.ConnErrors() == 0 { // 4 of 5 charged
		if time.Now().After(deadline) {
			t.Fatalf("slow senders not charged: %+v", ts.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	putWithin(t, good, 1<<20, 10*time.Second) // ReadTimeout is a minute
	waitConnErrors(t, ts, 5, 10*time.Second)
	if !strings.Contains(logs.String(), "slower than MinReadRate") {
		t.Errorf("log does not name MinReadRate:\n%s", logs.String())
	}
	if n := ts.Stats().InFlightBytes; n != 0 {
		t.Errorf("%d B still charged after the slow senders were closed", n)
	}
}

// TestTCPAbuseSlowLargeFramesPeerShare: five connections of another peer
// (127.0.0.2) announce 3 MiB Puts and send 4 bytes a second, with
// MinReadRate too low to cut them. Their peer's share (a quarter of the
// budget) admits one at a time; the others wait in the peer's own queue,
// so the good client's 1 MiB Put from 127.0.0.1 is charged at once.
func TestTCPAbuseSlowLargeFramesPeerShare(t *testing.T) {
	var logs syncBuf
	_, ts, good := abuseServer(t, ServerOptions{}, largeLimits(0, 1, &logs))
	if _, err := dialFrom(t, ts, "127.0.0.2"); err != nil { // skips without 127.0.0.2
		t.Fatal(err)
	}
	slowLargePuts(t, 5, 3<<20, func() net.Conn {
		c, err := dialFrom(t, ts, "127.0.0.2")
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	ts.mu.Lock()
	peer := ts.peers["127.0.0.2"]
	ts.mu.Unlock()
	deadline := time.Now().Add(hangBound)
	for { // one charged, four waiting in the peer's queue
		peer.budget.large.mu.Lock()
		queued := len(peer.budget.large.queue)
		peer.budget.large.mu.Unlock()
		if queued == 4 && peer.budget.large.used.Load() == 3<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("peer holds %d B with %d waiting, want 3 MiB and 4", peer.budget.large.used.Load(), queued)
		}
		time.Sleep(time.Millisecond)
	}
	if n := ts.budget.large.used.Load(); n != 3<<20 {
		t.Fatalf("%d B of the server's large part charged, want the peer's 3 MiB", n)
	}
	putWithin(t, good, 1<<20, 10*time.Second)
	if n := ts.ConnErrors(); n != 0 {
		t.Fatalf("%d connections closed: the share, not a timeout, must have let the Put through\n%s", n, logs.String())
	}
}

// TestTCPPeerOptionDefaults: the per-peer limits default to a quarter.
func TestTCPPeerOptionDefaults(t *testing.T) {
	o, err := TCPServerOptions{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxConnsPerPeer != DefaultMaxConns/4 || o.MaxPeerInFlightBytes != DefaultMaxInFlightBytes/4 || o.MinReadRate != DefaultMinReadRate {
		t.Fatalf("defaults %+v", o)
	}
	if o, _ := (TCPServerOptions{MaxConns: 2}).withDefaults(); o.MaxConnsPerPeer != 1 {
		t.Fatalf("MaxConns 2: MaxConnsPerPeer %d, want 1", o.MaxConnsPerPeer)
	}
}
