package writepath

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// Liveness bounds of the abuse tests. A well-behaved request must be
// answered within answerBound. On a loaded 2-core CI box under -race, with
// the server busy serving the abuser too, some requests miss it through
// CPU contention and scheduler noise alone, so up to one in eight may (at
// least 3); a server that stalls misses it on every request, or never
// answers, which hangBound fails at once.
const (
	answerBound = 100 * time.Millisecond
	hangBound   = 3 * time.Second
)

// heapPeak samples the heap every millisecond from its start (after a GC)
// until stop, and returns the peak growth in bytes. runtime/metrics reads
// do not stop the world. The heap counts garbage not yet collected, so the
// GC runs at GOGC=10 meanwhile: the peak is within about 10% of live bytes.
type heapPeak struct {
	base, peak atomic.Int64
	done       chan struct{}
	wg         sync.WaitGroup
	gogc       int
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func readHeap() int64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{done: make(chan struct{}), gogc: debug.SetGCPercent(10)}
	runtime.GC()
	h.base.Store(readHeap())
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if d := readHeap() - h.base.Load(); d > h.peak.Load() {
				h.peak.Store(d)
			}
			select {
			case <-tick.C:
			case <-h.done:
				return
			}
		}
	}()
	return h
}

// stop returns the peak heap growth.
func (h *heapPeak) stop() int64 {
	close(h.done)
	h.wg.Wait()
	debug.SetGCPercent(h.gogc)
	return h.peak.Load()
}

func checkHeap(t *testing.T, h *heapPeak, bound int64) {
	t.Helper()
	if p := h.stop(); p > bound {
		t.Errorf("heap grew by %d MiB during the abuse, bound %d MiB", p>>20, bound>>20)
	} else {
		t.Logf("heap peak growth %.1f MiB (bound %d MiB)", float64(p)/(1<<20), bound>>20)
	}
}

// served runs n small Put+Get pairs on tr, one after the other, and fails
// the test if one errs, hangs, or more than maxSlow take over answerBound.
// redialAfterFree dials addr until it no longer refuses with
// ErrTooManyConns, pausing between tries; any other error, or still
// refused past bound, fails the test with what.
func redialAfterFree(t *testing.T, addr string, bound, pause time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		tr, err := DialTCP(addr, TCPClientOptions{})
		if err == nil {
			tr.Close()
			return
		}
		if !errors.Is(err, ErrTooManyConns) || time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(pause)
	}
}

func served(t *testing.T, tr Transport, n int) {
	t.Helper()
	slow := 0
	for i := range n {
		key := fmt.Appendf(nil, "good-%d", i)
		t0 := time.Now()
		err := testkit.Within(t, hangBound, fmt.Sprintf("well-behaved request %d", i), func() error {
			err := NewDirect(tr).Put(key, []byte("v"))
			if err == nil {
				var vals [][]byte
				vals, err = tr.Get([][]byte{key})
				if err == nil && string(vals[0]) != "v" {
					err = fmt.Errorf("got %q", vals[0])
				}
			}
			return err
		})
		if err != nil {
			t.Fatalf("well-behaved request %d: %v", i, err)
		}
		if time.Since(t0) > answerBound {
			slow++
		}
		time.Sleep(2 * time.Millisecond)
	}
	if maxSlow := max(3, n/8); slow > maxSlow {
		t.Fatalf("%d of %d well-behaved requests took over %v", slow, n, answerBound)
	}
}

// abuseServer starts a btree server, a TCP server with opts and a
// well-behaved client connected to it.
func abuseServer(t *testing.T, sopts ServerOptions, opts TCPServerOptions) (*Server, *TCPServer, *TCPTransport) {
	t.Helper()
	if sopts.Kind == "" {
		sopts.Kind = "btree"
	}
	s := newTestServer(t, sopts)
	ts, err := ListenTCP(s, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	good, err := DialTCP(ts.Addr().String(), TCPClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { good.Close() })
	return s, ts, good
}

// waitConnErrors waits until the server counted want connection errors.
func waitConnErrors(t *testing.T, ts *TCPServer, want int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for ts.ConnErrors() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections closed for an error, want %d", ts.ConnErrors(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTCPAbuseHugeGetReply: a small Get naming one large key many times
// would need a reply over MaxReply. The server sizes the reply before
// building it and answers ErrReplyTooLarge; the connection stays usable.
func TestTCPAbuseHugeGetReply(t *testing.T) {
	s, ts, good := abuseServer(t, ServerOptions{}, TCPServerOptions{})
	big := []byte("big")
	if err := s.Put(big, make([]byte, 256<<10)); err != nil {
		t.Fatal(err)
	}
	keys := make([][]byte, 400) // 100 MiB of reply, 1.6 KiB of request
	for i := range keys {
		keys[i] = big
	}
	abuser, err := DialTCP(ts.Addr().String(), TCPClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer abuser.Close()
	h := startHeapPeak()
	stop := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				errc <- nil
				return
			default:
			}
			if _, err := abuser.Get(keys); !errors.Is(err, ErrReplyTooLarge) {
				errc <- fmt.Errorf("oversized Get: %v, want ErrReplyTooLarge", err)
				return
			}
		}
	}()
	served(t, good, 30)
	close(stop)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	checkHeap(t, h, 16<<20)
	// The abusive connection still works.
	if vals, err := abuser.Get([][]byte{big}); err != nil || len(vals[0]) != 256<<10 {
		t.Fatalf("Get after ErrReplyTooLarge: %v", err)
	}
	// The same limit holds in-process.
	if _, err := NewInProc(s).Get(keys); !errors.Is(err, ErrReplyTooLarge) {
		t.Fatalf("in-process oversized Get: %v", err)
	}
}

// TestTCPAbuseNonReadingClient: eight clients each pipeline 2,000 Gets with
// 64 KiB replies and never read them. Only their connections wait; they
// are closed after WriteTimeout; their unsent replies stay under
// MaxInFlightBytes together (each connection alone could hold 8 MiB).
func TestTCPAbuseNonReadingClient(t *testing.T) {
	s, ts, good := abuseServer(t, ServerOptions{}, TCPServerOptions{MaxFrame: 8 << 20, MaxReply: 1 << 20,
		MaxInFlightBytes: 10 << 20, WriteTimeout: 500 * time.Millisecond})
	if err := s.Put([]byte("v64k"), make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	var req []byte
	for id := range uint32(2000) {
		req = AppendFrame(req, FrameGet, id, appendKeys(nil, [][]byte{[]byte("v64k")}))
	}
	h := startHeapPeak()
	const conns = 8
	for range conns {
		c := rawConn(t, ts, true)
		go c.Write(req) // may block once the server stops reading; ends when closed
	}
	served(t, good, 50)
	waitConnErrors(t, ts, conns, 10*time.Second)
	checkHeap(t, h, 28<<20)
	// Handlers may still finish Gets of the closed connections: wait.
	deadline := time.Now().Add(5 * time.Second)
	for ts.Stats().ReplyBytes != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := ts.Stats().ReplyBytes; n != 0 {
		t.Fatalf("%d B of replies still charged after the connections closed", n)
	}
}

// TestTCPAbuseHugeHeader: ten headers announcing 60 MiB frames (more than
// MaxInFlightBytes together), one followed by 100 KiB and then silence,
// allocate only what arrived and do not hold up small requests; the
// connections are closed after ReadTimeout.
func TestTCPAbuseHugeHeader(t *testing.T) {
	_, ts, good := abuseServer(t, ServerOptions{}, TCPServerOptions{ReadTimeout: 300 * time.Millisecond})
	h := startHeapPeak()
	const conns = 10
	for i := range conns {
		c := rawConn(t, ts, true)
		hdr := appendFrameHeader(nil, FramePut, 1, 60<<20)
		if i == 0 {
			hdr = append(hdr, make([]byte, 100<<10)...)
		}
		c.Write(hdr)
	}
	served(t, good, 30)
	waitConnErrors(t, ts, conns, 5*time.Second)
	checkHeap(t, h, 8<<20)
}

// TestTCPAbuseSlowloris: a frame sent a byte at a time, a connection that
// never says hello and one that goes quiet after it are closed after
// ReadTimeout or IdleTimeout; the well-behaved client is not.
func TestTCPAbuseSlowloris(t *testing.T) {
	_, ts, good := abuseServer(t, ServerOptions{},
		TCPServerOptions{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	slow := rawConn(t, ts, true)
	rawConn(t, ts, false) // no hello
	rawConn(t, ts, true)  // idle
	go func() {
		for _, b := range AppendFrame(nil, FrameGet, 1, appendKeys(nil, [][]byte{[]byte("some-key")})) {
			if _, err := slow.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	served(t, good, 100) // > 300 ms: the good client is never idle that long
	waitConnErrors(t, ts, 2, 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for ts.Stats().Conns > 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := ts.Stats().Conns; n != 1 {
		t.Fatalf("%d connections open, want only the well-behaved one", n)
	}
	served(t, good, 5)
}

// TestTCPAbuseConnLimit: connections over MaxConns are refused with
// ErrTooManyConns; those admitted keep being served. (All dial from one
// address, so the per-peer limit is raised to MaxConns here; see
// TestTCPAbusePeerConnLimit.)
func TestTCPAbuseConnLimit(t *testing.T) {
	_, ts, good := abuseServer(t, ServerOptions{}, TCPServerOptions{MaxConns: 8, MaxConnsPerPeer: 8})
	h := startHeapPeak()
	var idle []net.Conn
	for range 200 {
		c, err := net.Dial("tcp", ts.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	served(t, good, 30)
	if _, err := DialTCP(ts.Addr().String(), TCPClientOptions{}); !errors.Is(err, ErrTooManyConns) {
		t.Fatalf("dial over MaxConns: %v, want ErrTooManyConns", err)
	}
	if st := ts.Stats(); st.Conns != 8 || st.Refused < 192 {
		t.Fatalf("stats %+v, want 8 connections and at least 192 refused", st)
	}
	checkHeap(t, h, 8<<20)
	for _, c := range idle {
		c.Close()
	}
	redialAfterFree(t, ts.Addr().String(), 5*time.Second, 10*time.Millisecond, "dial after the idle connections closed")
}

// TestTCPAbuseInFlightBudget: while handlers are stuck, eight connections
// send 32 MiB of Puts; the server reads at most MaxInFlightBytes of them,
// then stops reading, and applies every one once the handlers move again.
func TestTCPAbuseInFlightBudget(t *testing.T) {
	kind, fault := faultKind(t, "btree")
	s, ts, _ := abuseServer(t, ServerOptions{Kind: kind, Handlers: 1},
		TCPServerOptions{MaxFrame: 1 << 20, MaxReply: 1 << 20, MaxInFlightBytes: 2 << 20}) // large part: 1.75 MiB
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock()
	fault.set(func([]byte) error { <-release; return nil })
	b := NewBatch(0)
	b.Add([]byte("k"), make([]byte, 1<<20-64))
	var req []byte // shared by the eight connections
	for id := range uint32(4) {
		req = AppendFrame(req, FramePut, id, b.Bytes())
	}
	h := startHeapPeak()
	var peakCharged atomic.Int64
	stopWatch := make(chan struct{})
	go func() {
		for {
			if n := ts.Stats().InFlightBytes; n > peakCharged.Load() {
				peakCharged.Store(n)
			}
			select {
			case <-stopWatch:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var conns []net.Conn
	for range 8 {
		c := rawConn(t, ts, true)
		conns = append(conns, c)
		go c.Write(req)
	}
	time.Sleep(300 * time.Millisecond) // let the server read what it will
	close(stopWatch)
	checkHeap(t, h, 12<<20)
	if p := peakCharged.Load(); p > 2<<20 {
		t.Errorf("%d B charged, budget %d B", p, 2<<20)
	}
	unblock()
	for _, c := range conns { // every Put is answered
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		for range 4 {
			f, _, err := ReadFrame(c, nil, 1<<10)
			if err != nil || f.Type != FramePutOK {
				t.Fatalf("reply %+v, %v", f, err)
			}
		}
	}
	if got := s.Stats().Puts; got != 32 {
		t.Fatalf("%d Puts applied, want 32", got)
	}
}

// TestTCPOptionLimits: limits the frame format cannot carry are refused.
func TestTCPOptionLimits(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "btree"})
	for _, o := range []TCPServerOptions{
		{MaxReply: MaxFramePayload + 1},
		{MaxFrame: MaxFramePayload + 1},
		{MaxFrame: 1 << 20, MaxInFlightBytes: 1 << 20},
	} {
		if ts, err := ListenTCP(s, "", o); !errors.Is(err, ErrInvalidOption) {
			if ts != nil {
				ts.Close()
			}
			t.Errorf("ListenTCP(%+v): %v, want ErrInvalidOption", o, err)
		}
	}
}

// TestTCPDeferredReplies: pipelined Gets whose replies exceed the
// connection's byte limit together are built by the connection's writer
// (deferred) and still come back whole and in the right place.
func TestTCPDeferredReplies(t *testing.T) {
	s, _, good := abuseServer(t, ServerOptions{}, TCPServerOptions{MaxFrame: 256 << 10, MaxReply: 256 << 10})
	const n = 64
	for i := range n {
		if err := s.Put(fmt.Appendf(nil, "k%02d", i), valueFor(i, 100<<10)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			vals, err := good.Get([][]byte{fmt.Appendf(nil, "k%02d", i)})
			if err == nil && string(vals[0]) != string(valueFor(i, 100<<10)) {
				err = fmt.Errorf("key %d: wrong value", i)
			}
			errc <- err
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
}
