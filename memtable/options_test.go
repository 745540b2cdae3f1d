package memtable

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegc/writegc/arena"
)

// TestArenaOptionsNearChunkSize drives the arena kinds through memtable.New
// with MaxAlloc on both sides of a 4 KiB chunk and nodes whose size sweeps
// the chunk size. New must reject a MaxAlloc above the chunk size; every
// other Put must succeed after at most one chunk grab (plus its own jumbo
// chunk). Before the fix a node of 4,090 to 4,096 bytes with MaxAlloc 4 KiB
// grabbed a fresh chunk forever; a watchdog stops that by releasing the
// arena, so the test fails instead of hanging.
func TestArenaOptionsNearChunkSize(t *testing.T) {
	const cs = 4 << 10
	for _, kind := range []string{"arena", "offheap"} {
		for _, ma := range []int{0, 1, 512, cs - 8, cs - 7, cs - 1, cs, cs + 1, 2 * cs} {
			m, err := New(kind, Options{ChunkSize: cs, MaxAlloc: ma})
			if ma > cs {
				if !errors.Is(err, ErrInvalidOption) || !errors.Is(err, arena.ErrInvalidOption) {
					t.Fatalf("%s: MaxAlloc %d above the chunk size: New = %v, want ErrInvalidOption", kind, ma, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s MaxAlloc %d: %v", kind, ma, err)
			}
			sweepNodeSizes(t, fmt.Sprintf("%s MaxAlloc %d", kind, ma), m.(*arenaTable))
		}
	}
}

// sweepNodeSizes puts values whose records in the record arena (8 + key +
// value bytes) cover every size from cs-324 to cs-5, twice each; then
// empty values under keys whose records cover cs-332 to cs-13. Nodes (8 + 8
// bytes per level) stay far below any chunk size. The watchdog counts the
// chunks of both arenas: at most one regular and one jumbo chunk per Put in
// each.
func sweepNodeSizes(t *testing.T, what string, m *arenaTable) {
	var puts atomic.Int64
	var fired atomic.Bool
	var grabbed atomic.Int64
	quit := make(chan struct{})
	dog := make(chan struct{})
	a, va := m.a, m.va
	go func() { // watchdog
		defer close(dog)
		for {
			select {
			case <-quit:
				return
			case <-time.After(time.Millisecond):
			}
			s, sv := a.Stats(), va.Stats()
			if n := s.ChunksLive + s.JumboLive + sv.ChunksLive + sv.JumboLive; n > 4*puts.Load()+4 && fired.CompareAndSwap(false, true) {
				grabbed.Store(n)
				va.Release() // the looping Put now fails with ErrReleased
				a.Release()
				return
			}
		}
	}()
	cs := a.Pool().ChunkSize()
	const sizes = 320
	val := make([]byte, cs)
	var err error
	for i := 0; i < 2*sizes && err == nil; i++ {
		key := []byte(fmt.Sprintf("k%07d", i))
		err = m.Put(key, val[:cs-340+i/2])
		puts.Add(1)
	}
	for i := 0; i < 2*sizes && err == nil; i++ {
		key := fmt.Appendf(nil, "n%07d", i)
		key = append(key, val[:cs-340+i/2-len(key)]...)
		err = m.Put(key, nil)
		puts.Add(1)
	}
	close(quit)
	<-dog
	if fired.Load() {
		t.Fatalf("%s: a Put kept grabbing chunks (%d for %d puts); stopped with %v", what, grabbed.Load(), puts.Load(), err)
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if m.Len() != 4*sizes {
		t.Fatalf("%s: Len %d, want %d", what, m.Len(), 4*sizes)
	}
	m.Close()
}
