// Package arena is writegc's chunked arena: MSLAB for Go.
//
// An Arena hands out byte ranges by bump allocation inside large chunks
// (DefaultChunkSize, 2 MiB). Allocations larger than MaxAlloc (default
// 256 KiB) get a dedicated jumbo chunk of their own. MaxAlloc may not exceed
// the chunk size (New rejects it), and the threshold in effect is capped at
// the chunk size minus the worst-case alignment padding (7 bytes), so every
// request served from a regular chunk fits in a fresh one: an allocation
// grabs at most one new chunk and never loops. Chunks come from a Pool
// that recycles them between arenas, so a memtable that is flushed and
// replaced reuses the memory of its predecessor without allocating.
//
// Invariants:
//   - Chunk memory holds no Go pointers. Callers store offsets (Handle), never
//     pointers, inside it, so the garbage collector never scans it: an
//     on-heap chunk is one noscan []byte, an off-heap chunk is anonymous mmap
//     memory outside the Go heap altogether.
//   - An allocation is addressed by a Handle: chunk index and offset in one
//     uint64. The zero Handle is nil and is never returned by a successful
//     Alloc.
//   - Allocation ranges never overlap, whatever the concurrency: the fast
//     path is one atomic add on the current chunk's offset; only moving to a
//     new chunk takes the arena's mutex.
//   - A chunk goes back to its pool only when the arena's reference count
//     drops to zero (Retain/Release), so a reader that outlives the writer
//     keeps the memory valid. Jumbo chunks are never pooled: they are freed.
//   - The pool holds at most its bound of idle chunks; the rest are freed
//     (off-heap chunks are munmapped at once, so mapped bytes really drop).
//   - Memory handed out is not zeroed: the caller writes before it reads.
//
// With the `invariants` build tag, and in race-detector builds, idle pooled
// chunks and freed on-heap chunks are poisoned and any access through a
// released arena panics with a clear message. Expected failures are
// sentinel errors (ErrInvalidSize, ErrTooLarge, ErrReleased); panics mean a
// broken invariant.
//
// Off-heap memory comes from source_mmap.go (unix) or, where mmap is not
// available, from its twin source_heap.go, which falls back to on-heap chunks
// and says so in Stats.OffHeapFallback; both have the same behaviour and
// counters.
package arena
