package explain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"time"

	"github.com/felixge/fgprof"
	"github.com/google/pprof/profile"

	"github.com/writegc/writegc/gcmetrics"
)

// Capture defaults.
const (
	DefaultTraceWindow   = 5 * time.Second
	DefaultMutexFraction = 10
	DefaultBlockRate     = 10_000 // nanoseconds
)

// Errors of Capture.
var (
	// ErrCaptureState: Start on a started Capture, or Stop/SnapshotHeap
	// before Start.
	ErrCaptureState = errors.New("capture not in the right state")
)

// Capture records the profiles of one scenario into a directory. Set the
// exported fields, call Start when the scenario reaches steady state, call
// SnapshotHeap whenever the caller's sampler sees a new heap peak, and Stop
// at the end. Files written (for the kinds asked):
//
//	cpu.pprof     CPU profile over [Start, Stop]
//	fgprof.pprof  fgprof wall-clock profile (pprof format) over [Start, Stop]
//	trace.out     runtime trace of the first TraceWindow after Start
//	heap.pprof    heap profile at the last SnapshotHeap (or at Stop if none)
//	allocs.pprof  allocations during [Start, Stop] (a delta profile)
//	mutex.pprof   mutex contention during [Start, Stop] (delta)
//	block.pprof   blocking during [Start, Stop] (delta)
//	metrics.json  runtime/metrics' GC CPU share over [Start, Stop] (with cpu)
//
// Limits: only one CPU profile and one trace.Start can run per process, so
// only one Capture with cpu or trace can be active at a time (a concurrent
// flight recorder is fine). Mutex and block rates are process-wide; Stop
// turns block profiling off and restores the previous mutex fraction.
// Heap in-use figures are as of the last completed GC cycle before the
// snapshot (a runtime property). A Capture is used once.
//
// Start, SnapshotHeap and Stop are safe to call from different goroutines.
type Capture struct {
	// Profiles to record.
	Profiles Profiles
	// TraceWindow bounds trace.out; 0 means DefaultTraceWindow, negative
	// means until Stop.
	TraceWindow time.Duration
	// MutexFraction and BlockRate set runtime.SetMutexProfileFraction and
	// runtime.SetBlockProfileRate; 0 means the defaults above.
	MutexFraction, BlockRate int

	mu        sync.Mutex
	state     int // 0 new, 1 started, 2 stopped
	dir       string
	start     time.Time
	cpuFile   *os.File
	fgFile    *os.File
	fgStop    func() error
	traceStop func() error
	timer     *time.Timer
	heap      []byte
	base      map[string][]byte
	prevMutex int
	metrics0  gcmetrics.Snapshot
}

// Start creates dir if needed and begins recording. On error nothing is
// left running.
func (c *Capture) Start(dir string) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != 0 {
		return fmt.Errorf("explain: capture start: %w (already started)", ErrCaptureState)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("explain: capture: %w", err)
	}
	c.dir, c.state, c.start = dir, 1, time.Now()
	defer func() {
		if err != nil {
			c.stopLocked()
			c.state = 2
		}
	}()
	c.base = map[string][]byte{}
	if c.Profiles&ProfileMutex != 0 {
		c.prevMutex = runtime.SetMutexProfileFraction(defaultInt(c.MutexFraction, DefaultMutexFraction))
	}
	if c.Profiles&ProfileBlock != 0 {
		runtime.SetBlockProfileRate(defaultInt(c.BlockRate, DefaultBlockRate))
	}
	for _, name := range []string{"allocs", "mutex", "block"} {
		if c.Profiles&profileOf(name) == 0 {
			continue
		}
		b, err := lookupProfile(name)
		if err != nil {
			return err
		}
		c.base[name] = b
	}
	if c.Profiles&ProfileCPU != 0 {
		c.metrics0 = gcmetrics.Read()
		f, err := startFile(dir, "cpu.pprof", "CPU profile", func(f *os.File) error { return pprof.StartCPUProfile(f) })
		if err != nil {
			return err
		}
		c.cpuFile = f
	}
	if c.Profiles&ProfileFgprof != 0 {
		f, err := startFile(dir, "fgprof.pprof", "fgprof", func(f *os.File) error {
			c.fgStop = fgprof.Start(f, fgprof.FormatPprof)
			return nil
		})
		if err != nil {
			return err
		}
		c.fgFile = f
	}
	if c.Profiles&ProfileTrace != 0 {
		f, err := startFile(dir, "trace.out", "trace", func(f *os.File) error { return trace.Start(f) })
		if err != nil {
			return err
		}
		stop := sync.OnceValue(func() error {
			trace.Stop()
			return f.Close()
		})
		c.traceStop = stop
		w := c.TraceWindow
		if w == 0 {
			w = DefaultTraceWindow
		}
		if w > 0 {
			c.timer = time.AfterFunc(w, func() { _ = stop() })
		}
	}
	return nil
}

func defaultInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func profileOf(name string) Profiles {
	for _, kn := range profileNames {
		if kn.name == name {
			return kn.k
		}
	}
	return 0
}

// lookupProfile returns a runtime profile's bytes. Parsing waits until
// Stop so the capture's own allocations stay out of the window it measures.
func lookupProfile(name string) ([]byte, error) {
	var buf bytes.Buffer
	if err := pprof.Lookup(name).WriteTo(&buf, 0); err != nil {
		return nil, fmt.Errorf("explain: capture: read %s profile: %w", name, err)
	}
	return buf.Bytes(), nil
}

// SnapshotHeap records the heap profile now, replacing any earlier
// snapshot; Stop writes the latest as heap.pprof. Call it when the heap
// reaches a new peak. It costs a walk of the heap profile's buckets (not
// a GC). Without ProfileHeap it does nothing.
func (c *Capture) SnapshotHeap() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != 1 {
		return fmt.Errorf("explain: snapshot heap: %w (not running)", ErrCaptureState)
	}
	if c.Profiles&ProfileHeap == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
		return fmt.Errorf("explain: snapshot heap: %w", err)
	}
	c.heap = buf.Bytes()
	return nil
}

// Stop ends every recording and writes the remaining files. It returns
// all errors met, joined; it is safe to call twice (the second call does
// nothing).
func (c *Capture) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.state {
	case 0:
		return fmt.Errorf("explain: capture stop: %w (not started)", ErrCaptureState)
	case 2:
		return nil
	}
	c.state = 2
	return c.stopLocked()
}

func (c *Capture) stopLocked() error {
	var errs []error
	if c.cpuFile != nil {
		pprof.StopCPUProfile()
		errs = append(errs, c.cpuFile.Close())
		errs = append(errs, c.writeMetrics())
		c.cpuFile = nil
	}
	if c.fgStop != nil {
		errs = append(errs, c.fgStop(), c.fgFile.Close())
		c.fgStop = nil
	}
	if c.traceStop != nil {
		if c.timer != nil {
			c.timer.Stop()
		}
		errs = append(errs, c.traceStop())
		c.traceStop = nil
	}
	if c.Profiles&ProfileHeap != 0 && c.state == 2 {
		if c.heap == nil {
			var buf bytes.Buffer
			errs = append(errs, pprof.Lookup("heap").WriteTo(&buf, 0))
			c.heap = buf.Bytes()
		}
		errs = append(errs, os.WriteFile(filepath.Join(c.dir, "heap.pprof"), c.heap, 0o644))
	}
	for _, name := range []string{"allocs", "mutex", "block"} {
		base, ok := c.base[name]
		if !ok {
			continue
		}
		if c.state == 2 {
			errs = append(errs, c.writeDelta(name, base))
		}
		delete(c.base, name)
	}
	if c.Profiles&ProfileMutex != 0 {
		runtime.SetMutexProfileFraction(c.prevMutex)
	}
	if c.Profiles&ProfileBlock != 0 {
		runtime.SetBlockProfileRate(0)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("explain: capture stop: %w", err)
	}
	return nil
}

// writeDelta writes profile name minus its value at Start, so cumulative
// profiles (allocs, mutex, block) cover only the capture window.
func (c *Capture) writeDelta(name string, baseData []byte) error {
	nowData, err := lookupProfile(name)
	if err != nil {
		return err
	}
	now, err := profile.ParseData(nowData)
	if err != nil {
		return fmt.Errorf("parse %s profile: %w", name, err)
	}
	b, err := profile.ParseData(baseData)
	if err != nil {
		return fmt.Errorf("parse %s profile: %w", name, err)
	}
	b.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{b, now})
	if err != nil {
		return fmt.Errorf("delta %s profile: %w", name, err)
	}
	kept := d.Sample[:0]
	for _, s := range d.Sample {
		for _, v := range s.Value {
			if v != 0 {
				kept = append(kept, s)
				break
			}
		}
	}
	d.Sample = kept
	d.TimeNanos = now.TimeNanos
	d.DurationNanos = time.Since(c.start).Nanoseconds()
	d.Comments = append(d.Comments, "writegc: delta over the capture window")
	d = d.Compact()
	f, err := os.Create(filepath.Join(c.dir, name+".pprof"))
	if err != nil {
		return err
	}
	return errors.Join(d.Write(f), f.Close())
}

func (c *Capture) writeMetrics() error {
	m := NewCaptureMetrics(c.metrics0, gcmetrics.Read(), time.Since(c.start))
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOEXPERIMENT" {
				m.GOEXPERIMENT = s.Value
			}
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.dir, MetricsFile), append(b, '\n'), 0o644)
}

// startFile creates dir/name and starts what (a profile or trace) writing
// to it with start; when start fails the file is closed.
func startFile(dir, name, what string, start func(*os.File) error) (*os.File, error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("explain: capture: %w", err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("explain: capture: start %s: %w", what, err)
	}
	return f, nil
}
