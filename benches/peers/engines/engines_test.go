package engines

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/writegc/writegc/gcstress"
)

// TestEnginesCloseWhilePutting: every engine takes concurrent Puts, closes
// while Puts are in flight (later Puts fail with ErrClosed, nothing
// crashes), closes twice, reports Stats after Close, and pebble-wal
// removes its directory.
func TestEnginesCloseWhilePutting(t *testing.T) {
	// closeAfter Puts per writer, 4 writers of 116 B entries: about 9 MB,
	// well past the caches' 1 MiB budgets, so each has evicted.
	const closeAfter = 20_000
	for kind, newE := range testEngines(2) {
		t.Run(kind, func(t *testing.T) {
			e, err := newE()
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			started := make(chan struct{}, 4)
			for w := range 4 {
				wg.Go(func() {
					key, val := make([]byte, 16), make([]byte, 100)
					for i := 0; ; i++ {
						copy(key, fmt.Sprintf("w%d-%013d", w, i))
						if err := e.Put(key, val); err != nil {
							if !errors.Is(err, ErrClosed) {
								t.Errorf("Put: %v", err)
							}
							return
						}
						if i == closeAfter {
							started <- struct{}{}
						}
					}
				})
			}
			for range 4 {
				<-started
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if err := e.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			// Badger and fastcache count no evictions (see their Stats).
			if st := e.(gcstress.StatsEngine).Stats(); kind != KindBadger && kind != KindFastcache && st.Flushes == 0 {
				t.Errorf("Stats after Close %+v: no flushes (evictions) recorded", st)
			}
			if p, ok := e.(*Pebble); ok && p.dir != "" {
				if _, err := os.Stat(p.dir); !os.IsNotExist(err) {
					t.Errorf("%s still there after Close (%v)", p.dir, err)
				}
			}
		})
	}
}

func TestMemstoreBounds(t *testing.T) {
	o := DefaultOptions()
	for _, m := range []int64{MinPebbleMemtable - 1, 4 << 30} {
		if _, err := NewPebble(gcstress.Scenario{Memstore: m}, o, false); !errors.Is(err, ErrMemstore) {
			t.Errorf("pebble memstore %d: err %v", m, err)
		}
	}
	if _, err := NewBadger(gcstress.Scenario{Memstore: MinBadgerMemtable - 1}, o); !errors.Is(err, ErrMemstore) {
		t.Errorf("badger small memstore: err %v", err)
	}
}
