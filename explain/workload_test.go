package explain

import (
	"context"
	"runtime/trace"
	"sync"
	"time"
)

// node is a pointer-rich heap object, like a heap-allocated memtable's.
type node struct {
	key, val []byte
	next     *node
}

// testList is a tiny heap-allocated "memtable": every Put allocates three
// objects that the GC must then scan.
type testList struct {
	mu   sync.Mutex
	head *node
	n    int
}

//go:noinline
func (l *testList) Put(k, v []byte) {
	n := &node{key: append([]byte(nil), k...), val: append([]byte(nil), v...)}
	l.mu.Lock()
	n.next = l.head
	l.head = n
	l.n++
	if l.n >= 200_000 { // "flush": drop the list, making garbage
		l.head, l.n = nil, 0
	}
	l.mu.Unlock()
}

// flatList stores keys and values in one growing byte slice, like an arena.
type flatList struct {
	mu  sync.Mutex
	buf []byte
}

//go:noinline
func (l *flatList) Put(k, v []byte) {
	l.mu.Lock()
	if len(l.buf)+len(k)+len(v) > 64<<20 {
		l.buf = l.buf[:0]
	}
	l.buf = append(l.buf, k...)
	l.buf = append(l.buf, v...)
	l.mu.Unlock()
}

type putter interface{ Put(k, v []byte) }

// runWorkload runs writers that Put into m until d has passed, every 64th in a
// trace region named DefaultRegion, plus a goroutine waiting on a channel
// and one sleeping, so fgprof sees off-CPU time. onPeak is called every
// 50 ms (standing in for a heap-peak sampler).
func runWorkload(m putter, writers int, d time.Duration, onPeak func()) {
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := make([]byte, 16)
			v := make([]byte, 100)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k[0], k[1], k[2] = byte(i), byte(i>>8), byte(w)
				if i%64 == 0 {
					trace.WithRegion(ctx, DefaultRegion, func() { m.Put(k, v) })
				} else {
					m.Put(k, v)
				}
			}
		}()
	}
	wg.Add(2)
	go func() { defer wg.Done(); waitOnChannel(stop) }()
	go func() { defer wg.Done(); sleepUntil(stop) }()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if onPeak != nil {
			onPeak()
		}
	}
	close(stop)
	wg.Wait()
}

//go:noinline
func waitOnChannel(stop chan struct{}) { <-stop }

//go:noinline
func sleepUntil(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
			time.Sleep(20 * time.Millisecond)
		}
	}
}
