package writepath

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

func connect(t testing.TB, tr string, s *Server) Transport {
	t.Helper()
	tp, closeT, err := Connect(tr, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeT() })
	return tp
}

// TestBufferedCloseSendsAll: nothing sits in the buffer after Close, and
// before Flush/Close nothing was sent (the buffer is big enough).
func TestBufferedCloseSendsAll(t *testing.T) {
	for _, tr := range Transports() {
		t.Run("transport="+tr, func(t *testing.T) {
			s := newTestServer(t, ServerOptions{Kind: "btree"})
			c, err := NewClient(PathBuffered, connect(t, tr, s), ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			keys := workload.NewKeys(1000, 16, 3)
			for i := range keys.Len() {
				if err := c.Put(keys.Key(i), valueFor(i, 10)); err != nil {
					t.Fatal(err)
				}
			}
			if n := s.Stats().Puts; n != 0 {
				t.Fatalf("%d puts reached the server before Close with a 2 MiB buffer", n)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if n := s.Stats().Puts; n != int64(keys.Len()) {
				t.Fatalf("after Close: %d puts, want %d", n, keys.Len())
			}
			if err := c.Put(keys.Key(0), nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("Put after Close: %v", err)
			}
		})
	}
}

func TestBufferedSendsWhenFullAndOnInterval(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "btree"})
	c, err := NewClient(PathBuffered, connect(t, "inproc", s), ClientOptions{BufferSize: 1000, FlushInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := workload.NewKeys(100, 16, 3)
	for i := range 50 { // 50 × ~120 B > 1000 B
		c.Put(keys.Key(i), valueFor(i, 100))
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Puts < 50 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := s.Stats().Puts; n != 50 {
		t.Fatalf("interval flush: %d puts arrived, want 50", n)
	}
}

// TestServerFailsMidBatch: a batch that fails part-way gives every client
// path an error that says how much was applied; Buffered reports it on the
// next call and again on Close; nothing is silently dropped.
func TestServerFailsMidBatch(t *testing.T) {
	boom := errors.New("injected disk failure")
	for _, tr := range Transports() {
		t.Run("transport="+tr, func(t *testing.T) {
			kind, fault := faultKind(t, "btree")
			s := newTestServer(t, ServerOptions{Kind: kind})
			var fail atomic.Bool
			fault.set(func(key []byte) error {
				if fail.Load() && key[0] == 4 { // entry 3 of the batches below
					return fmt.Errorf("%w: %w", memtable.ErrClosed, boom)
				}
				return nil
			})
			tp := connect(t, tr, s)
			fail.Store(true)
			b := NewBatch(0)
			for i := range 10 {
				b.Add([]byte{byte(i + 1)}, []byte("v"))
			}
			err := tp.Put(b)
			var be *BatchError
			if !errors.As(err, &be) || be.Applied != 3 || !errors.Is(err, memtable.ErrClosed) {
				t.Fatalf("Put: %v (want BatchError applied=3 wrapping memtable.ErrClosed)", err)
			}
			// Direct: every put fails? No: a one-entry batch fails at i==0
			// only when i==3; use buffered with a failing batch.
			bc, _ := NewClient(PathBuffered, tp, ClientOptions{})
			for i := range 10 {
				if err := bc.Put([]byte{byte(i + 1)}, []byte("v")); err != nil {
					t.Fatal(err)
				}
			}
			if err := bc.Flush(); !errors.As(err, &be) {
				t.Fatalf("Flush: %v", err)
			}
			fail.Store(false)
			if err := bc.Put([]byte{1}, []byte("w")); err != nil {
				t.Fatalf("Put after a reported failure: %v", err)
			}
			if err := bc.Close(); !errors.As(err, &be) {
				t.Fatalf("Close must report every failed send: %v", err)
			}
			// Async: the failure reaches the callback.
			fail.Store(true)
			fault.set(func([]byte) error { return boom })
			ac, _ := NewAsync(tp, ClientOptions{})
			f := ac.PutFuture([]byte("k"), []byte("v"))
			if err := f.Wait(); err == nil {
				t.Fatal("async future: no error")
			}
			ac.Put([]byte("k"), []byte("v"))
			if err := ac.Close(); err == nil {
				t.Fatal("async Close: no error for a failed Put")
			}
		})
	}
}

func TestValidationRejectsWholeBatch(t *testing.T) {
	for _, tr := range Transports() {
		s := newTestServer(t, ServerOptions{Kind: "btree"})
		tp := connect(t, tr, s)
		b := NewBatch(0)
		b.Add([]byte("a"), nil)
		b.Add(nil, []byte("empty key"))
		if err := tp.Put(b); !errors.Is(err, memtable.ErrKeySize) {
			t.Fatalf("%s: %v", tr, err)
		}
		if n := s.Stats().Puts; n != 0 {
			t.Fatalf("%s: %d applied", tr, n)
		}
		c := NewDirect(tp)
		if err := c.Put(make([]byte, memtable.MaxKeySize+1), nil); !errors.Is(err, memtable.ErrKeySize) {
			t.Fatalf("%s: oversized key: %v", tr, err)
		}
	}
}

func TestAsyncFuturesAndCallbacks(t *testing.T) {
	for _, tr := range Transports() {
		s := newTestServer(t, ServerOptions{Kind: "btree", Regions: 3})
		ac, err := NewAsync(connect(t, tr, s), ClientOptions{MaxInFlight: 8})
		if err != nil {
			t.Fatal(err)
		}
		keys := workload.NewKeys(500, 16, 9)
		var cbs atomic.Int64
		var futs []*Future
		for i := range keys.Len() {
			if i%2 == 0 {
				futs = append(futs, ac.PutFuture(keys.Key(i), valueFor(i, 8)))
			} else if err := ac.PutAsync(keys.Key(i), valueFor(i, 8), func(err error) {
				if err == nil {
					cbs.Add(1)
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range futs {
			if err := f.Wait(); err != nil {
				t.Fatal(err)
			}
		}
		if err := ac.Close(); err != nil {
			t.Fatal(err)
		}
		if cbs.Load() != int64(keys.Len()/2) || s.Stats().Puts != int64(keys.Len()) {
			t.Fatalf("%s: callbacks %d, puts %d", tr, cbs.Load(), s.Stats().Puts)
		}
	}
}

func TestMultiGet(t *testing.T) {
	for _, tr := range Transports() {
		for _, regions := range []int{1, 4, 8} {
			s := newTestServer(t, ServerOptions{Kind: "btree", Regions: regions})
			keys := workload.NewKeys(300, 16, 11)
			for i := range 200 {
				if err := s.Put(keys.Key(i), valueFor(i, i%3)); err != nil {
					t.Fatal(err)
				}
			}
			mg := NewMultiGetter(connect(t, tr, s))
			ks := make([][]byte, 0, 100)
			for i := 150; i < 250; i++ {
				ks = append(ks, keys.Key(i))
			}
			for _, mode := range MultiGetModes() {
				vals, err := mg.MultiGet(context.Background(), ks, mode)
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range vals {
					i := 150 + j
					if i < 200 && (v == nil || !bytes.Equal(v, valueFor(i, i%3))) {
						t.Fatalf("%s/%d/%s: key %d = %q", tr, regions, mode, i, v)
					}
					if i >= 200 && v != nil {
						t.Fatalf("%s/%d/%s: absent key %d found", tr, regions, mode, i)
					}
				}
			}
			if _, err := mg.MultiGet(context.Background(), ks, "zigzag"); !errors.Is(err, ErrUnknownMode) {
				t.Fatal(err)
			}
		}
	}
}

func TestRegionOfSplitsEvenly(t *testing.T) {
	keys := workload.NewKeys(80000, 16, 5)
	for _, n := range []int{1, 3, 8} {
		counts := make([]int, n)
		for i := range keys.Len() {
			counts[RegionOf(keys.Key(i), n)]++
		}
		for r, c := range counts {
			if want := keys.Len() / n; c < want*9/10 || c > want*11/10 {
				t.Fatalf("regions=%d: region %d has %d keys, want ~%d", n, r, c, want)
			}
		}
	}
	// Order: region index is monotonic in the key.
	if RegionOf([]byte{0x10}, 4) > RegionOf([]byte{0xf0}, 4) || RegionOf([]byte{0xff, 0xff}, 4) != 3 {
		t.Fatal("RegionOf not monotonic")
	}
}

func TestClosedServer(t *testing.T) {
	for _, tr := range Transports() {
		s, err := NewServer(ServerOptions{Kind: "btree"})
		if err != nil {
			t.Fatal(err)
		}
		tp := connect(t, tr, s)
		c := NewDirect(tp)
		if err := c.Put([]byte("k"), []byte("v")); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if err := c.Put([]byte("k"), []byte("v")); !errors.Is(err, ErrClosed) {
			t.Fatalf("%s: Put after server Close: %v", tr, err)
		}
		if _, _, err := s.Get([]byte("k")); !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
		if err := s.Put([]byte("k"), nil); !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
	}
}

func TestUnknownNames(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "btree"})
	if _, err := NewClient("zoom", NewInProc(s), ClientOptions{}); !errors.Is(err, ErrUnknownPath) {
		t.Fatal(err)
	}
	if _, _, err := Connect("udp", s); !errors.Is(err, ErrUnknownTransport) {
		t.Fatal(err)
	}
	if _, err := NewServer(ServerOptions{Kind: "nope"}); !errors.Is(err, memtable.ErrUnknownKind) {
		t.Fatal(err)
	}
	if _, err := NewServer(ServerOptions{Regions: -1}); !errors.Is(err, ErrInvalidOption) {
		t.Fatal(err)
	}
	for i, n := range []string{"none", "batch", "always"} {
		if m, err := ParseSyncMode(n); err != nil || int(m) != i || m.String() != n {
			t.Fatal(n, m, err)
		}
	}
	if _, err := ParseSyncMode("sometimes"); !errors.Is(err, ErrInvalidOption) {
		t.Fatal(err)
	}
}

// TestBackpressure: with a slow flush, writers block and the number of
// waiting memtables stays bounded; without backpressure it grows.
func TestBackpressure(t *testing.T) {
	run := func(noBP bool) (ServerStats, int) {
		s := newTestServer(t, ServerOptions{Kind: "btree", FlushThreshold: 16 << 10, FlushBandwidth: 2 << 20,
			MaxPendingFlushes: 1, NoBackpressure: noBP})
		keys := workload.NewKeys(6000, 16, 2)
		maxPending := 0
		for i := range keys.Len() {
			if err := s.Put(keys.Key(i), valueFor(i, 64)); err != nil {
				t.Fatal(err)
			}
			if i%100 == 0 {
				maxPending = max(maxPending, s.Stats().PendingFlushes)
			}
		}
		return s.Stats(), maxPending
	}
	st, maxPending := run(false)
	if st.Blocked == 0 || st.BlockedNanos == 0 {
		t.Fatalf("backpressure never blocked: %+v", st)
	}
	if maxPending > 2 {
		t.Fatalf("pending flushes reached %d with MaxPendingFlushes=1", maxPending)
	}
	st, maxPending = run(true)
	if st.Blocked != 0 || maxPending <= 2 {
		t.Fatalf("NoBackpressure: blocked %d, max pending %d", st.Blocked, maxPending)
	}
}
