package synthbench

import (
	"encoding/binary"
	"testing"
)

var sinkHash uint64
var sinkBuf []byte

// BenchmarkSynth's rows: kind=arena (Chunk.Copy, slowed by the synth site)
// and kind=heap (HeapCopy, never slowed), each at a 100 B value (about 1,000
// instructions an op, the order of a memtable Put) and at a 1 KB value (about
// 8,600, 7,600 built -tags gateslow: the row a 2% instruction slowdown can be
// injected into, since one
// call of slowdown.Spin is already about 2.6% of the 100 B row).
func BenchmarkSynth(b *testing.B) {
	key := make([]byte, 16)
	for _, size := range []struct {
		name string
		n    int
	}{{"100B", 100}, {"1KB", 1024}} {
		value := make([]byte, size.n)
		b.Run("kind=arena/value="+size.name, func(b *testing.B) {
			c := new(Chunk)
			b.SetBytes(int64(len(key) + len(value)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				binary.LittleEndian.PutUint64(key, uint64(i))
				sinkHash, sinkBuf = c.Copy(key, value)
			}
		})
		b.Run("kind=heap/value="+size.name, func(b *testing.B) {
			b.SetBytes(int64(len(key) + len(value)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				binary.LittleEndian.PutUint64(key, uint64(i))
				sinkHash, sinkBuf = HeapCopy(key, value)
			}
		})
	}
}

func TestCopy(t *testing.T) {
	var c Chunk
	h1, v := c.Copy([]byte("key"), []byte("value"))
	h2, w := HeapCopy([]byte("key"), []byte("value"))
	if h1 != hash([]byte("keyvalue")) || h2 != hash([]byte("key"))^hash([]byte("value")) || string(v) != "value" || string(w) != "value" {
		t.Fatalf("Copy = %x %q, HeapCopy = %x %q", h1, v, h2, w)
	}
}
