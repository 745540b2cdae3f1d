package arena

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcmetrics/gcbench"
)

var benchSizes = []int{10, 100, 1 << 10, 10 << 10}

func sizeName(n int) string {
	if n >= 1<<10 {
		return fmt.Sprintf("%dKB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// region is how much an allocator hands out before it is reset (warm) or
// replaced (cold): 64 MiB, larger than any cache here.
const region = 64 << 20

// allocator is one contender of BenchmarkAlloc: alloc copies src into fresh
// allocator memory; recycle starts over, reusing memory (warm) or not (cold).
type allocator interface {
	alloc(src []byte) []byte
	recycle()
	close()
}

type arenaAlloc struct {
	pool *Pool
	a    *Arena
	warm bool
}

func newArenaAlloc(b *testing.B, offHeap, warm bool) *arenaAlloc {
	maxPooled := 0
	if warm {
		maxPooled = region/DefaultChunkSize + 1
	}
	p, err := NewPool(PoolOptions{OffHeap: offHeap, MaxPooled: maxPooled, Prealloc: maxPooled})
	if err != nil {
		b.Fatal(err)
	}
	x := &arenaAlloc{pool: p, warm: warm}
	x.a, _ = New(Options{Pool: p})
	if warm { // touch every pooled page once so the timed loop sees warm memory
		for range region / 1024 {
			_, buf, _ := x.a.AllocBytes(1024)
			buf[0], buf[512] = 1, 1
		}
		x.recycle()
	}
	return x
}

func (x *arenaAlloc) alloc(src []byte) []byte {
	_, dst, err := x.a.AllocBytes(len(src))
	if err != nil {
		panic(err)
	}
	copy(dst, src)
	return dst
}

func (x *arenaAlloc) recycle() {
	x.a.Release()
	x.a, _ = New(Options{Pool: x.pool})
}

func (x *arenaAlloc) close() { x.a.Release(); x.pool.Close() }

// zAlloc is ristretto's z.Allocator, what a Go engineer picks today.
type zAlloc struct {
	a    *z.Allocator
	warm bool
}

func newZAlloc(warm bool) *zAlloc {
	x := &zAlloc{a: z.NewAllocator(1<<20, "writegc-bench"), warm: warm}
	if warm {
		for range region / 1024 {
			buf := x.a.Allocate(1024)
			buf[0], buf[512] = 1, 1
		}
		x.a.Reset()
	}
	return x
}

func (x *zAlloc) alloc(src []byte) []byte { return x.a.Copy(src) }

func (x *zAlloc) recycle() {
	if x.warm {
		x.a.Reset()
		return
	}
	x.a.Release()
	x.a = z.NewAllocator(1<<20, "writegc-bench")
}

func (x *zAlloc) close() { x.a.Release() }

// makeAlloc is make([]byte)+copy: every value its own heap object. Objects
// are kept in a ring so that they live a while, as a memtable's would.
type makeAlloc struct {
	ring [][]byte
	i    int
}

func (x *makeAlloc) alloc(src []byte) []byte {
	b := make([]byte, len(src))
	copy(b, src)
	x.ring[x.i] = b
	x.i = (x.i + 1) % len(x.ring)
	return b
}
func (x *makeAlloc) recycle() {}
func (x *makeAlloc) close()   {}

// BenchmarkAlloc is allocate-and-copy of one value. mem=warm reuses memory
// (arena chunks from a warm pool, z.Allocator.Reset); mem=cold touches fresh
// memory, so page faults are part of the cost.
func BenchmarkAlloc(b *testing.B) {
	for _, mem := range []string{"warm", "cold"} {
		for _, size := range benchSizes {
			for _, impl := range []string{"arena", "offheap", "zalloc", "make"} {
				for _, par := range []string{"1", "parallel"} {
					if par == "parallel" && impl != "arena" && impl != "offheap" {
						continue // z.Allocator and make need no lock either; the arena's claim is its lock-free parallel path
					}
					name := fmt.Sprintf("impl=%s/mem=%s/value=%s/goroutines=%s", impl, mem, sizeName(size), par)
					b.Run(name, func(b *testing.B) { benchAlloc(b, impl, mem == "warm", size, par == "parallel") })
				}
			}
		}
	}
}

func newAllocator(b *testing.B, impl string, warm bool, size int) allocator {
	switch impl {
	case "arena":
		return newArenaAlloc(b, false, warm)
	case "offheap":
		return newArenaAlloc(b, true, warm)
	case "zalloc":
		return newZAlloc(warm)
	default:
		return &makeAlloc{ring: make([][]byte, max(1, region/size/4))}
	}
}

func benchAlloc(b *testing.B, impl string, warm bool, size int, parallel bool) {
	x := newAllocator(b, impl, warm, size)
	defer x.close()
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	per := region / size // allocations before recycling
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		// One region per round, shared by all goroutines; recycle between rounds.
		a := x.(*arenaAlloc)
		done := 0
		for done < b.N {
			n := min(b.N-done, per)
			workers := runtime.GOMAXPROCS(0)
			ch := make(chan struct{})
			for w := range workers {
				go func() {
					for j := w; j < n; j += workers {
						a.alloc(src)
					}
					ch <- struct{}{}
				}()
			}
			for range workers {
				<-ch
			}
			done += n
			if done < b.N {
				b.StopTimer()
				a.recycle()
				b.StartTimer()
			}
		}
		return
	}
	for i := range b.N {
		if i%per == per-1 {
			b.StopTimer()
			x.recycle()
			b.StartTimer()
		}
		x.alloc(src)
	}
	b.StopTimer()
	if a, ok := x.(*arenaAlloc); ok && size == 100 {
		s := a.a.Stats()
		if s.BytesAllocated > 0 {
			b.ReportMetric(100*float64(s.BytesWasted)/float64(s.BytesAllocated), "waste-%")
		}
	}
}

var holdSink [][]byte

// BenchmarkHold measures what holding 10M values of 100 B costs the
// collector: one op is one forced runtime.GC() with them live. Reported:
// fullgc-ns (the time of that GC) and gc-cpu-% over the fill.
func BenchmarkHold(b *testing.B) {
	const n, size = 10_000_000, 100
	for _, impl := range []string{"arena", "offheap", "heap"} {
		b.Run(fmt.Sprintf("impl=%s/value=100B/values=10M", impl), func(b *testing.B) {
			if testing.Short() {
				b.Skip("10M values: skipped under -short")
			}
			r := gcmetrics.NewReader()
			runtime.GC()
			start := r.Read()
			src := make([]byte, size)
			var a *Arena
			var hs []Handle
			var slices [][]byte
			switch impl {
			case "heap":
				slices = make([][]byte, n)
				for i := range slices {
					s := make([]byte, size)
					copy(s, src)
					slices[i] = s
				}
			default:
				a, _ = New(Options{OffHeap: impl == "offheap"})
				hs = make([]Handle, n) // handles are plain integers: a noscan slice
				for i := range hs {
					hs[i], _ = a.Copy(src)
				}
			}
			fill := gcmetrics.Sub(start, r.Read())
			b.ResetTimer()
			t := time.Now()
			for range b.N {
				runtime.GC()
			}
			elapsed := time.Since(t)
			b.StopTimer()
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N), "fullgc-ns")
			b.ReportMetric(fill.GCCPUPercent(), gcbench.UnitGCCPU)
			holdSink = slices
			runtime.KeepAlive(hs)
			holdSink = nil
			if a != nil {
				a.Release()
			}
		})
	}
}
