package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/internal/ycsbfmt"
	"github.com/writegc/writegc/writepath"
)

type cfg18500 struct {
	out        string
	rows, runs int
	kind       string
	transports []string
}

// paths18500 in the order of the tables: the seed's two rows first
// (direct: HTable.put after HBASE-18500; autoflush: before it).
var paths18500 = []string{writepath.PathDirect, writepath.PathAutoFlush, writepath.PathBuffered, writepath.PathAsync}

// run18500 writes raw/pe-<transport>-test<N>.txt (PE lines of the four
// paths) and tables.md (mean, p50, p99 per transport, Test1..TestN).
func run18500(cfg cfg18500) error {
	raw := filepath.Join(cfg.out, "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		return err
	}
	// stats[transport][path][run] = histogram
	stats := map[string]map[string][]*hdrhistogram.Histogram{}
	rates := map[string]map[string][]float64{} // rows/s over the whole run
	for _, tr := range cfg.transports {
		stats[tr] = map[string][]*hdrhistogram.Histogram{}
		rates[tr] = map[string][]float64{}
	}
	for run := 1; run <= cfg.runs; run++ {
		for _, tr := range cfg.transports {
			var pe bytes.Buffer
			fmt.Fprintf(&pe, "# Test%d transport=%s: %d rows of 16 B random keys and 100 B values per path, 1 client goroutine, memtable %s, no WAL; first 10%% of rows excluded (PE --measureAfter)\n",
				run, tr, cfg.rows, cfg.kind)
			for _, path := range paths18500 {
				h, total, err := write18500(cfg, tr, path, uint64(run))
				if err != nil {
					return fmt.Errorf("run %d (Test%d) %s %s: %w", run, run, tr, path, err)
				}
				stats[tr][path] = append(stats[tr][path], h)
				rates[tr][path] = append(rates[tr][path], float64(cfg.rows)/total.Seconds())
				fmt.Fprintf(&pe, "# %s: whole run %v, %.0f rows/s\n", path, total.Round(time.Millisecond), float64(cfg.rows)/total.Seconds())
				ycsbfmt.WritePE(&pe, path, h)
			}
			name := filepath.Join(raw, fmt.Sprintf("pe-%s-test%d.txt", tr, run))
			if err := os.WriteFile(name, pe.Bytes(), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "seedrun 18500: Test%d %s done\n", run, tr)
		}
	}
	var md bytes.Buffer
	for _, tr := range cfg.transports {
		tables18500(&md, cfg, tr, stats[tr], rates[tr])
	}
	return os.WriteFile(filepath.Join(cfg.out, "tables.md"), md.Bytes(), 0o644)
}

// write18500 is one PE randomWrite run of one path on a fresh server.
func write18500(cfg cfg18500, tr, path string, seed uint64) (*hdrhistogram.Histogram, time.Duration, error) {
	s, err := writepath.NewServer(writepath.ServerOptions{Kind: cfg.kind})
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	tp, closeT, err := writepath.Connect(tr, s)
	if err != nil {
		return nil, 0, err
	}
	defer closeT()
	c, err := writepath.NewClient(path, tp, writepath.ClientOptions{})
	if err != nil {
		return nil, 0, err
	}
	async, _ := c.(*writepath.Async)
	value := workload.Value(100)
	key := make([]byte, workload.KeySize)
	warm := cfg.rows / 10
	var rec *latency.Recorder
	start := time.Now()
	for i := range cfg.rows {
		if i == warm {
			rec = latency.NewRecorder(latency.RecorderOptions{})
		}
		workload.KeyAt(key, 18500+seed*1_000_003, uint64(i))
		t0 := time.Now()
		if async != nil && rec != nil {
			r := rec
			err = async.PutAsync(key, value, func(err error) { r.Record("INSERT", t0, time.Now(), err) })
		} else {
			err = c.Put(key, value)
			if rec != nil {
				rec.Record("INSERT", t0, time.Now(), err)
			}
		}
		if err != nil {
			c.Close()
			return nil, 0, err
		}
	}
	if err := c.Flush(); err != nil {
		c.Close()
		return nil, 0, err
	}
	total := time.Since(start)
	if err := c.Close(); err != nil {
		return nil, 0, err
	}
	if n := rec.Errors("INSERT"); n > 0 {
		return nil, 0, fmt.Errorf("%d failed Puts", n)
	}
	return rec.Histogram("INSERT"), total, nil
}

func tables18500(w *bytes.Buffer, cfg cfg18500, tr string, st map[string][]*hdrhistogram.Histogram, rates map[string][]float64) {
	stat := []struct {
		name string
		f    func(*hdrhistogram.Histogram) float64
	}{
		{"Mean", func(h *hdrhistogram.Histogram) float64 { return h.Mean() / 1e3 }},
		{"50th", func(h *hdrhistogram.Histogram) float64 { return float64(h.ValueAtQuantile(50)) / 1e3 }},
		{"99th", func(h *hdrhistogram.Histogram) float64 { return float64(h.ValueAtQuantile(99)) / 1e3 }},
	}
	means := map[string]map[string]float64{}
	for _, s := range stat {
		fmt.Fprintf(w, "\n%s latency test result (µs), transport=%s.\n\n| path |", s.name, tr)
		writeRunColumns(w, cfg.runs)
		means[s.name] = map[string]float64{}
		for _, p := range paths18500 {
			fmt.Fprintf(w, "| %s |", p)
			sum := 0.0
			for _, h := range st[p] {
				v := s.f(h)
				sum += v
				fmt.Fprintf(w, " %.2f |", v)
			}
			m := sum / float64(len(st[p]))
			means[s.name][p] = m
			fmt.Fprintf(w, " **%.2f** |\n", m)
		}
	}
	fmt.Fprintf(w, "\nThroughput test result (rows/s over the whole run, warm-up and final Flush included), transport=%s.\n\n| path |", tr)
	writeRunColumns(w, cfg.runs)
	for _, p := range paths18500 {
		fmt.Fprintf(w, "| %s |", p)
		sum := 0.0
		for _, r := range rates[p] {
			sum += r
			fmt.Fprintf(w, " %.0f |", r)
		}
		fmt.Fprintf(w, " **%.0f** |\n", sum/float64(len(rates[p])))
	}
	fmt.Fprintf(w, "\nDirection (transport=%s): ", tr)
	for _, s := range []string{"Mean", "99th", "50th"} {
		d, a := means[s][writepath.PathDirect], means[s][writepath.PathAutoFlush]
		wins := 0
		for i := range st[writepath.PathDirect] {
			if s := stat[map[string]int{"Mean": 0, "50th": 1, "99th": 2}[s]]; s.f(st[writepath.PathDirect][i]) < s.f(st[writepath.PathAutoFlush][i]) {
				wins++
			}
		}
		fmt.Fprintf(w, "%s: direct %.2f vs autoflush %.2f µs (autoflush %+.1f%%; direct lower in %d of %d runs). ",
			s, d, a, 100*(a-d)/d, wins, len(st[writepath.PathDirect]))
	}
	fmt.Fprintln(w)
}

// writeRunColumns ends a table's header row after its path column: a
// column a run and the mean, then the separator row.
func writeRunColumns(w io.Writer, runs int) {
	for i := 1; i <= runs; i++ {
		fmt.Fprintf(w, " Test%d |", i)
	}
	fmt.Fprintf(w, " mean |\n|---|")
	for i := 0; i <= runs; i++ {
		fmt.Fprintf(w, "---:|")
	}
	fmt.Fprintln(w)
}
