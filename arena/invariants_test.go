//go:build invariants || race

package arena

import (
	"strings"
	"testing"
)

func TestStaleAccessPanics(t *testing.T) {
	p, _ := NewPool(PoolOptions{ChunkSize: 16 << 10, MaxPooled: 4})
	a, _ := New(Options{Pool: p})
	h, _ := a.Copy([]byte("payload"))
	a.Release()
	idle := p.idle[0].buf
	for _, c := range idle[:7] {
		if c != poisonByte {
			t.Fatalf("released chunk not poisoned: %x", idle[:7])
		}
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "released arena") {
			t.Fatalf("stale access: recover() = %v, want a panic naming the released arena", r)
		}
	}()
	_ = a.Bytes(h, 7)
}
