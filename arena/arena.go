package arena

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/writegc/writegc/internal/slowdown"
)

// Options configure New. The zero Options gives an on-heap arena of 2 MiB
// chunks with a private pool that keeps no idle chunks.
type Options struct {
	// Pool supplies chunks. Nil: a private pool built from ChunkSize and
	// OffHeap, closed when the arena is released.
	Pool *Pool
	// ChunkSize and OffHeap are used only when Pool is nil.
	ChunkSize int
	OffHeap   bool
	// MaxAlloc is the largest allocation served from a regular chunk; larger
	// ones get a jumbo chunk of their own. It must be in [0, chunk size]:
	// New rejects a larger value, which would promise to fit in a chunk what
	// cannot. 0 means DefaultMaxAlloc, capped at the chunk size. The
	// threshold in effect (Arena.MaxAlloc) is further capped at the chunk
	// size minus Overflow and the worst-case alignment padding (7 bytes), so
	// that every request served from a regular chunk fits in a fresh one.
	MaxAlloc int
	// Overflow is how many bytes every allocation leaves free after its end,
	// inside its chunk: in [0, MaxOverflow]. It lets a reader view an
	// allocation through a fixed-size type that runs past its end (a
	// skiplist node allocated with only part of its tower) without the view
	// leaving the chunk, which the race detector's pointer checks reject
	// for an on-heap chunk, and which could fault past an off-heap one. The
	// bytes are never handed out: they count as the chunk's waste. 0: none.
	Overflow int
}

// MaxOverflow bounds Options.Overflow.
const MaxOverflow = 1 << 10

// maxAlignPad is the worst-case padding of an AllocAligned request: it aligns
// to 8 bytes.
const maxAlignPad = 7

// Arena is a bump allocator over chunks.
//
// Concurrency: Alloc, AllocAligned, Bytes, Pointer, Retain and Stats are safe
// for concurrent use (Stats also during Release). The fast path of Alloc is
// lock-free.
// Lifetime: an arena starts with one reference, held by its creator. Retain
// adds one (for a reader that may outlive the writer) and Release drops one;
// at zero the chunks go back to the pool and the arena can no longer
// allocate. Using memory of a released arena is a bug: with the invariants
// tag (or -race) it panics, without it the memory may already belong to
// another arena or be unmapped. Callers that may release while others read
// must make the readers hold a reference or wait for them (the memtable's
// Close does).
// Limits: one allocation is at most MaxSize bytes; one from a regular chunk
// at most MaxAlloc(), which is below the chunk size by the alignment
// padding and the Overflow reserve, so an allocation grabs at most one
// chunk; an arena holds at most 2^32-1 chunks (allocations that need a
// Compact address: 32 GiB of chunks).
type Arena struct {
	pool        *Pool
	privatePool bool
	maxAlloc    int
	overflow    int
	cshift      uint   // bits of offset/8 in a Compact
	cmask       uint32 // 1<<cshift - 1

	cur   atomic.Pointer[chunk]    // chunk being filled; nil before the first Alloc and after release
	table atomic.Pointer[[]*chunk] // every chunk, by index; appended in place, reallocated when full (attach)
	// bases points at element 0 of an array of the chunks'
	// base addresses, by index (nil before the first chunk), so Pointer
	// resolves a handle with one dependent load instead of three (table,
	// chunk, base): a skiplist search resolves one per node it visits.
	bases atomic.Pointer[unsafe.Pointer]
	// baseArr is the array bases points into, with its spare capacity
	// (guarded by mu).
	baseArr []unsafe.Pointer

	mu       sync.Mutex // guards growth and release
	refs     atomic.Int64
	released atomic.Bool
}

// New returns an arena. It fails only on invalid options.
func New(opts Options) (*Arena, error) {
	if opts.Overflow < 0 || opts.Overflow > MaxOverflow {
		return nil, fmt.Errorf("%w: Overflow %d not in [0, %d]", ErrInvalidOption, opts.Overflow, MaxOverflow)
	}
	a := &Arena{pool: opts.Pool}
	if a.pool == nil {
		p, err := NewPool(PoolOptions{ChunkSize: opts.ChunkSize, OffHeap: opts.OffHeap})
		if err != nil {
			return nil, err
		}
		a.pool, a.privatePool = p, true
	} else if opts.ChunkSize != 0 && opts.ChunkSize != a.pool.chunkSize {
		return nil, fmt.Errorf("%w: ChunkSize %d but the pool's chunks are %d", ErrPoolMismatch, opts.ChunkSize, a.pool.chunkSize)
	}
	a.overflow = opts.Overflow
	a.cshift, a.cmask = compactLayout(a.pool.chunkSize)
	fit := a.pool.chunkSize - a.overflow - maxAlignPad // fits a fresh chunk
	switch cs := a.pool.chunkSize; {
	case opts.MaxAlloc < 0:
		return nil, fmt.Errorf("%w: negative MaxAlloc %d", ErrInvalidOption, opts.MaxAlloc)
	case opts.MaxAlloc > cs:
		return nil, fmt.Errorf("%w: MaxAlloc %d exceeds the chunk size %d (larger requests always take a jumbo chunk)", ErrInvalidOption, opts.MaxAlloc, cs)
	case opts.MaxAlloc == 0:
		a.maxAlloc = min(DefaultMaxAlloc, fit)
	default:
		a.maxAlloc = min(opts.MaxAlloc, fit)
	}
	empty := []*chunk{}
	a.table.Store(&empty)
	a.refs.Store(1)
	return a, nil
}

// Pool returns the arena's chunk pool.
func (a *Arena) Pool() *Pool { return a.pool }

// MaxAlloc returns the largest allocation served from a regular chunk: the
// MaxAlloc option (or its default), capped at the chunk size minus Overflow
// and the worst-case alignment padding. Larger allocations get a jumbo chunk.
func (a *Arena) MaxAlloc() int { return a.maxAlloc }

// Alloc returns n bytes (n in [1, MaxSize]) with no particular alignment.
func (a *Arena) Alloc(n int) (Handle, error) {
	h, _, err := a.alloc(n, 0)
	return h, err
}

// AllocAligned returns n bytes whose address is 8-byte aligned, for values
// accessed with atomic operations.
func (a *Arena) AllocAligned(n int) (Handle, error) {
	h, _, err := a.alloc(n, maxAlignPad)
	return h, err
}

// AllocBytes is Alloc that also returns the allocation as a slice, saving the
// chunk-table lookup of a later Bytes call.
func (a *Arena) AllocBytes(n int) (Handle, []byte, error) { return a.alloc(n, 0) }

// AllocAlignedPointer is AllocAligned that also returns the address.
func (a *Arena) AllocAlignedPointer(n int) (Handle, unsafe.Pointer, error) {
	h, b, err := a.alloc(n, maxAlignPad)
	if err != nil {
		return h, nil, err
	}
	return h, unsafe.Pointer(unsafe.SliceData(b)), nil
}

func (a *Arena) alloc(n int, pad int) (Handle, []byte, error) {
	slowdown.Inject(slowdown.ArenaAlloc)
	if n <= 0 {
		return Nil, nil, fmt.Errorf("%w: %d", ErrInvalidSize, n)
	}
	if n > a.maxAlloc {
		return a.allocJumbo(n)
	}
	size := uint64(n + pad)
	for {
		c := a.cur.Load()
		if c != nil {
			end := c.off.Add(size)
			if end <= c.limit {
				start := uint32(end - size)
				if pad != 0 {
					// Chunk bases are 8-byte aligned (mmap'd pages or Go heap
					// objects of at least 16 bytes, see heapSource), so
					// aligning the offset aligns the address.
					start = (start + uint32(pad)) &^ uint32(pad)
				}
				return makeHandle(c.idx, start), unsafe.Slice((*byte)(unsafe.Add(c.base, start)), n), nil
			}
			if start := end - size; start <= c.limit {
				// This Add crossed the limit: it alone records the unused
				// tail (the overflow reserve included).
				c.waste.Store(int64(uint64(len(c.buf)) - start))
				if start == 0 {
					// Not even a fresh chunk holds the request: growing
					// again would loop forever. New's cap on maxAlloc
					// rules this out.
					panic(fmt.Sprintf("arena: request of %d bytes (padding included) does not fit a %d-byte chunk", size, len(c.buf)))
				}
			}
		}
		if err := a.grow(c); err != nil {
			return Nil, nil, err
		}
	}
}

// grow installs a new current chunk unless another goroutine already replaced old.
func (a *Arena) grow(old *chunk) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released.Load() {
		return ErrReleased
	}
	if a.cur.Load() != old {
		return nil
	}
	c, err := a.pool.get()
	if err != nil {
		return err
	}
	c.limit = uint64(len(c.buf) - a.overflow)
	a.attach(c)
	a.cur.Store(c)
	return nil
}

// attach appends c to the chunk table and its base to bases. a.mu must be
// held.
//
// Both arrays grow by doubling, always to the same capacity, and are
// appended to in place while they have room, so attaching is amortised O(1)
// rather than a copy of every earlier entry (a memtable of 10 KB values
// attaches a chunk every 200 Puts and holds about 500: the copies were 5% of
// its Puts' CPU profile, and garbage that started GC cycles). In-place
// appends are safe for lock-free readers: a reader indexes only chunks whose
// handles it was given, and every such handle was made after the entry was
// written (the entry is written before cur is stored, and cur's load
// precedes the handle). An array that is outgrown is left to the readers
// still holding it, unchanged.
func (a *Arena) attach(c *chunk) {
	t := *a.table.Load()
	n := len(t)
	c.idx = uint32(n)
	if n == cap(t) {
		t = append(make([]*chunk, 0, max(2*n, 8)), t...)
		b := make([]unsafe.Pointer, n, cap(t))
		copy(b, a.baseArr)
		a.baseArr = b
	}
	t = t[:n+1]
	t[n] = c
	a.baseArr = a.baseArr[:n+1]
	a.baseArr[n] = c.base
	a.bases.Store(&a.baseArr[0])
	a.table.Store(&t)
}

func (a *Arena) allocJumbo(n int) (Handle, []byte, error) {
	if n > MaxSize {
		return Nil, nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, n)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released.Load() {
		return Nil, nil, ErrReleased
	}
	c, err := a.pool.getJumbo(n + a.overflow)
	if err != nil {
		return Nil, nil, err
	}
	c.off.Store(uint64(len(c.buf)))
	c.limit = uint64(n)
	a.attach(c)
	return makeHandle(c.idx, 0), c.buf[:n], nil
}

// Pointer returns the address of the allocation h. h must come from this
// arena and the arena must not be released.
func (a *Arena) Pointer(h Handle) unsafe.Pointer {
	if invariants {
		a.check(h)
	}
	base := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(a.bases.Load()), uintptr(h.chunk())*unsafe.Sizeof(unsafe.Pointer(nil))))
	return unsafe.Add(base, h.offset())
}

// Bytes returns the n bytes at h as a slice (no copy). n must not exceed the
// allocation's size.
func (a *Arena) Bytes(h Handle, n int) []byte {
	return unsafe.Slice((*byte)(a.Pointer(h)), n)
}

// Copy allocates len(b) bytes and copies b into them.
func (a *Arena) Copy(b []byte) (Handle, error) {
	h, dst, err := a.alloc(len(b), 0)
	if err != nil {
		return Nil, err
	}
	copy(dst, b)
	return h, nil
}

func (a *Arena) check(h Handle) {
	if a.released.Load() {
		panic(fmt.Sprintf("arena: access to handle %#x of a released arena (use after Release)", uint64(h)))
	}
	t := *a.table.Load()
	if h.IsNil() || int(h.chunk()) >= len(t) || int(h.offset()) >= len(t[h.chunk()].buf) {
		panic(fmt.Sprintf("arena: handle %#x out of range (%d chunks)", uint64(h), len(t)))
	}
}

// Retain adds a reference, so the arena's memory stays valid until a
// matching Release. It fails on an arena already released.
func (a *Arena) Retain() error {
	for {
		r := a.refs.Load()
		if r <= 0 {
			return ErrReleased
		}
		if a.refs.CompareAndSwap(r, r+1) {
			return nil
		}
	}
}

// Release drops a reference. The last one returns every chunk to the pool
// (jumbo chunks are freed) and, for a private pool, closes it. Releasing
// more often than the arena was retained panics: it is a broken invariant.
func (a *Arena) Release() {
	r := a.refs.Add(-1)
	if r > 0 {
		return
	}
	if r < 0 {
		panic("arena: Release called more often than New+Retain")
	}
	a.mu.Lock()
	a.released.Store(true)
	a.cur.Store(nil)
	a.bases.Store(nil)
	a.baseArr = nil
	t := *a.table.Load()
	a.mu.Unlock()
	for _, c := range t {
		a.pool.put(c)
	}
	if a.privatePool {
		a.pool.Close()
	}
}

// Released reports whether the arena's reference count reached zero.
func (a *Arena) Released() bool { return a.released.Load() }

// Stats returns the arena's own counters plus its pool's. It is safe at any
// time, also while the arena is being released: it holds the arena's mutex,
// so the chunks it reads cannot be freed under it (a released arena reports
// no chunks).
func (a *Arena) Stats() Stats {
	s := a.pool.Stats()
	s.ChunksLive, s.JumboLive, s.JumboBytes = 0, 0, 0
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.released.Load() {
		return s
	}
	cur := a.cur.Load()
	for _, c := range *a.table.Load() {
		if c.jumbo {
			s.JumboLive++
			s.JumboBytes += int64(len(c.buf))
			s.BytesAllocated += int64(len(c.buf))
			continue
		}
		s.ChunksLive++
		s.BytesAllocated += c.used()
		if c != cur {
			s.BytesWasted += c.waste.Load()
		}
	}
	return s
}
