package arena

import (
	"errors"
	"testing"
)

// TestCompactRoundTrip: every aligned allocation, in regular chunks and in
// jumbo ones, has a compact address that resolves to the same memory; the
// zero Compact is never returned; unaligned handles and handles past the
// 32-bit range are refused with their sentinels.
func TestCompactRoundTrip(t *testing.T) {
	for _, cs := range []int{minChunkSize, 64 << 10, DefaultChunkSize} {
		// Off-heap where it can be: its chunks are unmapped at Release, so
		// the test leaves no heap for the scavenger to return while
		// TestOffHeapRSSWithinBound counts resident memory.
		a := mustArena(t, Options{ChunkSize: cs, MaxAlloc: 1024, OffHeap: true})
		for i := range 3 * cs / 512 {
			n := 8 * (1 + i%64) // regular, 8..512 bytes
			if i%97 == 0 {
				n = 2048 // jumbo
			}
			h, err := a.AllocAligned(n)
			if err != nil {
				t.Fatal(err)
			}
			c, err := a.Compact(h)
			if err != nil || c == 0 {
				t.Fatalf("chunk size %d: Compact(%#x) = %#x, %v", cs, uint64(h), c, err)
			}
			if got := a.CompactHandle(c); got != h {
				t.Fatalf("chunk size %d: CompactHandle(Compact(%#x)) = %#x", cs, uint64(h), uint64(got))
			}
			if a.CompactPointer(c) != a.Pointer(h) {
				t.Fatalf("chunk size %d: CompactPointer differs from Pointer", cs)
			}
			if _, err := a.Compact(h.Add(1)); !errors.Is(err, ErrUnaligned) {
				t.Fatalf("Compact of an unaligned handle: %v, want ErrUnaligned", err)
			}
		}
		if _, err := a.Compact(makeHandle(0, uint32(cs))); !errors.Is(err, ErrCompactRange) {
			t.Errorf("chunk size %d: offset past the chunk: %v, want ErrCompactRange", cs, err)
		}
		if _, err := a.Compact(makeHandle(1<<(32-a.CompactShift()), 0)); !errors.Is(err, ErrCompactRange) {
			t.Errorf("chunk size %d: chunk past the range: %v, want ErrCompactRange", cs, err)
		}
		a.Release()
	}
}

// TestOverflowReserve: with Overflow set, every allocation leaves that many
// bytes of its chunk after its end (regular and jumbo), the reserve counts
// as waste, and MaxAlloc shrinks so a request still fits a fresh chunk.
func TestOverflowReserve(t *testing.T) {
	const cs, over = minChunkSize, 312
	a := mustArena(t, Options{ChunkSize: cs, MaxAlloc: cs, Overflow: over})
	defer a.Release()
	if got, want := a.MaxAlloc(), cs-over-maxAlignPad; got != want {
		t.Fatalf("MaxAlloc %d, want %d", got, want)
	}
	for i := range 200 {
		n := 1 + i*37%700
		if i%50 == 0 {
			n = cs // jumbo
		}
		h, err := a.Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		c := (*a.table.Load())[h.chunk()]
		if end := int(h.offset()) + n; end+over > len(c.buf) {
			t.Fatalf("allocation of %d at %d ends %d bytes before its %d-byte chunk's end, want >= %d", n, h.offset(), len(c.buf)-end, len(c.buf), over)
		}
	}
	if s := a.Stats(); s.BytesWasted < over {
		t.Fatalf("retired chunks waste %d bytes, want at least the %d reserved", s.BytesWasted, over)
	}
}
