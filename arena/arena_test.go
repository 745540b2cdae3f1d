package arena

import (
	"errors"
	"reflect"
	"sort"
	"sync"
	"testing"
	"unsafe"

	"github.com/writegc/writegc/internal/ptrcheck"
)

func mustArena(t testing.TB, opts Options) *Arena {
	t.Helper()
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestZeroHandleIsNil(t *testing.T) {
	a := mustArena(t, Options{})
	defer a.Release()
	h, err := a.Alloc(1)
	if err != nil {
		t.Fatal(err)
	}
	if h.IsNil() || h == Nil {
		t.Fatalf("first allocation returned the nil handle")
	}
}

func TestAllocErrors(t *testing.T) {
	a := mustArena(t, Options{})
	for _, n := range []int{0, -1, -1 << 40} {
		if _, err := a.Alloc(n); !errors.Is(err, ErrInvalidSize) {
			t.Errorf("Alloc(%d) = %v, want ErrInvalidSize", n, err)
		}
	}
	if _, err := a.Alloc(MaxSize + 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Alloc(MaxSize+1) = %v, want ErrTooLarge", err)
	}
	a.Release()
	if _, err := a.Alloc(10); !errors.Is(err, ErrReleased) {
		t.Errorf("Alloc after Release = %v, want ErrReleased", err)
	}
	if _, err := a.Alloc(DefaultMaxAlloc + 1); !errors.Is(err, ErrReleased) {
		t.Errorf("jumbo Alloc after Release = %v, want ErrReleased", err)
	}
	if err := a.Retain(); !errors.Is(err, ErrReleased) {
		t.Errorf("Retain after Release = %v, want ErrReleased", err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{ChunkSize: 100}, {ChunkSize: MaxChunkSize + 1}, {MaxAlloc: -1}, {Overflow: -1}, {Overflow: MaxOverflow + 1}} {
		if _, err := New(o); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("New(%+v) = %v, want ErrInvalidOption", o, err)
		}
	}
	p, _ := NewPool(PoolOptions{ChunkSize: 64 << 10})
	if _, err := New(Options{Pool: p, ChunkSize: 128 << 10}); !errors.Is(err, ErrPoolMismatch) {
		t.Errorf("mismatched chunk size: %v, want ErrPoolMismatch", err)
	}
	if _, err := NewPool(PoolOptions{MaxPooled: -1}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("negative MaxPooled: %v", err)
	}
}

func TestDoubleReleasePanics(t *testing.T) {
	a := mustArena(t, Options{})
	a.Release()
	defer func() {
		if recover() == nil {
			t.Fatal("second Release did not panic")
		}
	}()
	a.Release()
}

type span struct {
	lo, hi uintptr
	b      []byte
}

// TestConcurrentAllocNoOverlap has many goroutines allocate mixed sizes, fill
// their ranges with their own id, then checks that no two ranges overlap and
// that every range still holds its owner's bytes.
func TestConcurrentAllocNoOverlap(t *testing.T) {
	for _, offHeap := range []bool{false, true} {
		a := mustArena(t, Options{ChunkSize: 64 << 10, MaxAlloc: 8 << 10, OffHeap: offHeap})
		const workers, per = 8, 2000
		spans := make([][]span, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := uint32(w*7919 + 1)
				for i := range per {
					x ^= x << 13
					x ^= x >> 17
					x ^= x << 5
					n := int(x%300) + 1
					if i%97 == 0 {
						n = 9000 + int(x%1000) // jumbo
					}
					var h Handle
					var err error
					if i%2 == 0 {
						h, err = a.AllocAligned(n)
					} else {
						h, err = a.Alloc(n)
					}
					if err != nil {
						t.Error(err)
						return
					}
					p := a.Pointer(h)
					if i%2 == 0 && uintptr(p)%8 != 0 {
						t.Errorf("AllocAligned returned unaligned %p", p)
					}
					b := a.Bytes(h, n)
					for j := range b {
						b[j] = byte(w)
					}
					spans[w] = append(spans[w], span{uintptr(p), uintptr(p) + uintptr(n), b})
				}
			}()
		}
		wg.Wait()
		var all []span
		for w, ss := range spans {
			for _, s := range ss {
				for _, c := range s.b {
					if c != byte(w) {
						t.Fatalf("range of worker %d overwritten with %d", w, c)
					}
				}
				all = append(all, s)
			}
		}
		sort.Slice(all, func(i, j int) bool { return all[i].lo < all[j].lo })
		for i := 1; i < len(all); i++ {
			if all[i].lo < all[i-1].hi {
				t.Fatalf("overlap: [%#x,%#x) and [%#x,%#x)", all[i-1].lo, all[i-1].hi, all[i].lo, all[i].hi)
			}
		}
		s := a.Stats()
		if s.JumboLive == 0 || s.ChunksLive < 2 {
			t.Errorf("stats %+v: expected jumbo chunks and several regular chunks", s)
		}
		a.Release()
	}
}

func TestJumbo(t *testing.T) {
	p, err := NewPool(PoolOptions{ChunkSize: 64 << 10, MaxPooled: 4})
	if err != nil {
		t.Fatal(err)
	}
	a := mustArena(t, Options{Pool: p, MaxAlloc: 1 << 10})
	h, err := a.Alloc(1<<10 + 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.offset() != 0 {
		t.Errorf("jumbo allocation at offset %d, want 0", h.offset())
	}
	big, err := a.Alloc(200 << 10) // larger than a chunk
	if err != nil {
		t.Fatal(err)
	}
	b := a.Bytes(big, 200<<10)
	b[len(b)-1] = 1
	s := a.Stats()
	if s.JumboLive != 2 || s.JumboBytes != 1<<10+1+200<<10 {
		t.Errorf("arena stats %+v: want 2 jumbo chunks of %d bytes", s, 1<<10+1+200<<10)
	}
	a.Release()
	ps := p.Stats()
	if ps.JumboLive != 0 || ps.ChunksPooled != 0 || ps.ChunksFreed != 2 {
		t.Errorf("after release: %+v: jumbo chunks must be freed, never pooled", ps)
	}
}

func TestPoolReuseAndBound(t *testing.T) {
	p, err := NewPool(PoolOptions{ChunkSize: 16 << 10, MaxPooled: 3})
	if err != nil {
		t.Fatal(err)
	}
	fill := func(chunks int) *Arena {
		a := mustArena(t, Options{Pool: p})
		for range chunks * 16 {
			if _, err := a.Alloc(1 << 10); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	a := fill(5)
	if s := p.Stats(); s.ChunksLive != 5 || s.PoolMisses != 5 || s.PoolHits != 0 {
		t.Fatalf("after first arena: %+v", s)
	}
	a.Release()
	if s := p.Stats(); s.ChunksPooled != 3 || s.ChunksFreed != 2 || s.ChunksLive != 0 {
		t.Fatalf("after release, bound 3: %+v", s)
	}
	b := fill(4)
	if s := p.Stats(); s.PoolHits != 3 || s.PoolMisses != 6 || s.ChunksPooled != 0 {
		t.Fatalf("second arena should reuse 3 chunks: %+v", s)
	}
	b.Release()
	p.Close()
	if s := p.Stats(); s.ChunksPooled != 0 {
		t.Fatalf("after Close: %+v", s)
	}
}

func TestRetainRelease(t *testing.T) {
	p, _ := NewPool(PoolOptions{ChunkSize: 16 << 10, MaxPooled: 8})
	a := mustArena(t, Options{Pool: p})
	h, _ := a.Copy([]byte("hello"))
	if err := a.Retain(); err != nil { // a reader
		t.Fatal(err)
	}
	a.Release() // the writer lets go
	if a.Released() {
		t.Fatal("released while a reader holds a reference")
	}
	if got := string(a.Bytes(h, 5)); got != "hello" {
		t.Fatalf("reader sees %q", got)
	}
	if p.Stats().ChunksPooled != 0 {
		t.Fatal("chunk returned to pool while still referenced")
	}
	a.Release() // the reader lets go
	if !a.Released() || p.Stats().ChunksPooled != 1 {
		t.Fatalf("last release must pool the chunk: %+v", p.Stats())
	}
}

func TestWasteAccounting(t *testing.T) {
	a := mustArena(t, Options{ChunkSize: 4 << 10})
	defer a.Release()
	for range 100 {
		if _, err := a.Alloc(1000); err != nil {
			t.Fatal(err)
		}
	}
	s := a.Stats()
	// 4 allocations of 1000 fit in 4096: 96 bytes wasted per retired chunk.
	retired := s.ChunksLive - 1
	if s.BytesWasted != retired*96 {
		t.Errorf("wasted %d, want %d (%d retired chunks)", s.BytesWasted, retired*96, retired)
	}
	if s.BytesAllocated != 100*1000 {
		t.Errorf("allocated %d, want %d", s.BytesAllocated, 100*1000)
	}
}

func TestOffHeapMemoryGoesBack(t *testing.T) {
	p, err := NewPool(PoolOptions{ChunkSize: 64 << 10, MaxPooled: 2, OffHeap: true})
	if err != nil {
		t.Fatal(err)
	}
	if !offHeapAvailable {
		if !p.Stats().OffHeapFallback {
			t.Fatal("fallback not reported")
		}
		t.Skip("mmap unavailable: off-heap falls back to on-heap")
	}
	a := mustArena(t, Options{Pool: p})
	for range 10 * 64 {
		if _, err := a.Alloc(1 << 10); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Alloc(300 << 10); err != nil { // jumbo
		t.Fatal(err)
	}
	before := p.Stats().MappedBytes
	if before < 10*64<<10+300<<10 {
		t.Fatalf("mapped %d bytes, want at least %d", before, 10*64<<10+300<<10)
	}
	a.Release()
	after := p.Stats().MappedBytes
	if after != 2*64<<10 {
		t.Fatalf("mapped after release = %d, want %d (2 pooled chunks)", after, 2*64<<10)
	}
	p.Close()
	if m := p.Stats().MappedBytes; m != 0 {
		t.Fatalf("mapped after Close = %d", m)
	}
}

func TestNoPointers(t *testing.T) {
	if ptrcheck.HasPointers(reflect.TypeFor[Handle]()) {
		t.Error("Handle holds pointers")
	}
	// Chunk memory is a []byte: its element type must be pointer-free so the
	// GC allocates it noscan.
	if ptrcheck.HasPointers(reflect.TypeFor[chunk]().Field(0).Type.Elem()) {
		t.Error("chunk memory element type holds pointers")
	}
	if !ptrcheck.HasPointers(reflect.TypeFor[*int]()) || !ptrcheck.HasPointers(reflect.TypeFor[struct{ s string }]()) {
		t.Error("hasPointers misses pointers")
	}
}

// TestStatsDuringRelease reads Stats while the arena is released: Stats must
// not read the chunks that Release is freeing (before it took the arena's
// mutex, the race detector saw it read a chunk's buffer as free cleared it).
func TestStatsDuringRelease(t *testing.T) {
	for range 100 {
		a := mustArena(t, Options{ChunkSize: 4 << 10, MaxAlloc: 1 << 10, OffHeap: true})
		for i := range 200 {
			if _, err := a.Alloc(100 + i*7%1100); err != nil { // some jumbo
				t.Fatal(err)
			}
		}
		started := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			close(started)
			for !a.Released() {
				_ = a.Stats()
			}
			if s := a.Stats(); s.ChunksLive != 0 || s.JumboLive != 0 {
				t.Errorf("released arena reports chunks: %+v", s)
			}
		}()
		<-started
		_ = a.Stats()
		a.Release()
		<-done
	}
}

// TestAttachAmortised: the chunk table and the bases array grow by doubling,
// so 1000 chunks replace the bases array about log2(1000) times, not once
// per chunk, and every handle still resolves to its own bytes.
func TestAttachAmortised(t *testing.T) {
	a := mustArena(t, Options{ChunkSize: 4 << 10, MaxAlloc: 4 << 10})
	defer a.Release()
	const chunks = 1000
	var hs []Handle
	arrays := map[*unsafe.Pointer]bool{}
	for i := range chunks {
		h, b, err := a.AllocBytes(4<<10 - maxAlignPad)
		if err != nil {
			t.Fatal(err)
		}
		b[0] = byte(i)
		hs = append(hs, h)
		arrays[a.bases.Load()] = true
	}
	if got := len(*a.table.Load()); got != chunks {
		t.Fatalf("%d chunks, want %d", got, chunks)
	}
	if len(arrays) > 12 {
		t.Fatalf("bases array replaced %d times for %d chunks, want about log2 of it", len(arrays), chunks)
	}
	for i, h := range hs {
		if got := a.Bytes(h, 1)[0]; got != byte(i) {
			t.Fatalf("handle %d reads %d", i, got)
		}
	}
}
