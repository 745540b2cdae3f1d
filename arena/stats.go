package arena

// Stats are an arena's or a pool's counters, read without stopping writers
// (each field is read atomically; the set is not one snapshot).
type Stats struct {
	ChunkSize       int  // size of a regular chunk
	OffHeap         bool // chunks live outside the Go heap (mmap)
	OffHeapFallback bool // off-heap was asked for but mmap is unavailable: chunks are on-heap

	// For an arena: chunks it holds. For a pool: chunks handed out to arenas.
	ChunksLive int64
	// Idle chunks in the pool, ready for reuse.
	ChunksPooled int64
	// Jumbo chunks live, and their bytes.
	JumboLive  int64
	JumboBytes int64

	// Arena only: bytes handed out (alignment padding included, jumbo
	// allocations included) and bytes left unused at the tails of retired
	// chunks.
	BytesAllocated int64
	BytesWasted    int64

	// Pool counters (an arena reports its pool's).
	PoolHits    int64 // chunk requests served from idle chunks
	PoolMisses  int64 // chunk requests that allocated a new chunk
	ChunksFreed int64 // chunks freed (beyond the bound, jumbo, or on Close)
	MappedBytes int64 // off-heap bytes currently mapped
}
