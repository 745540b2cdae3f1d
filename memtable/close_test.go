package memtable

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// closeRaceKeys are the keys of TestCloseRacesOps; the value stored under
// each is closeRaceValue.
var closeRaceKeys = func() [][]byte {
	ks := make([][]byte, 256)
	for i := range ks {
		ks[i] = []byte(fmt.Sprintf("key-%03d", i))
	}
	return ks
}()

// closeRaceValue is the value stored under key: its length depends on the
// key (some are jumbo allocations with MaxAlloc 1 KiB) and every byte is the
// key's last byte, so a reader can tell a torn or stale value.
func closeRaceValue(key []byte) []byte {
	return bytes.Repeat(key[len(key)-1:], closeRaceLen(key))
}

func closeRaceLen(key []byte) int { return 1 + int(key[len(key)-1]-'0')*120 } // up to 1081 B: 1 in 10 is jumbo

// TestCloseRacesOps closes memtables of every kind while goroutines Put, Get,
// iterate and read Len and Size. Every operation must either work or report
// the closure (ErrClosed, not found, an empty iteration); none may touch
// released chunks. Before Close waited for operations in flight, the
// off-heap kind crashed (a Get reading unmapped chunks) and the arena kind
// read chunks already freed.
func TestCloseRacesOps(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			for r := range rounds {
				closeRaceRound(t, kind, r)
				if t.Failed() {
					return
				}
			}
		})
	}
}

func closeRaceRound(t *testing.T, kind string, round int) {
	m, err := New(kind, Options{ChunkSize: 4 << 10, MaxAlloc: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) []byte { return closeRaceKeys[i%len(closeRaceKeys)] }
	for i := range 64 {
		if err := m.Put(key(i*4), closeRaceValue(key(i*4))); err != nil {
			t.Fatal(err)
		}
	}
	var closed atomic.Bool // set once Close has returned
	var started sync.WaitGroup
	var wg sync.WaitGroup
	worker := func(op func(i int) error) {
		started.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Run until Close has returned (or maxOps, so that a worker
			// waiting for the others to start does not spin for long).
			const warmup, maxOps = 4, 100
			for i := 0; i < maxOps; i++ {
				if i == warmup {
					started.Done()
				}
				done := closed.Load()
				if err := op(i + round); err != nil {
					t.Errorf("round %d: %v", round, err)
					if i < warmup {
						started.Done()
					}
					return
				}
				if done && i >= warmup {
					return
				}
			}
		}()
	}
	worker(func(i int) error { // writer
		k := key(i * 7)
		if err := m.Put(k, closeRaceValue(k)); err != nil && !errors.Is(err, ErrClosed) {
			return fmt.Errorf("Put: %w", err)
		}
		return nil
	})
	worker(func(i int) error { // reader: the value may be released once Close runs, so check its length only
		k := key(i * 4)
		if v, ok := m.Get(k); ok && len(v) != closeRaceLen(k) {
			return fmt.Errorf("Get(%q) returned %d bytes", k, len(v))
		}
		return nil
	})
	worker(func(int) error { // scanner: an open iterator keeps the chunks alive
		for k, v := range m.All() {
			if len(v) != closeRaceLen(k) || v[0] != k[len(k)-1] || v[len(v)-1] != k[len(k)-1] {
				return fmt.Errorf("All: %q holds a wrong value of %d bytes", k, len(v))
			}
		}
		return nil
	})
	worker(func(int) error { // statistics
		if m.Len() < 0 || m.Size() < 0 {
			return fmt.Errorf("Len %d, Size %d", m.Len(), m.Size())
		}
		return nil
	})
	started.Wait()
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	closed.Store(true)
	wg.Wait()
	checkClosed(t, m, round)
}

func checkClosed(t *testing.T, m Memtable, round int) {
	if err := m.Put(closeRaceKeys[1], []byte("v")); !errors.Is(err, ErrClosed) {
		t.Errorf("round %d: Put after Close = %v, want ErrClosed", round, err)
	}
	if _, ok := m.Get(closeRaceKeys[0]); ok {
		t.Errorf("round %d: Get after Close found a key", round)
	}
	for k := range m.All() {
		t.Errorf("round %d: All after Close yields %q", round, k)
	}
}
