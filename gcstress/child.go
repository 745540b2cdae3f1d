package gcstress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress/internal/childproto"
	"github.com/writegc/writegc/gcstress/internal/mixload"
	"github.com/writegc/writegc/gcstress/internal/proc"
	"github.com/writegc/writegc/gcstress/internal/profiles"
	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/gcstress/internal/sampler"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
)

// ChildEnv is the environment variable that turns the binary into a
// scenario's child: it holds the Scenario as JSON. A program whose main
// finds it set hands the process to RunChild.
const ChildEnv = runner.ChildEnv

// putBatch is how many keys a writer claims at once; progress counters move
// per batch, so they cost one atomic add per batch, not per Put.
const putBatch = 256

// regionEvery: with a trace running, one Put in regionEvery is marked as an
// explain.DefaultRegion region, so explain can tie slow Puts to GC phases
// without tracing every Put.
const regionEvery = 64

// rssPoll is how often the child checks its resident memory against the
// hard cap.
const rssPoll = 50 * time.Millisecond

// paceSlack: an open-loop writer that is ahead of its schedule by more than
// this sleeps until the Put is due; a Put less early than that starts at
// once (and its latency from intended start is its service time). Sleeping
// for every Put would cost more scheduler CPU than many Puts do.
const paceSlack = 200 * time.Microsecond

// pacedBatch is how many keys an open-loop writer claims at once: small,
// so that writers take turns on the schedule at a fine grain.
const pacedBatch = 16

// releaseAfter is how long writers still blocked in Put after the load
// ended may wait before the engine is closed under them.
const releaseAfter = time.Second

// childMain decodes the scenario from ChildEnv and runs it, streaming on
// the descriptor StreamEnv names (the parent's pipe), or on stdout when it
// names none (a child started by hand).
func childMain(ctx context.Context, specJSON string, stdout io.Writer) error {
	var spec Scenario
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("%w: bad %s: %v", ErrChild, ChildEnv, err)
	}
	if spec.Writers < 1 || spec.Keys < 1 {
		return fmt.Errorf("%w: bad scenario %+v", ErrChild, spec)
	}
	fd, err := streamFDFromEnv()
	if err != nil {
		return err
	}
	out := childproto.NewStream(stdout, spec.Name, 0)
	if fd >= 0 {
		w, err := openStream(fd)
		if err != nil {
			return err
		}
		out = childproto.NewStream(w, spec.Name, StreamProto)
	}
	return runChild(ctx, spec, out)
}

// runChild is the child side of a scenario: load, sample, stream.
// It returns nil when the load ended normally (keys written, duration
// reached, or interrupted) and an error wrapping ErrRSSCap or ErrChild
// otherwise, or ErrStream when the stream could not be written (the load
// then stops at once); in every case the last line it writes is the end
// line.
func runChild(ctx context.Context, spec Scenario, out *childproto.Stream) error {
	out.Emit(&Sample{Type: results.SampleStart, Spec: &spec, Target: spec.Keys, PID: os.Getpid(), Proto: out.Proto()})
	if err := out.Failed(); err != nil {
		return err
	}
	eng, err := newEngine(spec)
	if err != nil {
		out.Emit(&Sample{Type: results.SampleEnd, Reason: results.StopError, Err: err.Error()})
		return fmt.Errorf("%w: %v", ErrChild, err)
	}
	var mr *mixload.Run
	if spec.Mixed() { // mixload.go: the preload phase comes before the measured one
		if mr, err = newMixRun(ctx, spec, eng); err != nil {
			out.Emit(&Sample{Type: results.SampleEnd, Reason: results.StopError, Err: err.Error()})
			_ = eng.Close()
			return fmt.Errorf("%w: %v", ErrChild, err)
		}
	}
	c := newChild(ctx, spec, eng, out)
	c.mix = mr
	c.claimSingly()
	defer c.cancel()
	return c.run()
}

// drivenEngine is the engine as the child drives it (what newEngine
// returns): Put from the writers, Stats from the sampling loop, and Close,
// which may be called twice (once early to release blocked writers, once at
// the end) and runs once.
type drivenEngine interface {
	Put(key, value []byte) error
	Stats() EngineStats
	Close() error
}

// child is one scenario's load in the child process. Goroutines:
//   - Writers writers (write) claim key batches from next and Put them;
//   - watchRSS stops the load at the hard RSS cap;
//   - releaseBlocked closes the engine under writers still blocked a second
//     after the load ended;
//   - run's goroutine samples windows, streams them and writes the end line.
//
// The load ends when load is done (the parent's signal, the duration cap,
// the RSS cap, a Put error) or when every key was claimed; loadDone closes
// once every writer returned. The fields below the line are shared and
// atomic (or guarded: cause); the others are set by newChild and then only
// read.
type child struct {
	spec     Scenario
	eng      drivenEngine
	out      *childproto.Stream
	every    int64 // time one Put in every (0: none)
	kvBytes  int64 // bytes one Put writes
	recs     []*latency.Pair
	parent   context.Context // cancelled when the child is told to stop
	load     context.Context // the load's context: parent, duration, cancel
	cancel   context.CancelFunc
	loadDone chan struct{}
	fr       *explain.FlightRecorder // nil when off
	prof     *profiles.Profiles      // nil when off
	batch    int64                   // keys claimed at once
	t0       time.Time               // the load's start: key i is due at t0 + i*interval
	interval float64                 // open loop: ns between scheduled Puts; 0 closed loop
	heapBase results.HeapReading     // the heap with the engine built and empty (footprint)

	next, keys, bytes atomic.Int64 // next key index to claim; keys and bytes written
	peakRSS           atomic.Uint64
	earlyClose        atomic.Bool // the engine was closed to release blocked writers
	cause             childproto.StopCause

	mix *mixload.Run // a mixed workload (package gcstress/internal/mixload); nil for the write-only Put loop
}

func newChild(ctx context.Context, spec Scenario, eng drivenEngine, out *childproto.Stream) *child {
	c := &child{spec: spec, eng: eng, out: out, every: int64(spec.LatencyEvery),
		kvBytes: int64(workload.KeySize) + spec.Value, recs: make([]*latency.Pair, spec.Writers),
		parent: ctx, loadDone: make(chan struct{}), batch: putBatch}
	if spec.Rate > 0 {
		c.interval, c.batch = 1e9/spec.Rate, pacedBatch
	}
	if spec.Duration > 0 {
		c.load, c.cancel = context.WithTimeout(ctx, spec.Duration)
	} else {
		c.load, c.cancel = context.WithCancel(ctx)
	}
	for i := range c.recs {
		c.recs[i] = sampler.NewRecorder()
	}
	out.SetOnErr(func(err error) {
		c.cause.Fail(err)
		c.cancel()
	})
	return c
}

// run drives the load to its end and writes the end line; see runChild.
func (c *child) run() error {
	c.fr, c.prof = profiles.Start(c.spec, childWarnings(c.parent))
	if c.fr != nil {
		defer c.fr.Stop()
	}
	// The footprint's baseline: the engine built and empty, the harness
	// set up (its sampler's latency histograms are about 1 MB in five
	// objects), before the first Put and outside every window. What the
	// harness and the empty engine hold is not charged to the entries:
	// divided by them, about 100 objects and 1.1 MB made arena's objects
	// per entry 0.34 at 300 entries and 0.0034 at 30,000, so the figure
	// depended on how many entries the engine held when the load stopped.
	s := sampler.New(c.spec, time.Now(), c.recs)
	c.heapBase = c.mix.HeapBase(heapAfterGC())
	start := time.Now()
	s.Restart(start)
	c.t0 = start
	c.mix.StartTrace(start)
	c.startWriters()
	go c.releaseBlocked()
	go c.watchRSS()
	windows := c.sample(s)
	elapsed := time.Since(start)
	c.mix.StopTrace()
	c.settleReason()
	c.tailWindow(s, len(windows))
	c.prof.Stop()
	s.Freeze()
	// One snapshot of the engine's figures for the whole end record: the
	// footprint divides by its entries (a mix: by its records, not its
	// operations, when the engine reports none), and its flushes, memtable
	// bytes and pending flushes are the same call's, taken before Close.
	st, fp := footprint(c.heapBase, c.eng, c.mix.Records(c.keys.Load()))
	fp.Impossible = impossibleFootprint(fp, c.spec)
	end := c.endLine(s, elapsed, st)
	end.Footprint = fp
	c.out.Emit(&end)
	if err := c.out.Failed(); err != nil {
		return err
	}
	return c.exitError(end)
}

// errWriterExited is the cause of a run whose writer goroutine ended
// without returning: runtime.Goexit (a t.FailNow-like call) inside Put.
var errWriterExited = errors.New("a writer goroutine exited without returning from Put " +
	"(runtime.Goexit, e.g. a t.FailNow-like call in the engine): its keys were not written, the run is void")

// startWriters starts the writers; loadDone closes when all returned. A
// writer that vanished (returned is set only on a normal return, and a
// panic takes the process down first) fails the run (StopCause.Void).
func (c *child) startWriters() {
	var wg sync.WaitGroup
	for i, rec := range c.recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			returned := false
			defer func() {
				if !returned {
					c.cause.Void(errWriterExited)
					c.cancel()
				}
			}()
			if c.mix != nil {
				c.mixWrite(i, rec)
			} else {
				c.write(rec)
			}
			returned = true
		}()
	}
	go func() { wg.Wait(); close(c.loadDone) }()
}

// write is one writer: it claims batches of key indexes until every key is
// claimed or the load ends, and counts what it wrote per batch.
func (c *child) write(rec *latency.Pair) {
	key := make([]byte, workload.KeySize)
	value := workload.Value(int(c.spec.Value))
	for c.load.Err() == nil {
		base := c.next.Add(c.batch) - c.batch
		limit := c.spec.Keys
		if base >= limit && c.spec.MinRun > 0 && time.Since(c.t0) < c.spec.MinRun {
			limit = results.UnboundedKeys // every key written, but too soon: write on (Scenario.MinRun)
		}
		if base >= limit {
			c.cause.Set(results.StopKeys)
			return
		}
		end := min(base+c.batch, limit)
		if err := c.putRange(key, value, base, end, rec); err != nil {
			if c.load.Err() == nil { // else the engine was closed to release this writer
				c.cause.Fail(err)
				c.cancel()
			}
			return
		}
		c.keys.Add(end - base)
		c.bytes.Add((end - base) * c.kvBytes)
	}
}

// putRange Puts keys [base, end); one in every is timed, and with a trace
// running one in regionEvery is a trace region. In an open-loop run each
// Put first waits for its slot in the schedule (pace).
func (c *child) putRange(key, value []byte, base, end int64, rec *latency.Pair) error {
	for i := base; i < end; i++ {
		workload.KeyAt(key, c.spec.Seed, uint64(i))
		var due time.Time
		if c.interval > 0 {
			if due = c.pace(i); due.IsZero() {
				return nil // the load ended while waiting
			}
		}
		var err error
		if (c.every > 0 && i%c.every == 0) || i%regionEvery == 0 {
			err = c.putObserved(key, value, i, due, rec)
		} else {
			err = c.eng.Put(key, value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pace returns when key i is due, after sleeping until then if the writer
// is more than paceSlack ahead; the zero Time when the load ended while
// it slept.
func (c *child) pace(i int64) time.Time {
	due := c.t0.Add(time.Duration(float64(i) * c.interval))
	for {
		d := time.Until(due)
		if d <= paceSlack {
			return due
		}
		if c.load.Err() != nil {
			return time.Time{}
		}
		time.Sleep(min(d, 100*time.Millisecond)) // wake to notice the end of a slow schedule
	}
}

// putObserved is a Put that may be timed, traced as a region, or both;
// due is its slot in an open-loop schedule (zero: closed loop).
func (c *child) putObserved(key, value []byte, i int64, due time.Time, rec *latency.Pair) error {
	timed := c.every > 0 && i%c.every == 0
	var t0 time.Time
	if timed {
		t0 = time.Now()
	}
	var err error
	if i%regionEvery == 0 && trace.IsEnabled() {
		// WithRegion, not StartRegion: StartRegion allocates its *Region,
		// which an engine's allocation profile would count as its own.
		trace.WithRegion(c.load, explain.DefaultRegion, func() { err = c.eng.Put(key, value) })
	} else {
		err = c.eng.Put(key, value)
	}
	if timed {
		done := time.Now()
		intended := int64(-1)
		if !due.IsZero() {
			intended = int64(done.Sub(due)) // record keeps it at least the service time
		}
		rec.Record(int64(done.Sub(t0)), intended)
	}
	return err
}

// releaseBlocked: at the end of the load (keys aside: duration, interrupt,
// RSS cap), writers blocked by backpressure would wait for a slow flush; a
// second later, close the engine, which releases them with an error they
// ignore.
func (c *child) releaseBlocked() {
	select {
	case <-c.loadDone:
		return
	case <-c.load.Done():
	}
	select {
	case <-c.loadDone:
	case <-time.After(releaseAfter):
		c.earlyClose.Store(true)
		_ = c.eng.Close()
	}
}

// watchRSS is the hard RSS cap, checked every rssPoll until the writers
// returned; it also keeps the peak RSS.
func (c *child) watchRSS() {
	t := time.NewTicker(rssPoll)
	defer t.Stop()
	for {
		select {
		case <-c.loadDone:
			return
		case <-t.C:
			rss := proc.ReadRSS()
			c.notePeak(rss)
			if c.spec.RSSCap > 0 && rss > uint64(c.spec.RSSCap) {
				c.cause.Set(results.StopRSSCap)
				c.cancel()
				return
			}
		}
	}
}

func (c *child) notePeak(rss uint64) {
	for {
		p := c.peakRSS.Load()
		if rss <= p || c.peakRSS.CompareAndSwap(p, rss) {
			return
		}
	}
}

// sample streams one window per tick until every writer returned, and
// returns the windows it streamed.
func (c *child) sample(s *sampler.Sampler) []Sample {
	var ticks <-chan time.Time
	if c.spec.Window > 0 {
		t := time.NewTicker(c.spec.Window)
		defer t.Stop()
		ticks = t.C
	}
	var windows []Sample
	loadEnded := c.load.Done()
	for {
		select {
		case <-c.loadDone:
			return windows
		case <-loadEnded:
			// Told to stop (SIGTERM, SIGINT), out of time or over the RSS
			// cap: write the profiles now, before the writers drain, so a
			// child killed after its grace period still leaves them whole.
			loadEnded = nil
			c.prof.Stop()
		case <-ticks:
			if time.Since(s.Last()) < c.spec.Window/2 {
				continue // a late tick right after the last window: fold it into the next
			}
			w := c.window(s)
			c.notePeak(w.RSS)
			c.out.Emit(&w)
			windows = append(windows, w)
			c.prof.Window(w, c.spec)
			c.dumpFlight(windows)
		}
	}
}

// window closes the sampler's current window, with the engine's figures.
func (c *child) window(s *sampler.Sampler) Sample {
	w := s.Window(c.keys.Load(), c.bytes.Load())
	fillEngine(&w, c.eng.Stats())
	c.mix.Window(&w)
	return w
}

func fillEngine(w *Sample, st EngineStats) {
	w.Flushes, w.FlushedBytes, w.PendingFlushes = st.Flushes, st.FlushedBytes, st.PendingFlushes
	w.MemtableBytes, w.BlockedNanos = st.MemtableBytes, st.BlockedNanos
	w.OffHeapBytes = st.OffHeapBytes
}

// dumpFlight writes the flight recorder's window once, on the first window
// past the warm-up classified degraded or failed, and streams a flight line.
func (c *child) dumpFlight(windows []Sample) {
	w := windows[len(windows)-1]
	if c.fr == nil || c.fr.Dumped() || w.T < c.spec.Thresholds.Warmup.Seconds() {
		return
	}
	v := results.ClassifyScenario(c.spec, windows, results.Exit{}, c.spec.Thresholds)
	cls := v.Windows[len(v.Windows)-1].Class
	if cls != results.Degraded && cls != results.Failed {
		return
	}
	p := filepath.Join(c.spec.Dir, explain.FlightFile)
	if err := c.fr.Dump(p); err == nil {
		c.out.Emit(&Sample{Type: results.SampleFlight, T: w.T, Flight: p, Class: cls})
	}
}

// settleReason gives the stop reason when no writer or watchdog gave one:
// interrupted (the parent's signal), the duration cap, or every key.
func (c *child) settleReason() {
	switch {
	case c.load.Err() != nil && c.parent.Err() != nil:
		c.cause.Set(results.StopInterrupted)
	case c.load.Err() != nil:
		c.cause.Set(results.StopDuration)
	}
	c.cause.Set(results.StopKeys)
}

// tailWindow streams a last window for the time since the last one (the
// only one when no window was streamed), unless windows are off or it is
// shorter than half a window: a short tail would plot as a spike, and the
// end line has the totals.
func (c *child) tailWindow(s *sampler.Sampler, streamed int) {
	last := c.window(s)
	if c.spec.Window > 0 && (last.Dur >= c.spec.Window.Seconds()/2 || streamed == 0) {
		c.out.Emit(&last)
	}
}

// endLine closes the engine and builds the end line, with the engine's
// figures of st (the snapshot the footprint was read with, before Close).
func (c *child) endLine(s *sampler.Sampler, elapsed time.Duration, st EngineStats) Sample {
	closeErr := c.eng.Close() // waits for an early close, if any
	if c.earlyClose.Load() {
		closeErr = nil // writers were released on purpose
	}
	end := s.End(c.keys.Load(), c.bytes.Load(), elapsed)
	fillEngine(&end, st)
	c.mix.End(&end)
	if ne, ok := c.eng.(interface{ Notes() map[string]float64 }); ok {
		end.Notes = ne.Notes()
	}
	reason, err := c.cause.Get()
	end.Reason = reason
	end.PeakRSS = max(c.peakRSS.Load(), end.PeakRSS)
	if err != nil {
		end.Err = err.Error()
	} else if closeErr != nil {
		end.Err = closeErr.Error()
	}
	return end
}

// exitError is runChild's error for an end line.
func (c *child) exitError(end Sample) error {
	switch end.Reason {
	case results.StopRSSCap:
		return fmt.Errorf("%w: %s > %s", ErrRSSCap, results.MiB(end.PeakRSS), results.MiB(uint64(c.spec.RSSCap)))
	case results.StopError:
		return fmt.Errorf("%w: %s", ErrChild, end.Err)
	}
	return nil
}
