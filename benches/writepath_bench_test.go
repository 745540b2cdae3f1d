package benches

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/putbench"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
	"github.com/writegc/writegc/writepath"
)

// writeKind is the memtable kind of the write-path benchmarks:
// $WRITEGC_WRITE_KIND if set, else "arena" once it exists, else the first
// kind there is.
func writeKind() string {
	if k := os.Getenv("WRITEGC_WRITE_KIND"); k != "" {
		return k
	}
	for _, k := range memtable.Kinds() {
		if k == "arena" {
			return k
		}
	}
	return memtable.Kinds()[0]
}

var writeValues = []int64{10, 100, 1 << 10, 10 << 10}

// BenchmarkWrite measures one client goroutine writing random 16-byte keys
// through each client path and transport into a one-region server (arena
// memtable, 64 MiB flush threshold, discard flush sink, no WAL): PE's
// randomWrite with one client. Latency is per Put call (direct, autoflush,
// buffered) or from submit to acknowledgement (async), recorded in an
// HdrHistogram; b.N includes the final Flush.
func BenchmarkWrite(b *testing.B) {
	for _, path := range []string{writepath.PathDirect, writepath.PathBuffered, writepath.PathAutoFlush, writepath.PathAsync} {
		for _, tr := range writepath.Transports() {
			for _, v := range writeValues {
				name := fmt.Sprintf("path=%s/transport=%s/value=%s", path, tr, workload.FormatSize(v))
				b.Run(name, func(b *testing.B) { benchWrite(b, path, tr, int(v)) })
			}
		}
	}
}

func benchWrite(b *testing.B, path, tr string, valueSize int) {
	s, err := writepath.NewServer(writepath.ServerOptions{Kind: writeKind()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t, closeT, err := writepath.Connect(tr, s)
	if err != nil {
		b.Fatal(err)
	}
	defer closeT()
	c, err := writepath.NewClient(path, t, writepath.ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	value := workload.Value(valueSize)
	hist := latency.NewHistogram()
	var hmu sync.Mutex
	async, _ := c.(*writepath.Async)
	m := putbench.Loop(b, valueSize, func(key []byte, t0 time.Time) error {
		if async != nil {
			return async.PutAsync(key, value, func(err error) {
				d := time.Since(t0)
				if err != nil {
					b.Error(err)
				}
				hmu.Lock()
				hist.RecordValue(int64(d))
				hmu.Unlock()
			})
		}
		err := c.Put(key, value)
		hist.RecordValue(int64(time.Since(t0)))
		return err
	})
	if err := c.Flush(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	m.Stop()
	c.Close()
	hmu.Lock()
	putbench.Report(b, hist)
	hmu.Unlock()
}

// multigetLatencies are the ServerOptions.ReadLatency values of
// BenchmarkMultiget: 0 (memtable lookups only, CPU-bound), 1 ms (one
// modelled block read per region request: an SSD-class or cached read) and
// 5 ms (a random read from a spinning disk, HBASE-3553's 2011 cluster).
var multigetLatencies = []time.Duration{0, time.Millisecond, 5 * time.Millisecond}

func latencyName(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// BenchmarkMultiget measures HBASE-3553's workload: each operation is one
// multiget of 100 random keys (of 100 B values) preloaded in a server of 1,
// 4 or 8 regions, issued by 16 or 32 client goroutines sharing one
// transport (loopback TCP or in-process); sequential asks the regions one
// after another, parallel all at once. latency=0 is the CPU-bound case
// (memtable lookups only); latency=1ms and 5ms set ServerOptions.ReadLatency,
// so each region request also waits that long, one modelled block read, as
// a region server reading an HFile block would. ns/op is wall time per multiget across all
// goroutines (so 1/ns/op is throughput); p50-ns and p99-ns are per-multiget
// latencies.
func BenchmarkMultiget(b *testing.B) {
	for _, mode := range writepath.MultiGetModes() {
		for _, regions := range []int{1, 4, 8} {
			for _, threads := range []int{16, 32} {
				for _, tr := range writepath.Transports() {
					for _, lat := range multigetLatencies {
						name := fmt.Sprintf("mode=%s/regions=%d/keys=100/threads=%d/transport=%s/latency=%s",
							mode, regions, threads, tr, latencyName(lat))
						b.Run(name, func(b *testing.B) { benchMultiget(b, mode, regions, threads, tr, lat) })
					}
				}
			}
		}
	}
}

func benchMultiget(b *testing.B, mode string, regions, threads int, tr string, lat time.Duration) {
	n := 100_000
	if testing.Short() {
		n = 20_000
	}
	s, err := writepath.NewServer(writepath.ServerOptions{Kind: writeKind(), Regions: regions, ReadLatency: lat})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	keys := workload.NewKeys(n, workload.KeySize, 3553)
	value := workload.Value(100)
	for i := range n {
		if err := s.Put(keys.Key(i), value); err != nil {
			b.Fatal(err)
		}
	}
	t, closeT, err := writepath.Connect(tr, s)
	if err != nil {
		b.Fatal(err)
	}
	defer closeT()
	mg := writepath.NewMultiGetter(t)
	hists := make([]*hdrhistogram.Histogram, threads)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for g := range threads {
		hists[g] = latency.NewHistogram()
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 3553))
			ks := make([][]byte, writepath.DefaultMultiGetKeys)
			for next.Add(1) <= int64(b.N) {
				for j := range ks {
					ks[j] = keys.Key(rng.IntN(n))
				}
				t0 := time.Now()
				vals, err := mg.MultiGet(context.Background(), ks, mode)
				hists[g].RecordValue(int64(time.Since(t0)))
				if err != nil || vals[0] == nil {
					b.Error("multiget:", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	h := latency.NewHistogram()
	for _, g := range hists {
		h.Merge(g)
	}
	putbench.Report(b, h)
}
