package arena

import (
	"bytes"
	"testing"
)

// FuzzAlloc allocates a sequence of sizes drawn from the input, writes a
// pattern into each allocation, then verifies every allocation is intact.
func FuzzAlloc(f *testing.F) {
	f.Add([]byte{1, 2, 3, 255, 0, 17})
	f.Add([]byte{200, 200, 200, 200, 9, 9, 9})
	f.Fuzz(func(t *testing.T, sizes []byte) {
		a, err := New(Options{ChunkSize: 4 << 10, MaxAlloc: 1 << 10})
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
			if i%5 == 4 {
				n *= 9 // some jumbo allocations above MaxAlloc
			}
			var h Handle
			if i%2 == 0 {
				h, err = a.Alloc(n)
			} else {
				h, err = a.AllocAligned(n)
			}
			if n == 0 {
				if err == nil {
					t.Fatal("zero-size Alloc succeeded")
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			b := a.Bytes(h, n)
			for j := range b {
				b[j] = byte(i)
			}
			recs = append(recs, rec{h, n})
		}
		for i, r := range recs {
			b := a.Bytes(r.h, r.n)
			want := b[0]
			if !bytes.Equal(b, bytes.Repeat([]byte{want}, r.n)) {
				t.Fatalf("allocation %d corrupted", i)
			}
		}
		s := a.Stats()
		if s.BytesAllocated < int64(len(recs)) {
			t.Fatalf("BytesAllocated %d < %d allocations", s.BytesAllocated, len(recs))
		}
	})
}
