package gchealth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcmetrics/health"
)

// TestNewOptions: the zero Options is valid (1 s, gcstress's thresholds);
// a bad window or bound is a one-line error wrapping ErrOptions.
func TestNewOptions(t *testing.T) {
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.opts.Window != time.Second || m.th != health.DefaultThresholds() {
		t.Errorf("zero Options: window %v thresholds %+v", m.opts.Window, m.th)
	}
	m.Close()
	m.Close() // idempotent
	bad := health.DefaultThresholds()
	bad.HealthyGC = 200
	for _, c := range []struct {
		o    Options
		name string
	}{{Options{Window: time.Nanosecond}, "Window"}, {Options{Window: -time.Second}, "Window"}, {Options{Window: 9 * time.Millisecond}, "Window"},
		{Options{Window: 2 * time.Hour}, "Window"}, {Options{Thresholds: &bad}, "Thresholds"}, {Options{Spiral: Spiral{HeapPct: 101}}, "Spiral.HeapPct"},
		{Options{Spiral: Spiral{GCPct: math.NaN()}}, "Spiral.GCPct"}, {Options{Spiral: Spiral{Windows: -1}}, "Spiral.Windows"},
		{Options{MaxCaptures: -1}, "MaxCaptures -1"}, {Options{MaxCaptureBytes: -5}, "MaxCaptureBytes -5"}, {Options{History: 1 << 20}, "History 1048576"},
		{Options{History: -1}, "History -1"}, {Options{MaxInFlight: -2}, "MaxInFlight -2"}, {Options{CaptureEvery: -time.Second}, "CaptureEvery"},
		{Options{FlightWindow: -time.Second}, "FlightWindow"}} {
		m, err := New(c.o)
		if err == nil {
			m.Close()
			t.Errorf("%+v: no error", c.o)
			continue
		}
		if !errors.Is(err, ErrOptions) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), ": "+c.name) {
			t.Errorf("%s: %q, want one line naming %q", c.name, err, c.name)
		}
	}
}

// TestMonitorSamples: a real Monitor at a short window classifies windows
// and answers State while the program allocates.
func TestMonitorSamples(t *testing.T) {
	m := newMonitor(t, Options{Window: 20 * time.Millisecond})
	var sink [][]byte
	deadline := time.Now().Add(30 * time.Second)
	for m.State().Windows < 5 && time.Now().Before(deadline) {
		for range 1000 {
			sink = append(sink, make([]byte, 64))
		}
		if len(sink) > 100000 {
			sink = nil
		}
		time.Sleep(time.Millisecond)
	}
	st := m.State()
	if st.Windows < 5 || st.State.Rank() < 0 || st.Causes == nil {
		t.Fatalf("state %+v", st)
	}
}

// TestStepAllocatesNothing: sampling and classifying a window allocates
// nothing in steady state.
func TestStepAllocatesNothing(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour})
	now := time.Now()
	m.step(now) // the first may change state
	allocs := testing.AllocsPerRun(200, func() {
		now = now.Add(time.Second)
		if _, changed := m.step(now); changed {
			return // a change allocates its Change; rare here
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per window, want 0", allocs)
	}
}

// BenchmarkWindow measures one window's sample and classification: its CPU
// as a share of one core at each window length, and its allocations.
func BenchmarkWindow(b *testing.B) {
	for _, win := range []time.Duration{time.Second, 100 * time.Millisecond} {
		b.Run("window="+win.String(), func(b *testing.B) {
			m := newMonitor(b, Options{Window: time.Hour})
			now := time.Now()
			m.step(now)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now = now.Add(win)
				m.step(now)
			}
			b.StopTimer()
			perWindow := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(100*perWindow/float64(win.Nanoseconds()), "%core")
			b.ReportMetric(perWindow/1e3, "µs/window")
		})
	}
}

// TestHandler: JSON and HTML, methods, long and bad queries.
func TestHandler(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour})
	w := recorded(t, "degrading.jsonl")["failure/heap"]
	for i := range w {
		m.observe(&w[i], time.Unix(1700000000+int64(i), 0))
	}
	h := m.Handler()
	get := func(method, target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		return rec
	}
	rec := get("GET", "/?format=json")
	var js map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &js); rec.Code != 200 || err != nil {
		t.Fatalf("json: %d %v %s", rec.Code, err, rec.Body)
	}
	for _, k := range []string{"state", "causes", "window_s", "figures", "since"} {
		if _, ok := js[k]; !ok {
			t.Errorf("json has no %q: %s", k, rec.Body)
		}
	}
	if js["state"] != "degraded" || js["causes"].([]any)[0] != "gc_cpu" || js["figures"].(map[string]any)["gc_cpu_ratio"].(float64) < 0.25 {
		t.Errorf("json: %s", rec.Body)
	}
	rec = get("GET", "/")
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, "<svg") || !strings.Contains(body, "degraded") ||
		strings.Contains(body, "http://") || strings.Contains(body, "https://") || strings.Contains(body, "ZgotmplZ") ||
		!strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("page: %d %s", rec.Code, body)
	}
	if rec := get("HEAD", "/?format=json"); rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: %d %d bytes", rec.Code, rec.Body.Len())
	}
	for _, c := range []struct {
		method, target string
		code           int
	}{{"POST", "/", 405}, {"DELETE", "/?format=json", 405}, {"GET", "/?format=xml", 400}, {"GET", "/?format=%zz", 400},
		{"GET", "/?q=" + strings.Repeat("a", 1<<20), 414}} {
		if rec := get(c.method, c.target); rec.Code != c.code {
			t.Errorf("%s %.40s: %d, want %d", c.method, c.target, rec.Code, c.code)
		}
	}
}

// TestHandlerConcurrent: 1,000 requests at once over a real listener get
// 200 or 503 (the MaxInFlight cap), never anything else, and the handler
// holds no slot afterwards; a 1 MB query is refused.
func TestHandlerConcurrent(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour, MaxInFlight: 4})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := srv.URL + "/?format=json"
			if i%2 == 1 {
				target = srv.URL + "/"
			}
			code := -1
			if resp, err := client.Get(target); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				code = resp.StatusCode
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] == 0 || codes[200]+codes[503]+codes[-1] != 1000 || codes[-1] > 100 {
		t.Fatalf("codes %v", codes)
	}
	if len(m.sem) != 0 {
		t.Fatalf("%d slots held after the requests", len(m.sem))
	}
	resp, err := client.Get(srv.URL + "/?q=" + strings.Repeat("a", 1<<20))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Fatalf("1 MB query: %d", resp.StatusCode)
		}
	}
}

// degrade drives m into degraded with recorded windows and returns the
// Change of that transition.
func degrade(t *testing.T, m *Monitor) Change {
	t.Helper()
	w := recorded(t, "degrading.jsonl")["failure/heap"]
	var into *Change
	m.OnChange(func(c Change) {
		if c.To == Degraded && into == nil {
			into = &c
		}
	})
	for i := range w {
		if ch, ok := m.observe(&w[i], time.Now()); ok {
			m.changed(ch)
		}
	}
	if into == nil {
		t.Fatal("no transition into degraded")
	}
	return *into
}

// TestCaptureExplain: a transition into degraded writes flight.out,
// heap.pprof and change.json into a folder of their own, named in the
// Change, and explain (gcstress explain) reads the folder: a trace and a
// heap profile.
func TestCaptureExplain(t *testing.T) {
	dir := t.TempDir()
	m := newMonitor(t, Options{Window: time.Hour, CaptureDir: dir, FlightWindow: time.Second})
	var sink [][]byte
	for i := range 20000 { // something for the trace and the heap profile
		sink = append(sink, make([]byte, 512+i%512))
	}
	ch := degrade(t, m)
	if ch.CaptureErr != nil || len(ch.Capture) != 3 {
		t.Fatalf("capture %v %v", ch.Capture, ch.CaptureErr)
	}
	folder := filepath.Dir(ch.Capture[0])
	for _, f := range ch.Capture {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 || filepath.Dir(f) != folder {
			t.Fatalf("%s: %v", f, err)
		}
	}
	acc, err := explain.Explain(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(acc.Traces) != 1 || acc.Heap == nil && acc.Allocs == nil {
		t.Fatalf("explain read traces %d, heap %v allocs %v; unusable %v", len(acc.Traces), acc.Heap != nil, acc.Allocs != nil, acc.Unusable)
	}
	if st := m.State(); len(st.LastCapture) != 3 || st.LastCaptureError != "" {
		t.Errorf("state capture %v %q", st.LastCapture, st.LastCaptureError)
	}
	_ = sink
}

// TestCapturePrune: a Monitor's captures stay within MaxCaptures, the
// oldest removed; the newest stays whatever its size.
func TestCapturePrune(t *testing.T) {
	dir := t.TempDir()
	c := testCapturer(t, dir, 2)
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var firsts []string
	for i := range 4 {
		files, err := c.capture(Change{From: Healthy, To: Degraded, At: at.Add(time.Duration(i) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		firsts = append(firsts, filepath.Dir(files[0]))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 || ents[0].Name() != filepath.Base(firsts[2]) || ents[1].Name() != filepath.Base(firsts[3]) {
		t.Fatalf("kept %v, want the last two of %v", ents, firsts)
	}
	c.maxBytes = 1 // the newest stays whatever its size
	c.capture(Change{To: Failing, At: at.Add(time.Hour)})
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("kept %v, want the newest only", ents)
	}
}

// fullFile fails every write as a full disk does.
type fullFile struct{ f *os.File }

func (f fullFile) Write([]byte) (int, error) { return 0, syscall.ENOSPC }
func (f fullFile) Sync() error               { return nil }
func (f fullFile) Close() error              { return f.f.Close() }

// TestCaptureFailures: a capture directory that is full or cannot be
// created leaves no partial capture, is reported in the Change (wrapping
// ErrCapture) and in State, and the Monitor goes on classifying.
func TestCaptureFailures(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	full := t.TempDir()
	for name, c := range map[string]struct {
		dir   string
		full  bool
		class string
	}{"not a directory": {filepath.Join(file, "captures"), false, "capture failed: capture folder missing or not a folder"},
		"full": {full, true, "capture failed: disk full"}} {
		m, err := New(Options{Window: time.Hour, CaptureDir: c.dir})
		if err != nil {
			t.Fatal(err)
		}
		if c.full {
			m.cap.create = func(p string) (syncFile, error) {
				f, err := os.Create(p)
				return fullFile{f}, err
			}
		}
		ch := degrade(t, m)
		if !errors.Is(ch.CaptureErr, ErrCapture) || ch.Capture != nil {
			t.Errorf("%s: capture %v, error %v", name, ch.Capture, ch.CaptureErr)
		}
		if c.full && !errors.Is(ch.CaptureErr, ErrCapture) || c.full && !strings.Contains(ch.CaptureErr.Error(), "no space") {
			t.Errorf("%s: %v", name, ch.CaptureErr)
		}
		if st := m.State(); st.LastCaptureError != c.class || st.State != Degraded {
			t.Errorf("%s: state %+v", name, st)
		}
		if c.full {
			if ents, _ := os.ReadDir(c.dir); len(ents) != 0 {
				t.Errorf("%s: left %v", name, ents)
			}
		}
		m.step(time.Now()) // still sampling
		m.Close()
	}
}

// TestExit: Exit logs one line naming the figures and exits with its code
// (in a child process: this test binary, run again).
func TestExit(t *testing.T) {
	if os.Getenv("GCHEALTH_TEST_EXIT") == "1" {
		Exit(7)(Change{To: Failing, Causes: []Cause{CauseMemlimitSpiral},
			Figures: Figures{HeapToLimitRatio: 0.97, MemLimitBytes: 64 << 20, GCCPURatio: 0.8, LimiterEngaged: true, SpiralWindows: 3}})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestExit$")
	cmd.Env = append(os.Environ(), "GCHEALTH_TEST_EXIT=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("exit: %v, output %s", err, out)
	}
	line := strings.TrimSpace(string(out))
	if strings.Count(line, "\n") != 0 || !strings.Contains(line, "memlimit-spiral") || !strings.Contains(line, "97% of GOMEMLIMIT (64 MiB)") ||
		!strings.Contains(line, "GC CPU 80%") {
		t.Fatalf("output %q", line)
	}
	fmt.Fprintln(io.Discard, line)
}

// newMonitor starts a Monitor of opts, closed when the test ends.
func newMonitor(tb testing.TB, opts Options) *Monitor {
	tb.Helper()
	m, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}
