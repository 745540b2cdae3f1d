package arena

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzAlloc builds an arena from fuzzed options (chunk sizes from 4 KiB up,
// odd ones included, MaxAlloc on both sides of the chunk size), makes a
// sequence of allocations drawn from the input, some near MaxAlloc and the
// chunk size, writes a pattern into each, then verifies that every
// allocation is intact and aligned when asked, and that no request grabbed
// more than one chunk.
func FuzzAlloc(f *testing.F) {
	f.Add(uint16(0), uint16(1<<10), []byte{1, 2, 3, 255, 0, 17})
	f.Add(uint16(0), uint16(4<<10), []byte{200, 200, 200, 200, 9, 9, 9})
	f.Add(uint16(0), uint16(4<<10), []byte{252, 253, 254, 255, 251, 250}) // near the chunk size
	f.Add(uint16(901), uint16(4999), []byte{7, 8, 9, 250, 255})
	f.Fuzz(func(t *testing.T, csExtra, maxAlloc uint16, sizes []byte) {
		cs := 4<<10 + int(csExtra)%(12<<10)
		a, err := New(Options{ChunkSize: cs, MaxAlloc: int(maxAlloc)})
		if int(maxAlloc) > cs {
			if !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("MaxAlloc %d > chunk %d: New = %v", maxAlloc, cs, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer a.Release()
		type rec struct {
			h Handle
			n int
		}
		var recs []rec
		for i, s := range sizes {
			n := int(s)
			switch i % 5 {
			case 3:
				n = a.MaxAlloc() - 128 + n // around the threshold
			case 4:
				n = cs - 128 + n // around the chunk size
			}
			aligned := i%2 == 1
			before := chunksOf(a)
			var h Handle
			if aligned {
				h, err = a.AllocAligned(n)
			} else {
				h, err = a.Alloc(n)
			}
			if n <= 0 {
				if !errors.Is(err, ErrInvalidSize) {
					t.Fatalf("Alloc(%d) = %v, want ErrInvalidSize", n, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if grabbed := chunksOf(a) - before; grabbed > 1 {
				t.Fatalf("Alloc(%d) grabbed %d chunks", n, grabbed)
			}
			if aligned && uintptr(a.Pointer(h))%8 != 0 {
				t.Fatalf("AllocAligned(%d) unaligned", n)
			}
			b := a.Bytes(h, n)
			b[0] = byte(i)
			for j := 1; j < n; j *= 2 {
				copy(b[j:], b[:j])
			}
			recs = append(recs, rec{h, n})
		}
		for i, r := range recs {
			if b := a.Bytes(r.h, r.n); bytes.Count(b, b[:1]) != r.n {
				t.Fatalf("allocation %d corrupted", i)
			}
		}
		s := a.Stats()
		if s.BytesAllocated < int64(len(recs)) {
			t.Fatalf("BytesAllocated %d < %d allocations", s.BytesAllocated, len(recs))
		}
	})
}
