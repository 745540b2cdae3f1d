package child

import (
	"bytes"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/trace"
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Minute), 3) }

// A synthetic timeline: mark phases [100, 200) and [500, 600), a pause
// [195, 205), worker 1 assisting in [150, 160).
func synthetic() *Phases {
	p := &Phases{
		Mark:   []Span{{500, 600}, {100, 200}, {150, 180}}, // unsorted, one nested: Normalize merges
		Pause:  []Span{{195, 205}},
		Assist: map[int][]Span{1: {{150, 160}}},
	}
	p.Normalize()
	return p
}

func TestClassify(t *testing.T) {
	p := synthetic()
	if len(p.Mark) != 2 {
		t.Fatalf("Normalize left %v", p.Mark)
	}
	for _, c := range []struct {
		op   Op
		want Overlap
	}{
		{Op{0, 100, 0}, 0},                             // ends where mark starts: no overlap
		{Op{90, 101, 0}, InMark},                       // reaches into it
		{Op{200, 300, 0}, InPause},                     // after mark, inside the pause
		{Op{205, 500, 0}, 0},                           // between everything
		{Op{155, 156, 1}, InMark | InAssist},           // worker 1's assist
		{Op{155, 156, 2}, InMark},                      // another worker's read at the same time
		{Op{190, 197, 1}, InMark | InPause},            // mark and pause, assist over
		{Op{599, 599, 0}, InMark},                      // an instant inside
		{Op{10, 1000, 1}, InMark | InPause | InAssist}, // spans it all
	} {
		if got := p.Classify(c.op); got != c.want {
			t.Errorf("Classify(%+v) = %b, want %b", c.op, got, c.want)
		}
	}
	if n := p.MarkNanos(150, 550); n != 50+50 {
		t.Errorf("MarkNanos(150, 550) = %d, want 100", n)
	}
}

// Reads slow only inside mark: all slow reads are in mark, in-mark p99 is
// the slow value, outside p99 the fast one.
func TestAttribute(t *testing.T) {
	p := synthetic()
	var ops []Op
	for i := range int64(1000) {
		start := i * 1000 // 0..1e6 ns; mark covers [100,200) and [500,600) only: a few reads
		ops = append(ops, Op{start, start + 10, 0})
	}
	p.Mark = []Span{{100_000, 120_000}} // 20 reads fall in mark
	for i := range ops {
		if p.Classify(ops[i])&InMark != 0 {
			ops[i].End = ops[i].Start + 5000
		}
	}
	a := Attribute(p, ops, newHist)
	if a.AllInMark != 20 || a.InMark.TotalCount() != 20 || a.Outside.TotalCount() != 980 {
		t.Fatalf("in mark %d (hist %d), outside %d", a.AllInMark, a.InMark.TotalCount(), a.Outside.TotalCount())
	}
	if a.Slow == 0 || a.SlowInMark != a.Slow || a.SlowInGC != a.Slow {
		t.Errorf("slow %d, in mark %d, in gc %d: want every slow read in mark", a.Slow, a.SlowInMark, a.SlowInGC)
	}
	if in, out := a.InMark.ValueAtQuantile(99), a.Outside.ValueAtQuantile(99); in < 100*out {
		t.Errorf("p99 in mark %d, outside %d", in, out)
	}
}

// A real trace: forced collections show as mark phases and pauses on the
// recorder's clock, within the traced interval.
func TestParseRealTrace(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("the test binary is already tracing")
	}
	t0 := time.Now()
	r, err := StartGCTrace(t.TempDir(), t0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		Worker(7)
		var keep [][]byte
		for i := range 20000 {
			keep = append(keep, make([]byte, 1024))
			if i%5000 == 0 {
				runtime.GC()
			}
		}
		runtime.KeepAlive(keep)
		close(done)
	}()
	<-done
	runtime.GC()
	end := int64(time.Since(t0))
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	ph, events, err := r.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if events == 0 || r.Bytes() == 0 || len(ph.Mark) < 4 || len(ph.Pause) < 8 {
		t.Fatalf("events %d, bytes %d, %d marks, %d pauses: want the 5 forced cycles", events, r.Bytes(), len(ph.Mark), len(ph.Pause))
	}
	for _, s := range ph.Mark {
		if s.Start < -int64(time.Millisecond) || s.End > end+int64(10*time.Millisecond) {
			t.Errorf("mark %v outside the traced [0, %d]", s, end)
		}
	}
	// The same scan gave the MMU: the forced pauses leave a short window
	// short of the whole CPU, and the worst one is on the child's clock.
	mmu := ph.MMU(UtilSTW, DefaultMMUWindows)
	if len(mmu) != len(DefaultMMUWindows) || mmu[0].Util >= 1 {
		t.Fatalf("MMU %v: want %d points, the first below 1", mmu, len(DefaultMMUWindows))
	}
	for _, m := range mmu {
		if m.Util < 0 || m.Util > 1 {
			t.Errorf("MMU %v outside [0, 1]", m)
		}
	}
	ww := ph.WorstWindows(UtilSTW, 100*time.Microsecond, 3)
	if len(ww) == 0 || ww[0].Util != mmu[0].Util {
		t.Fatalf("worst windows %v: want the first at the MMU %v", ww, mmu[0])
	}
	if s := int64(ww[0].Start); s < -int64(time.Millisecond) || s > end+int64(10*time.Millisecond) {
		t.Errorf("worst window %v outside the traced [0, %d]", ww[0], end)
	}
}

// A damaged trace (cut short, bytes changed) never panics, in Parse or in
// the MMU of what Parse returned (TestMMURandomLog checks the MMU of odd
// logs; the parser refuses most damage).
func TestParseDamagedTrace(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("the test binary is already tracing")
	}
	r, err := StartGCTrace(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var keep [][]byte
	for i := range 3000 {
		keep = append(keep, make([]byte, 1024))
		if i%1000 == 0 {
			runtime.GC()
		}
	}
	runtime.KeepAlive(keep)
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(r.f.Name())
	r.Remove()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	parsed := 0
	for i := range 40 {
		b := slices.Clone(good)
		if i%2 == 0 {
			b = b[:rng.IntN(len(b))]
		} else {
			for range 8 {
				b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			}
		}
		ph, _, err := Parse(bytes.NewReader(b))
		if err != nil {
			continue
		}
		parsed++
		for f := range UtilFlags(64) {
			for _, m := range ph.MMU(f, DefaultMMUWindows) {
				if m.Util < 0 || m.Util > 1 || m.Util != m.Util {
					t.Fatalf("damaged trace %d, flags %b: MMU %v", i, f, m)
				}
			}
			_ = ph.WorstWindows(f, time.Millisecond, 3)
		}
	}
	t.Logf("%d of 40 damaged traces parsed", parsed)
	if _, _, err := Parse(bytes.NewReader(good)); err != nil {
		t.Fatalf("the undamaged trace: %v", err)
	}
}
