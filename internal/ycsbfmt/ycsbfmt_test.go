package ycsbfmt

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/latency"
)

func TestRecorderWarmUpAndPrinters(t *testing.T) {
	start := time.Now().Add(-time.Second)
	r := latency.NewRecorder(latency.RecorderOptions{WarmUp: 500 * time.Millisecond, Start: start})
	r.Record("INSERT", start.Add(100*time.Millisecond), start.Add(101*time.Millisecond), nil) // warm-up: dropped
	for i := range 100 {
		s := start.Add(600*time.Millisecond + time.Duration(i)*time.Millisecond)
		r.Record("INSERT", s, s.Add(time.Duration(i+1)*time.Microsecond), nil)
	}
	r.Record("INSERT", start.Add(700*time.Millisecond), start.Add(701*time.Millisecond), errors.New("x"))
	h := r.Histogram("INSERT")
	if h.TotalCount() != 100 || r.Errors("INSERT") != 1 {
		t.Fatalf("count %d errors %d", h.TotalCount(), r.Errors("INSERT"))
	}
	if p50 := h.ValueAtQuantile(50); p50 < 49_000 || p50 > 51_000 {
		t.Fatalf("p50 %d ns", p50)
	}
	var pe strings.Builder
	WritePE(&pe, "randomWrite", h)
	for _, w := range []string{"randomWrite Latency (us) : mean=", "min=1.00", "50th=50.", "99th=99.", "99.9th=", "99.99th=", "stdDev="} {
		if !strings.Contains(pe.String(), w) {
			t.Fatalf("PE output lacks %q: %s", w, pe.String())
		}
	}
	var y strings.Builder
	WriteRecorderYCSB(&y, r)
	for _, w := range []string{"[OVERALL], RunTime(ms), ", "[OVERALL], Throughput(ops/sec), ", "[INSERT], Operations, 101",
		"[INSERT], AverageLatency(us), ", "[INSERT], MinLatency(us), 1\n", "[INSERT], MaxLatency(us), 100\n",
		"[INSERT], 95thPercentileLatency(us), 95\n", "[INSERT], 99thPercentileLatency(us), 99\n", "[INSERT], Return=OK, 100\n", "[INSERT], Return=ERROR, 1\n"} {
		if !strings.Contains(y.String(), w) {
			t.Fatalf("YCSB output lacks %q:\n%s", w, y.String())
		}
	}
}
