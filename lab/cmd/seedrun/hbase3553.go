package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/internal/ycsbfmt"
	"github.com/writegc/writegc/writepath"
)

type cfg3553 struct {
	out        string
	rows, runs int
	kind       string
	transports []string
	requests   [2]int // multigets per run at 16 and at 32 threads
	latencies  []time.Duration
}

const regions3553 = 8

var threads3553 = []int{16, 32}

// result3553 is one run's YCSB block and figures.
type result3553 struct {
	block      string
	throughput float64 // ops/s
	avgUS      float64 // mean latency, µs
	p99US      float64
}

// run3553 writes ycsb-<transport>-latency=<d>.txt (the seed's layout: per
// thread count, the sequential runs' YCSB blocks and their averages, then
// the parallel ones with the percentage change) and tables.md (a summary).
func run3553(cfg cfg3553) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "| transport | read latency model | threads | requests/run | sequential ops/s | parallel ops/s | throughput | sequential avg (ms) | parallel avg (ms) | latency | sequential p99 (ms) | parallel p99 (ms) |\n")
	fmt.Fprintf(&md, "|---|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|\n")
	keys := workload.NewKeys(cfg.rows, workload.KeySize, 3553)
	for _, tr := range cfg.transports {
		for _, lat := range cfg.latencies {
			res, err := multiget3553(cfg, keys, tr, lat)
			if err != nil {
				return fmt.Errorf("transport %s latency %v: %w", tr, lat, err)
			}
			var out bytes.Buffer
			fmt.Fprintf(&out, "# HBASE-3553 in Go: multigets of %d random keys over %d regions preloaded with %d rows (16 B keys, 100 B values, memtable %s, all in memtables), transport=%s, modelled read latency per region request=%s (ServerOptions.ReadLatency; 0 = CPU-bound memtable lookups). One %s connection shared by all threads. Latencies in µs (the seed's are in ms). No warm-up excluded.\n",
				writepath.DefaultMultiGetKeys, regions3553, cfg.rows, cfg.kind, tr, latencyName(lat), tr)
			for ti, threads := range threads3553 {
				fmt.Fprintf(&out, "\n%d Threads\n========================================\n", threads)
				var avg [2][3]float64 // mode × {throughput, latency, p99}
				for mi, mode := range writepath.MultiGetModes() {
					title := "Pre HBASE-3553 (sequential)"
					if mode == writepath.MultiGetParallel {
						title = "Post HBASE-3553 (parallel)"
					}
					fmt.Fprintf(&out, "%s\n--------------------\n", title)
					rs := res[threads][mode]
					for _, r := range rs {
						out.WriteString(r.block)
						avg[mi][0] += r.throughput / float64(len(rs))
						avg[mi][1] += r.avgUS / float64(len(rs))
						avg[mi][2] += r.p99US / float64(len(rs))
					}
					fmt.Fprintf(&out, "----\n")
					if mi == 0 {
						fmt.Fprintf(&out, "Total Avg Throughput: %.2f\nTotal Avg Latency(us): %.1f\n", avg[0][0], avg[0][1])
					} else {
						fmt.Fprintf(&out, "Total Avg Throughput: %.2f (%s)\nTotal Avg Latency(us): %.1f (%s)\n",
							avg[1][0], change(avg[0][0], avg[1][0]), avg[1][1], change(avg[0][1], avg[1][1]))
					}
				}
				fmt.Fprintf(&md, "| %s | %s | %d | %d | %.1f | %.1f | %s | %.2f | %.2f | %s | %.2f | %.2f |\n",
					tr, latencyName(lat), threads, cfg.requests[ti], avg[0][0], avg[1][0], change(avg[0][0], avg[1][0]),
					avg[0][1]/1e3, avg[1][1]/1e3, change(avg[0][1], avg[1][1]), avg[0][2]/1e3, avg[1][2]/1e3)
			}
			name := filepath.Join(cfg.out, fmt.Sprintf("ycsb-%s-latency=%s.txt", tr, latencyName(lat)))
			if err := os.WriteFile(name, out.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(filepath.Join(cfg.out, "tables.md"), md.Bytes(), 0o644)
}

// change formats b relative to a as the seed does: "49.9% increase",
// "33.8% decrease".
func change(a, b float64) string {
	pct := 100 * (b - a) / a
	if pct >= 0 {
		return fmt.Sprintf("%.1f%% increase", pct)
	}
	return fmt.Sprintf("%.1f%% decrease", -pct)
}

// multiget3553 preloads one server and runs every (threads, mode) case
// cfg.runs times, interleaved.
func multiget3553(cfg cfg3553, keys *workload.Keys, tr string, lat time.Duration) (map[int]map[string][]result3553, error) {
	s, err := writepath.NewServer(writepath.ServerOptions{
		Kind: cfg.kind, Regions: regions3553, ReadLatency: lat,
		FlushThreshold: 1 << 40, // keep every row in a memtable: Gets do not read segments
	})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	t0 := time.Now()
	value := workload.Value(100)
	b := writepath.NewBatch(1 << 20)
	for i := range keys.Len() {
		b.Add(keys.Key(i), value)
		if b.Len() == 8192 || i == keys.Len()-1 {
			if err := s.PutBatch(b); err != nil {
				return nil, err
			}
			b.Reset()
		}
	}
	fmt.Fprintf(os.Stderr, "seedrun 3553: %s latency=%s: preloaded %d rows in %v\n", tr, latencyName(lat), keys.Len(), time.Since(t0).Round(time.Millisecond))
	tp, closeT, err := writepath.Connect(tr, s)
	if err != nil {
		return nil, err
	}
	defer closeT()
	mg := writepath.NewMultiGetter(tp)
	res := map[int]map[string][]result3553{}
	for run := 1; run <= cfg.runs; run++ {
		for ti, threads := range threads3553 {
			if res[threads] == nil {
				res[threads] = map[string][]result3553{}
			}
			for _, mode := range writepath.MultiGetModes() {
				r, err := multigetRun(mg, keys, mode, threads, cfg.requests[ti], uint64(run))
				if err != nil {
					return nil, err
				}
				res[threads][mode] = append(res[threads][mode], r)
				fmt.Fprintf(os.Stderr, "seedrun 3553: %s latency=%s run %d threads %d %s: %.1f ops/s\n",
					tr, latencyName(lat), run, threads, mode, r.throughput)
			}
		}
	}
	return res, nil
}

// multigetRun is one YCSB run: threads goroutines issue requests/threads
// multigets each (the seed's 9984 = 32 × 312).
func multigetRun(mg *writepath.MultiGetter, keys *workload.Keys, mode string, threads, requests int, run uint64) (result3553, error) {
	rec := latency.NewRecorder(latency.RecorderOptions{})
	var wg sync.WaitGroup
	n := keys.Len()
	for g := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(run, uint64(g)))
			ks := make([][]byte, writepath.DefaultMultiGetKeys)
			for range requests / threads {
				for j := range ks {
					ks[j] = keys.Key(rng.IntN(n))
				}
				t0 := time.Now()
				vals, err := mg.MultiGet(context.Background(), ks, mode)
				if err == nil && vals[0] == nil {
					err = fmt.Errorf("preloaded key not found")
				}
				rec.Record("MULTIREAD", t0, time.Now(), err)
			}
		}()
	}
	wg.Wait()
	if e := rec.Errors("MULTIREAD"); e > 0 {
		return result3553{}, fmt.Errorf("%d failed multigets", e)
	}
	var block bytes.Buffer
	if err := ycsbfmt.WriteRecorderYCSB(&block, rec); err != nil {
		return result3553{}, err
	}
	h := rec.Histogram("MULTIREAD")
	return result3553{
		block:      block.String(),
		throughput: float64(h.TotalCount()) / rec.Elapsed().Seconds(),
		avgUS:      h.Mean() / 1e3,
		p99US:      float64(h.ValueAtQuantile(99)) / 1e3,
	}, nil
}
