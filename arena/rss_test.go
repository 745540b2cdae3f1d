package arena

import (
	"runtime/debug"
	"testing"

	"github.com/writegc/writegc/internal/oskit"
)

// TestOffHeapRSSWithinBound fills an off-heap arena far past its pool's bound
// and checks, from the kernel's count of resident memory, that after the
// arena is released the process holds at most the bound's chunks more than
// before, and after the pool is closed none.
func TestOffHeapRSSWithinBound(t *testing.T) {
	if !offHeapAvailable {
		t.Skip("mmap unavailable: off-heap falls back to on-heap")
	}
	const cs, bound, chunks = DefaultChunkSize, 4, 48
	const slack = 6 << 20 // the Go heap and runtime may move a few MiB meanwhile
	// Return the heap's free pages to the kernel first: otherwise the
	// scavenger may return garbage of earlier tests during the fill, and
	// RSS grows by less than the arena's chunks.
	debug.FreeOSMemory()
	base, ok := oskit.RSS()
	if !ok {
		t.Skip("no /proc/self/status VmRSS on this system")
	}
	p, err := NewPool(PoolOptions{ChunkSize: cs, MaxPooled: bound, OffHeap: true})
	if err != nil {
		t.Fatal(err)
	}
	a := mustArena(t, Options{Pool: p})
	for range chunks * (cs / (64 << 10)) {
		_, b, err := a.AllocBytes(64<<10 - 8)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(b); i += 4 << 10 {
			b[i] = 1 // touch every page, as a writer would
		}
	}
	full, _ := oskit.RSS()
	if grew := full - base; grew < (chunks-4)*cs {
		t.Fatalf("RSS grew by %d MiB with %d chunks filled, want at least %d MiB: the test does not see the arena's memory", grew>>20, chunks, (chunks-4)*cs>>20)
	}
	a.Release()
	released, _ := oskit.RSS()
	if over := released - base; over > bound*cs+slack {
		t.Errorf("after Release RSS is %d MiB above the start, want at most the bound's %d MiB (+%d MiB slack)", over>>20, bound*cs>>20, slack>>20)
	}
	if s := p.Stats(); s.ChunksPooled != bound || s.MappedBytes != bound*cs {
		t.Errorf("after Release: %d chunks pooled, %d bytes mapped; want %d and %d", s.ChunksPooled, s.MappedBytes, bound, bound*cs)
	}
	p.Close()
	closed, _ := oskit.RSS()
	if over := closed - base; over > slack {
		t.Errorf("after Close RSS is %d MiB above the start, want at most %d MiB of slack", over>>20, slack>>20)
	}
	t.Logf("RSS above start: %d MiB full, %d MiB released (bound %d MiB), %d MiB closed", (full-base)>>20, (released-base)>>20, bound*cs>>20, (closed-base)>>20)
}
