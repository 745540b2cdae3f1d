package synthbench

import (
	"encoding/binary"
	"testing"
)

var sinkHash uint64
var sinkBuf []byte

func BenchmarkSynth(b *testing.B) {
	value := make([]byte, 100)
	key := make([]byte, 16)
	b.Run("kind=arena/value=100B", func(b *testing.B) {
		c := new(Chunk)
		b.SetBytes(int64(len(key) + len(value)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			binary.LittleEndian.PutUint64(key, uint64(i))
			sinkHash, sinkBuf = c.Copy(key, value)
		}
	})
	b.Run("kind=heap/value=100B", func(b *testing.B) {
		b.SetBytes(int64(len(key) + len(value)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			binary.LittleEndian.PutUint64(key, uint64(i))
			sinkHash, sinkBuf = HeapCopy(key, value)
		}
	})
}

func TestCopy(t *testing.T) {
	var c Chunk
	h1, v := c.Copy([]byte("key"), []byte("value"))
	h2, w := HeapCopy([]byte("key"), []byte("value"))
	if h1 != hash([]byte("keyvalue")) || h2 != hash([]byte("key"))^hash([]byte("value")) || string(v) != "value" || string(w) != "value" {
		t.Fatalf("Copy = %x %q, HeapCopy = %x %q", h1, v, h2, w)
	}
}
