package writepath

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/internal/ycsbfmt"
	"github.com/writegc/writegc/memtable"
)

// TestReportSeeds reproduces the seed experiments' output formats and writes
// them under $WRITEGC_REPORT_SEEDS (skipped when unset):
//
//   - pe.txt, ycsb-write.txt: HBASE-18500: one client goroutine writes
//     $WRITEGC_SEED_ROWS (default 100000) random 100 B rows over loopback
//     TCP through each path (PE randomWrite --rows=100000), the first 10%
//     of the run excluded as warm-up (PE --measureAfter);
//   - ycsb-multiget.txt: HBASE-3553: 16 and 32 threads issue multigets of
//     100 random keys against 8 regions, sequential then parallel.
func TestReportSeeds(t *testing.T) {
	dir := os.Getenv("WRITEGC_REPORT_SEEDS")
	if dir == "" {
		t.Skip("set WRITEGC_REPORT_SEEDS=dir to write the seed-format reports")
	}
	rows := 100_000
	if v, err := strconv.Atoi(os.Getenv("WRITEGC_SEED_ROWS")); err == nil && v > 0 {
		rows = v
	}
	kind := "arena"
	if !contains(memtable.Kinds(), kind) {
		kind = memtable.Kinds()[0]
	}
	os.MkdirAll(dir, 0o755)
	pe, _ := os.Create(filepath.Join(dir, "pe.txt"))
	defer pe.Close()
	yw, _ := os.Create(filepath.Join(dir, "ycsb-write.txt"))
	defer yw.Close()
	fmt.Fprintf(pe, "# %d rows of 16 B keys and 100 B values per path, 1 client goroutine, loopback TCP, memtable %s; first 10%% excluded (warm-up)\n", rows, kind)
	for _, path := range []string{PathDirect, PathAutoFlush, PathBuffered, PathAsync} {
		s, err := NewServer(ServerOptions{Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		tp, closeT, err := Connect("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := NewClient(path, tp, ClientOptions{})
		value := workload.Value(100)
		key := make([]byte, 16)
		// Warm-up by operation count, as PE: the recorder's clock starts
		// when the 10% mark is reached.
		warm := rows / 10
		var rec *latency.Recorder
		start := time.Now()
		for i := range rows {
			if i == warm {
				rec = latency.NewRecorder(latency.RecorderOptions{})
			}
			workload.KeyAt(key, 18500, uint64(i))
			t0 := time.Now()
			if a, ok := c.(*Async); ok && rec != nil {
				r := rec
				err = a.PutAsync(key, value, func(err error) { r.Record("INSERT", t0, time.Now(), err) })
			} else {
				err = c.Put(key, value)
				if rec != nil {
					rec.Record("INSERT", t0, time.Now(), err)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		rec.MarkEnd(time.Now())
		total := time.Since(start)
		c.Close()
		closeT()
		s.Close()
		ycsbfmt.WritePE(pe, path, rec.Histogram("INSERT"))
		fmt.Fprintf(yw, "# path=%s (whole run incl. warm-up: %v)\n", path, total.Round(time.Millisecond))
		ycsbfmt.WriteRecorderYCSB(yw, rec)
	}

	ym, _ := os.Create(filepath.Join(dir, "ycsb-multiget.txt"))
	defer ym.Close()
	const n = 100_000
	s, err := NewServer(ServerOptions{Kind: kind, Regions: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys := workload.NewKeys(n, 16, 3553)
	for i := range n {
		s.Put(keys.Key(i), workload.Value(100))
	}
	tp, closeT, err := Connect("tcp", s)
	if err != nil {
		t.Fatal(err)
	}
	defer closeT()
	mg := NewMultiGetter(tp)
	for _, threads := range []int{16, 32} {
		for _, mode := range MultiGetModes() {
			ops := 150 * threads
			rec := latency.NewRecorder(latency.RecorderOptions{WarmUp: 200 * time.Millisecond})
			var wg sync.WaitGroup
			for g := range threads {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 1))
					ks := make([][]byte, DefaultMultiGetKeys)
					for range ops / threads {
						for j := range ks {
							ks[j] = keys.Key(rng.IntN(n))
						}
						t0 := time.Now()
						_, err := mg.MultiGet(context.Background(), ks, mode)
						rec.Record("MULTIREAD", t0, time.Now(), err)
					}
				}()
			}
			wg.Wait()
			fmt.Fprintf(ym, "# %d threads, mode=%s, 8 regions, 100 keys per multiget, loopback TCP, 200 ms warm-up excluded\n", threads, mode)
			ycsbfmt.WriteRecorderYCSB(ym, rec)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
