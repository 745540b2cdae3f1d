package arena

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chunksOf is the number of chunks (regular and jumbo) a has grabbed.
func chunksOf(a *Arena) int { return len(*a.table.Load()) }

// watchdog counts the chunks the arena under test grabs. A request that a
// fresh chunk cannot hold used to grab a new chunk on every turn of the
// allocation loop, forever; the watchdog stops such a loop by releasing the
// arena (the loop then fails with ErrReleased) and marks it fired, so the
// test fails instead of hanging.
//
// mu makes "still the allocation in flight" and "release it" one step: a
// watchdog that read the current watch just before alloc returned must not
// compare the arena's later chunk count (the next request's) against this
// request's maximum and release an arena the test still uses. Without it a
// fresh clone's test failed about once in 20 runs.
type watchdog struct {
	mu   sync.Mutex
	cur  *watched // guarded by mu
	quit chan struct{}
}

type watched struct {
	a         *Arena
	maxChunks int
	fired     atomic.Bool
}

func startWatchdog(t *testing.T) *watchdog {
	d := &watchdog{quit: make(chan struct{})}
	t.Cleanup(func() { close(d.quit) })
	go func() {
		for {
			select {
			case <-d.quit:
				return
			case <-time.After(time.Millisecond):
			}
			d.mu.Lock()
			if w := d.cur; w != nil && chunksOf(w.a) > w.maxChunks && w.fired.CompareAndSwap(false, true) {
				w.a.Release()
			}
			d.mu.Unlock()
		}
	}()
	return d
}

// alloc makes one allocation under watch. fired says the watchdog released
// the arena.
func (d *watchdog) alloc(a *Arena, n int, aligned bool, maxChunks int) (h Handle, err error, fired bool) {
	w := &watched{a: a, maxChunks: maxChunks}
	d.mu.Lock()
	d.cur = w
	d.mu.Unlock()
	if aligned {
		h, err = a.AllocAligned(n)
	} else {
		h, err = a.Alloc(n)
	}
	d.mu.Lock()
	d.cur = nil
	d.mu.Unlock()
	return h, err, w.fired.Load()
}

// boundarySizes are request sizes on both sides of every boundary the
// allocator has: 1, the 8-byte alignment, the MaxAlloc option and the
// threshold in effect, each ±9 (more than the worst-case padding). When the
// threshold is within 16 bytes of the chunk size, the chunk size ±9 and twice
// the chunk size too (elsewhere those are plain jumbo requests, already
// covered).
func boundarySizes(cs, maxAlloc, eff int) []int {
	seen := map[int]bool{}
	var out []int
	bounds := []int{1, 8, maxAlloc, eff}
	if eff >= cs-16 {
		bounds = append(bounds, cs)
	}
	for _, b := range bounds {
		for d := -9; d <= 9; d++ {
			if n := b + d; n >= 1 && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	if eff >= cs-16 {
		out = append(out, 2*cs)
	}
	return out
}

// TestAllocBoundaries is the property test of the allocation boundaries: for chunk
// sizes from 4 KiB to 2 MiB (powers of two and odd legal sizes) and MaxAlloc
// on both sides of the chunk size, New rejects a MaxAlloc above the chunk
// size, and every request near a boundary, aligned or not, returns after at
// most one chunk grab with a valid, aligned allocation that overlaps no
// other. The requests of one arena run in sequence, so they meet the current
// chunk at every fill level, a fresh chunk included.
func TestAllocBoundaries(t *testing.T) {
	sizes := []int{4097, 5000, 12345, 65537, 1<<20 + 8, 2<<20 - 1}
	for cs := 4 << 10; cs <= 2<<20; cs <<= 1 {
		sizes = append(sizes, cs)
	}
	dog := startWatchdog(t)
	for _, cs := range sizes {
		// On-heap chunks up to 128 KiB, off-heap from 64 KiB (and 4 KiB): a
		// large jumbo request costs a memclr on the heap, not in mmap memory.
		var kinds []bool
		if cs <= 128<<10 {
			kinds = append(kinds, false)
		}
		if cs >= 64<<10 || cs == 4<<10 {
			kinds = append(kinds, true)
		}
		for _, offHeap := range kinds {
			p, err := NewPool(PoolOptions{ChunkSize: cs, OffHeap: offHeap})
			if err != nil {
				t.Fatal(err)
			}
			for _, ma := range []int{0, 1, 8, cs / 2, cs - 8, cs - 7, cs - 1, cs, cs + 1, 2 * cs} {
				a, err := New(Options{Pool: p, MaxAlloc: ma})
				if ma > cs {
					if !errors.Is(err, ErrInvalidOption) {
						t.Fatalf("chunk %d: New with MaxAlloc %d = %v, want ErrInvalidOption", cs, ma, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("chunk %d MaxAlloc %d: %v", cs, ma, err)
				}
				checkBoundaries(t, dog, a, ma)
				a.Release()
			}
			p.Close()
		}
	}
}

// checkBoundaries makes every boundary request in a, aligned and not, and
// checks each result and that no two allocations overlap.
func checkBoundaries(t *testing.T, dog *watchdog, a *Arena, ma int) {
	t.Helper()
	cs, eff := a.pool.ChunkSize(), a.MaxAlloc()
	if eff+maxAlignPad > cs || eff < 1 || ma != 0 && eff > ma {
		t.Fatalf("chunk %d MaxAlloc %d: threshold in effect %d", cs, ma, eff)
	}
	var spans []span
	for _, n := range boundarySizes(cs, ma, eff) {
		for _, aligned := range []bool{false, true} {
			what := fmt.Sprintf("chunk %d MaxAlloc %d: Alloc(%d) aligned=%v", cs, ma, n, aligned)
			before := chunksOf(a)
			h, err, fired := dog.alloc(a, n, aligned, before+1)
			if fired {
				t.Fatalf("%s: grabbed more than one chunk (looping?); stopped with %v", what, err)
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := chunksOf(a) - before; got > 1 {
				t.Fatalf("%s grabbed %d chunks", what, got)
			}
			c := (*a.table.Load())[h.chunk()]
			if h.IsNil() || int(h.offset())+n > len(c.buf) {
				t.Fatalf("%s = %#x: outside its chunk of %d bytes", what, uint64(h), len(c.buf))
			}
			if c.jumbo != (n > eff) {
				t.Fatalf("%s: jumbo=%v with threshold %d", what, c.jumbo, eff)
			}
			ptr := uintptr(a.Pointer(h))
			if aligned && ptr%8 != 0 {
				t.Fatalf("%s: unaligned address %#x", what, ptr)
			}
			b := a.Bytes(h, n)
			b[0], b[n-1] = 1, 2 // writable at both ends
			spans = append(spans, span{ptr, ptr + uintptr(n), nil})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			t.Fatalf("chunk %d MaxAlloc %d: allocations [%#x,%#x) and [%#x,%#x) overlap", cs, ma, spans[i-1].lo, spans[i-1].hi, spans[i].lo, spans[i].hi)
		}
	}
}
