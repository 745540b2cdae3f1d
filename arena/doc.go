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
//   - An 8-byte-aligned allocation also has a Compact address, 32 bits (chunk
//     index plus one and offset / 8, split by the chunk size), for structures
//     that pack a link and other bits into one word; (*Arena).Compact makes
//     it and CompactPointer resolves it, so callers never decode a handle's
//     bits.
//   - With Options.Overflow, every allocation leaves that many bytes of its
//     chunk free after it, so a fixed-size view of a shorter allocation
//     (a skiplist node with part of its tower) never leaves the chunk.
//   - Allocation ranges never overlap, whatever the concurrency: the fast
//     path is one atomic add on the current chunk's offset; only moving to a
//     new chunk takes the arena's mutex.
//   - A chunk goes back to its pool only when the arena's reference count
//     drops to zero (Retain/Release), so a reader that outlives the writer
//     keeps the memory valid. Jumbo chunks are never pooled: they are freed.
//   - The pool holds at most its bound (PoolOptions.MaxPooled) of idle
//     chunks; the rest are freed (off-heap chunks are munmapped at once, so
//     mapped bytes and resident memory really drop).
//   - Memory handed out is not zeroed: the caller writes before it reads.
//
// With the `invariants` build tag, and in race-detector builds, idle pooled
// chunks and freed on-heap chunks are poisoned and any access through a
// released arena panics with a clear message. Expected failures are
// sentinel errors (ErrInvalidSize, ErrTooLarge, ErrReleased); panics mean a
// broken invariant.
//
// Off-heap memory policy. An on-heap chunk reuses pages the Go heap already
// faulted in; an off-heap chunk is fresh anonymous memory, and left alone each
// of its 4 KiB pages would take a page fault on first write (about 2.5 per
// 10 KB value). So, on Linux:
//   - Kept mapped: idle chunks up to the pool's bound stay mapped and
//     resident, and are reused as they are (no fault, no zeroing). Where
//     pre-faulting works (below), a live chunk is resident in full from the
//     moment it is mapped, not only the part its arena has filled.
//   - Returned: a regular chunk released beyond the bound, every jumbo chunk
//     when its arena is released, and every idle chunk on Pool.Close are
//     munmapped: their pages and address range go back at once. Resident
//     off-heap memory of a pool is therefore at most its live chunks plus
//     MaxPooled*ChunkSize, and zero after Close (TestOffHeapRSSWithinBound
//     checks this against VmRSS). Nothing is kept mapped past the bound, and
//     no MADV_FREE is used: lazily freed pages would still count as resident.
//   - New chunks are pre-faulted: a chunk whose size is a multiple of the
//     transparent huge page size (2 MiB on amd64, so DefaultChunkSize) is
//     mapped at an address aligned to it and advised MADV_HUGEPAGE, when THP
//     is "always" or "madvise"; then every new off-heap chunk, jumbo ones
//     included, is populated with MADV_POPULATE_WRITE (Linux 5.14+), so the
//     writers filling it take no page faults. The kernel still zeroes the
//     pages, as the Go heap zeroes a reused on-heap chunk. On older kernels
//     pages fault on first write (fewer with huge pages); on other unix
//     systems chunks are plain mmap memory (advise_other.go).
//   - PoolOptions.HugePages (no advice, or MADV_NOHUGEPAGE, instead of
//     MADV_HUGEPAGE) and PoolOptions.NoPrefault change the last point for
//     measurements (docs/offheap-bimodality.md); chunks stay aligned.
//
// On-heap chunks are pre-faulted too, on Linux: a new one (a Go heap object
// of 64 KiB or more, not a chunk the pool recycled) gets MADV_POPULATE_WRITE
// over the whole pages inside it. Memory the heap has just taken from the
// kernel, or scavenged back to it, is untouched until written, so otherwise
// the arena's writers would take one fault per 4 KiB. Only faults move: the
// chunk is filled anyway, no flag of the heap's mapping changes, and the
// runtime scavenges the pages as usual once the chunk is garbage.
//
// Off-heap memory comes from source_mmap.go (unix) or, where mmap is not
// available, from its twin source_heap.go, which falls back to on-heap chunks
// and says so in Stats.OffHeapFallback; both have the same behaviour and
// counters.
package arena
