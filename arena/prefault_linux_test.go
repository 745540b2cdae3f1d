package arena

import (
	"testing"

	"github.com/writegc/writegc/internal/oskit"
)

// pooledChunk makes a pool of opts and takes a chunk from it; the chunk
// goes back, and the pool is closed, when the test ends.
func pooledChunk(t *testing.T, opts PoolOptions) *chunk {
	t.Helper()
	p, err := NewPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c, err := p.get()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.put(c) })
	return c
}

// TestOffHeapChunkPrefaulted checks that writing a freshly mapped off-heap
// chunk takes (nearly) no page faults where the kernel can pre-fault or back
// it with huge pages: 2 MiB of small pages would take 512.
func TestOffHeapChunkPrefaulted(t *testing.T) {
	if !offHeapAvailable {
		t.Skip("mmap unavailable: off-heap falls back to on-heap")
	}
	if invariants {
		t.Skip("race and invariants builds fault on their own bookkeeping")
	}
	c := pooledChunk(t, PoolOptions{OffHeap: true})
	if _, ok := oskit.MinorFaults(); !ok {
		t.Skip("no /proc/self/stat on this system")
	}
	if noPopulate.Load() && hugePageSize() == 0 {
		t.Skip("this system cannot pre-fault (MADV_POPULATE_WRITE, Linux 5.14+) and has no huge pages")
	}
	// Other goroutines (the collector) may fault a few pages meanwhile.
	if n := faultsWriting(c.buf); n > 64 {
		t.Errorf("writing a fresh %d-byte chunk took %d page faults, want nearly none", len(c.buf), n)
	}
}

// TestHeapChunkPrefaulted is TestOffHeapChunkPrefaulted for an on-heap chunk:
// a new chunk is a Go heap object whose pages the pool pre-faults, so writing
// it takes (nearly) no faults. GC is off meanwhile so that the heap does not
// hand the chunk pages another object just dirtied, which would hide a
// missing pre-fault.
func TestHeapChunkPrefaulted(t *testing.T) {
	if invariants {
		t.Skip("race and invariants builds fault on their own bookkeeping")
	}
	if _, ok := oskit.MinorFaults(); !ok {
		t.Skip("no /proc/self/stat on this system")
	}
	if noPopulate.Load() {
		t.Skip("this system cannot pre-fault (MADV_POPULATE_WRITE, Linux 5.14+)")
	}
	p, err := NewPool(PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for range 4 { // several chunks: at least one is fresh memory from the kernel
		c, err := p.get()
		if err != nil {
			t.Fatal(err)
		}
		if n := faultsWriting(c.buf); n > 64 {
			t.Errorf("writing a new %d-byte on-heap chunk took %d page faults, want nearly none", len(c.buf), n)
		}
		defer p.put(c)
	}
}

// faultsWriting writes one byte per 4 KiB page of b and returns the minor
// faults the process took meanwhile.
func faultsWriting(b []byte) uint64 {
	before, _ := oskit.MinorFaults()
	for i := 0; i < len(b); i += 4 << 10 {
		b[i] = 1
	}
	after, _ := oskit.MinorFaults()
	return after - before
}
