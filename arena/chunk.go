package arena

import (
	"sync/atomic"
	"unsafe"
)

// chunk is one contiguous block of arena memory. Its bytes hold no Go
// pointers. A chunk belongs to at most one arena at a time.
type chunk struct {
	buf  []byte         // the memory; len(buf) is the chunk's capacity
	base unsafe.Pointer // &buf[0], cached for Pointer
	// limit is where allocations must end: len(buf) less the owning
	// arena's Overflow (set when the arena attaches the chunk).
	limit uint64
	// off is the bump offset. Concurrent Allocs add to it; it may pass
	// limit, which retires the chunk. Exactly one Add crosses limit;
	// that caller records the tail it leaves unused in waste.
	off     atomic.Uint64
	waste   atomic.Int64
	idx     uint32 // index in the owning arena's table
	jumbo   bool
	offHeap bool // buf is mmap'd outside the Go heap
}

func newChunk(buf []byte, offHeap, jumbo bool) *chunk {
	return &chunk{buf: buf, base: unsafe.Pointer(unsafe.SliceData(buf)), offHeap: offHeap, jumbo: jumbo}
}

// used returns how many bytes of the chunk were handed out (alignment padding
// included), whatever the state of its offset.
func (c *chunk) used() int64 {
	off := c.off.Load()
	if off > c.limit {
		return int64(len(c.buf)) - c.waste.Load()
	}
	return int64(off)
}

// heapSource allocates an on-heap chunk: one []byte, which the garbage
// collector allocates as a noscan object and never scans. The capacity is at
// least 16 bytes so that a tiny jumbo chunk (MaxAlloc below 8) stays out of
// the runtime's tiny allocator, which packs objects under 16 bytes without
// 8-byte alignment; every larger size class is a multiple of 8.
func heapSource(n int) []byte { return make([]byte, n, max(n, 16)) }
