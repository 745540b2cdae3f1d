package arena

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Defaults, matching HBase's MSLAB.
const (
	DefaultChunkSize = 2 << 20   // hbase.hregion.memstore.mslab.chunksize
	DefaultMaxAlloc  = 256 << 10 // hbase.hregion.memstore.mslab.max.allocation
	// MaxSize is the largest single allocation (a jumbo chunk).
	MaxSize = 1 << 30
	// MaxChunkSize bounds ChunkSize so that offsets fit in 32 bits.
	MaxChunkSize = 1 << 30
	// minChunkSize keeps chunks at least one page.
	minChunkSize = 4 << 10
)

// PoolOptions configure NewPool. The zero PoolOptions gives on-heap 2 MiB
// chunks and a pool that keeps no idle chunks.
type PoolOptions struct {
	// ChunkSize is the size of every regular chunk (0: DefaultChunkSize).
	ChunkSize int
	// MaxPooled bounds the idle chunks the pool keeps for reuse; chunks
	// released beyond it are freed. 0 keeps none.
	MaxPooled int
	// OffHeap maps chunks outside the Go heap (falls back to on-heap where
	// mmap is unavailable; Stats.OffHeapFallback says so). What stays
	// mapped, what is returned and how new chunks are pre-faulted is the
	// package doc's off-heap memory policy.
	OffHeap bool
	// Prealloc fills the pool with this many chunks up front (at most MaxPooled).
	Prealloc int
	// HugePages is the transparent huge page advice for off-heap chunks
	// (zero: HugePagesAdvise, the package doc's policy). Ignored on-heap.
	HugePages HugePagePolicy
	// NoPrefault leaves new off-heap chunks to fault on first touch instead
	// of pre-faulting them (MADV_POPULATE_WRITE). On-heap chunks are
	// pre-faulted as before. For measurements that compare the two.
	NoPrefault bool
	// OnNewChunk, when set, is called with the address and size of every
	// chunk the pool allocates (regular or jumbo, on- or off-heap; not a
	// reused idle chunk), after it is mapped and pre-faulted and before any
	// arena writes it. It is a debugging hook for tools that inspect the
	// chunks' mappings (/proc/self/smaps): it may be called from any
	// goroutine that allocates, concurrently, must be safe for that and
	// must not call into the pool. The address stays valid only while the
	// chunk is live; the hook must not turn it into a pointer.
	OnNewChunk func(addr uintptr, size int)
}

// Pool recycles chunks between arenas. It is safe for concurrent use by any
// number of arenas. Its chunks live until they are freed by Close or by the
// bound; arenas must be released before the pool is closed.
type Pool struct {
	chunkSize int
	maxPooled int
	offHeap   bool // chunks are really off-heap
	fallback  bool // off-heap asked for, on-heap given
	policy    offHeapPolicy
	onNew     func(addr uintptr, size int)

	mu   sync.Mutex
	idle []*chunk

	hits, misses, freed atomic.Int64
	live, jumboLive     atomic.Int64
	mapped              atomic.Int64
	jumboBytes          atomic.Int64
}

// NewPool returns a pool. It fails only on invalid options.
func NewPool(opts PoolOptions) (*Pool, error) {
	if opts.ChunkSize == 0 {
		opts.ChunkSize = DefaultChunkSize
	}
	if opts.ChunkSize < minChunkSize || opts.ChunkSize > MaxChunkSize {
		return nil, fmt.Errorf("%w: ChunkSize %d not in [%d, %d]", ErrInvalidOption, opts.ChunkSize, minChunkSize, MaxChunkSize)
	}
	if opts.MaxPooled < 0 || opts.Prealloc < 0 {
		return nil, fmt.Errorf("%w: negative MaxPooled or Prealloc", ErrInvalidOption)
	}
	if int(opts.HugePages) >= len(hugePageNames) {
		return nil, fmt.Errorf("%w: HugePages %v", ErrInvalidOption, opts.HugePages)
	}
	p := &Pool{
		chunkSize: opts.ChunkSize,
		maxPooled: opts.MaxPooled,
		offHeap:   opts.OffHeap && offHeapAvailable,
		fallback:  opts.OffHeap && !offHeapAvailable,
		policy:    offHeapPolicy{huge: opts.HugePages, noPrefault: opts.NoPrefault},
		onNew:     opts.OnNewChunk,
	}
	for range min(opts.Prealloc, opts.MaxPooled) {
		c, err := p.newChunk(p.chunkSize, false)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.idle = append(p.idle, c)
	}
	return p, nil
}

// ChunkSize returns the size of the pool's regular chunks.
func (p *Pool) ChunkSize() int { return p.chunkSize }

// OffHeap reports whether the pool's chunks live outside the Go heap.
func (p *Pool) OffHeap() bool { return p.offHeap }

// OffHeapRequested reports whether the pool was asked for off-heap chunks
// (whether or not the platform could give them).
func (p *Pool) OffHeapRequested() bool { return p.offHeap || p.fallback }

func (p *Pool) newChunk(n int, jumbo bool) (*chunk, error) {
	var c *chunk
	if p.offHeap {
		b, err := offHeapAlloc(n, p.policy)
		if err != nil {
			return nil, err
		}
		p.mapped.Add(int64(n))
		c = newChunk(b, true, jumbo)
	} else {
		b := heapSource(n)
		prefaultHeap(b)
		c = newChunk(b, false, jumbo)
	}
	if p.onNew != nil {
		p.onNew(uintptr(c.base), len(c.buf))
	}
	return c, nil
}

// free gives a chunk's memory back. With invariants, an on-heap chunk is
// poisoned first (a stale slice into it reads poison); an off-heap chunk is
// not, since it is unmapped and any stale access faults.
func (p *Pool) free(c *chunk) {
	p.freed.Add(1)
	if c.offHeap {
		p.mapped.Add(-int64(len(c.buf)))
		if err := offHeapFree(c.buf); err != nil {
			// munmap of a range we mapped cannot fail unless the
			// invariant that we own it is broken.
			panic(err)
		}
	} else if invariants {
		poison(c.buf)
	}
	c.buf, c.base = nil, nil
}

// get returns a regular chunk, reused when one is idle.
func (p *Pool) get() (*chunk, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		p.hits.Add(1)
		p.live.Add(1)
		c.off.Store(0)
		c.waste.Store(0)
		return c, nil
	}
	p.mu.Unlock()
	c, err := p.newChunk(p.chunkSize, false)
	if err != nil {
		return nil, err
	}
	p.misses.Add(1)
	p.live.Add(1)
	return c, nil
}

// getJumbo returns a dedicated chunk of exactly n bytes (never pooled).
func (p *Pool) getJumbo(n int) (*chunk, error) {
	c, err := p.newChunk(n, true)
	if err != nil {
		return nil, err
	}
	p.jumboLive.Add(1)
	p.jumboBytes.Add(int64(n))
	return c, nil
}

// put takes a chunk back from an arena. With invariants, every chunk that
// goes idle is poisoned (under the pool's lock: those builds trade speed for
// checks), and free poisons the on-heap ones it frees.
func (p *Pool) put(c *chunk) {
	if c.jumbo {
		p.jumboLive.Add(-1)
		p.jumboBytes.Add(-int64(len(c.buf)))
		p.free(c)
		return
	}
	p.live.Add(-1)
	p.mu.Lock()
	if len(p.idle) < p.maxPooled {
		if invariants {
			poison(c.buf)
		}
		p.idle = append(p.idle, c)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.free(c)
}

// Close frees every idle chunk. Chunks still held by arenas are freed when
// those arenas are released (the bound no longer keeps them). Close is
// idempotent.
func (p *Pool) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.maxPooled = 0
	p.mu.Unlock()
	for _, c := range idle {
		p.free(c)
	}
}

// Stats returns the pool's counters. The arena-level fields are zero.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	pooled := int64(len(p.idle))
	p.mu.Unlock()
	return Stats{
		ChunkSize:       p.chunkSize,
		OffHeap:         p.offHeap,
		OffHeapFallback: p.fallback,
		ChunksLive:      p.live.Load(),
		ChunksPooled:    pooled,
		JumboLive:       p.jumboLive.Load(),
		JumboBytes:      p.jumboBytes.Load(),
		PoolHits:        p.hits.Load(),
		PoolMisses:      p.misses.Load(),
		ChunksFreed:     p.freed.Load(),
		MappedBytes:     p.mapped.Load(),
	}
}
