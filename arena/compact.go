package arena

import (
	"math/bits"
	"unsafe"
)

// Compact is a 32-bit address of an 8-byte-aligned allocation: the index of
// its chunk plus one in the high bits and its offset divided by 8 in the low
// bits, split by the arena's chunk size (CompactShift). A data structure
// that links allocations (a skiplist's tower) can store a Compact in half
// of a 64-bit word and keep the other half for itself. The zero Compact is
// nil, like the zero Handle.
//
// A Compact is valid only with the arena that made it and until the arena is
// released, as its Handle is; it holds no pointer. Limits: 2^32 eight-byte
// units in all, so an arena whose allocations need compact addresses spans
// at most 32 GiB of chunks (16383 chunks of 2 MiB); Compact refuses a handle
// beyond that with ErrCompactRange.
type Compact uint32

// CompactShift returns the number of low bits of a Compact that hold the
// offset / 8: enough for any offset inside a regular chunk of the arena's
// pool. It is at most 27 (MaxChunkSize is 1 GiB).
func (a *Arena) CompactShift() uint { return a.cshift }

// Compact returns h's compact address. h must come from this arena. It fails
// with ErrUnaligned when h's offset is not a multiple of 8 (allocations made
// by AllocAligned, or by Alloc of multiples of 8 only, are aligned), and with
// ErrCompactRange when h lies past what 32 bits address (its chunk index is
// too large, or its offset inside a jumbo chunk passes the regular chunk
// size).
func (a *Arena) Compact(h Handle) (Compact, error) {
	off := uint64(uint32(h))
	c := uint64(h>>32)<<(a.cshift&31) | off>>3
	// The bare sentinels (no wrapping, no call) keep Compact inlinable: it
	// runs once per skiplist node.
	if off&7 != 0 {
		return 0, ErrUnaligned
	}
	if off>>3&^uint64(a.cmask)|c>>32 != 0 {
		return 0, ErrCompactRange // an offset past the chunk size, or past 32 bits
	}
	return Compact(c), nil
}

// CompactHandle returns the handle whose compact address is c (not nil).
//
// It is on a skiplist search's critical path (a link's load, then this, then
// the load of the node it names): cshift is at most 27, and masking it with
// 31 tells the compiler so, which otherwise guards the shift against counts
// of 32 or more; cmask is precomputed.
func (a *Arena) CompactHandle(c Compact) Handle {
	return Handle(uint64(uint32(c)>>(a.cshift&31))<<32 | uint64(uint32(c)&a.cmask)<<3)
}

// CompactPointer returns the address of the allocation whose compact address
// is c (not nil); it is Pointer(CompactHandle(c)), with the same
// preconditions.
func (a *Arena) CompactPointer(c Compact) unsafe.Pointer { return a.Pointer(a.CompactHandle(c)) }

// compactLayout returns the shift and mask of compact addresses for chunks
// of chunkSize bytes (at least minChunkSize, so the shift is positive).
func compactLayout(chunkSize int) (shift uint, mask uint32) {
	shift = uint(bits.Len(uint(chunkSize-1))) - 3
	return shift, 1<<shift - 1
}
