package child

import (
	"context"
	"errors"
	"fmt"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/explain"

	"github.com/writegc/writegc/gcstress/internal/proto"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
)

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
	spec     results.Scenario
	eng      Driven
	out      *proto.Stream
	every    int64 // time one Put in every (0: none)
	kvBytes  int64 // bytes one Put writes
	recs     []*latency.Pair
	parent   context.Context // cancelled when the child is told to stop
	load     context.Context // the load's context: parent, duration, cancel
	cancel   context.CancelFunc
	loadDone chan struct{}
	fr       *explain.FlightRecorder // nil when off
	prof     *Profiles               // nil when off
	batch    int64                   // keys claimed at once
	t0       time.Time               // the load's start: key i is due at t0 + i*interval
	interval float64                 // open loop: ns between scheduled Puts; 0 closed loop
	heapBase results.HeapReading     // the heap with the engine built and empty (footprint)

	first             int64            // the write-only loop's first key: its preload's records come before it
	pre               *results.Preload // the write-only loop's preload; nil without one
	settled           *results.Settle  // the write-only loop's settle phase; nil without one
	next, keys, bytes atomic.Int64     // next key index to claim; keys and bytes written
	peakRSS           atomic.Uint64
	earlyClose        atomic.Bool // the engine was closed to release blocked writers
	cause             proto.StopCause

	mix     *MixRun // a mixed workload; nil for the write-only Put loop
	tr      *Trace  // the measured phase's runtime trace (MMU, assists)
	regions bool    // mark Put regions for explain: a profile or the flight recorder runs
}

func newChild(ctx context.Context, spec results.Scenario, eng Driven, out *proto.Stream) *child {
	c := &child{spec: spec, eng: eng, out: out, every: int64(spec.LatencyEvery),
		kvBytes: int64(workload.KeySize) + spec.Value, recs: make([]*latency.Pair, spec.Writers),
		parent: ctx, loadDone: make(chan struct{}), batch: putBatch}
	if spec.Rate > 0 {
		c.interval, c.batch = 1e9/spec.Rate, pacedBatch
	}
	c.load, c.cancel = context.WithCancel(ctx) // the duration's timer starts with the load (run)
	for i := range c.recs {
		c.recs[i] = NewRecorder()
	}
	out.SetOnErr(func(err error) {
		c.cause.Fail(err)
		c.cancel()
	})
	return c
}

// run drives the load to its end and writes the end line; see runChild.
func (c *child) run() error {
	c.fr, c.prof = StartProfiles(c.spec, warnings(c.parent))
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
	s := NewSampler(c.spec, time.Now(), c.recs)
	kinds, _ := explain.ParseProfiles(c.spec.Profile)
	c.tr = NewOpTrace(c.spec, kinds&explain.ProfileTrace != 0)
	c.heapBase = c.mix.HeapBase(heapAfterGC())
	if err := c.preload(); err != nil {
		return err
	}
	if err := c.settle(); err != nil {
		return err
	}
	start := time.Now()
	if c.spec.Duration > 0 {
		// Timed from the load's start, not the child's: the footprint's
		// forced GC and the profiles' start come before it, and a timeout
		// from newChild ended a 3 s run at 2.99 s of load.
		stop := time.AfterFunc(c.spec.Duration, c.cancel)
		defer stop.Stop()
	}
	s.Restart(start)
	c.t0 = start
	c.regions = c.fr != nil || c.prof != nil
	c.tr.Begin(start)
	c.mix.UseTrace(c.tr)
	c.startWriters()
	go c.releaseBlocked()
	go c.watchRSS()
	windows := c.sample(s)
	elapsed := time.Since(start)
	c.tr.Stop()
	c.settleReason()
	c.tailWindow(s, len(windows))
	c.prof.Stop()
	s.Freeze()
	// One snapshot of the engine's figures for the whole end record: the
	// footprint divides by its entries (a mix: by its records, not its
	// operations, when the engine reports none), and its flushes, memtable
	// bytes and pending flushes are the same call's, taken before Close.
	st, fp := footprint(c.heapBase, c.eng, c.first+c.mix.Records(c.keys.Load()))
	fp.Impossible = impossibleFootprint(fp, c.spec)
	end := c.endLine(s, elapsed, st)
	end.Footprint = fp
	c.out.Emit(&end)
	if err := c.out.Failed(); err != nil {
		return err
	}
	return c.exitError(end)
}

// preload is the write-only loop's preload phase (Scenario.Preload > 0):
// keys 0..Preload-1 Put closed loop before the load's clock starts, so
// the measured phase writes on from there into a store already that full
// (the frontier's points start settled this way); a mix preloads in
// NewMixRun instead. It stops early, and the load starts from where it
// got, after the scenario's duration (a setting under which the store
// cannot take the records closed loop shows it in the measured phase; a
// preload must not stall the run). A failed Put ends the child as it
// would in the load, with its end line written.
func (c *child) preload() error {
	if c.mix != nil || c.spec.Preload <= 0 || c.spec.Settle > 0 {
		return nil
	}
	ctx := c.parent
	if c.spec.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.spec.Duration)
		defer cancel()
	}
	p, next, err := Preload(ctx, c.spec, c.eng.Put, putBatch)
	if err != nil && (ctx.Err() == nil || c.parent.Err() != nil) {
		c.prof.Stop()
		c.out.Emit(&results.Sample{Type: results.SampleEnd, Reason: results.StopError, Err: err.Error()})
		_ = c.eng.Close()
		return fmt.Errorf("%w: %v", ErrChild, err)
	}
	c.pre, c.first = &p, next
	c.next.Store(c.first)
	return nil
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
				c.write(i, rec)
			}
			returned = true
		}()
	}
	go func() { wg.Wait(); close(c.loadDone) }()
}

// write is writer w: it claims batches of key indexes until every key is
// claimed or the load ends, and counts what it wrote per batch.
func (c *child) write(w int, rec *latency.Pair) {
	Worker(w) // its mark assists are charged to it
	key := make([]byte, workload.KeySize)
	value := workload.Value(int(c.spec.Value))
	for c.load.Err() == nil {
		base := c.next.Add(c.batch) - c.batch
		limit := c.first + c.spec.Keys
		if base >= limit && c.spec.MinRun > 0 && time.Since(c.t0) < c.spec.MinRun {
			limit = results.UnboundedKeys // every key written, but too soon: write on (Scenario.MinRun)
		}
		if base >= limit {
			c.cause.Set(results.StopKeys)
			return
		}
		end := min(base+c.batch, limit)
		if err := c.putRange(w, key, value, base, end, rec); err != nil {
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

// putRange is writer w's Puts of keys [base, end); one in every is timed,
// and with a profile or the flight recorder running one in regionEvery is
// a trace region. In an open-loop run each Put first waits for its slot
// in the schedule (pace).
func (c *child) putRange(w int, key, value []byte, base, end int64, rec *latency.Pair) error {
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
			err = c.putObserved(w, key, value, i, due, rec)
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
	due := c.t0.Add(time.Duration(float64(i-c.first) * c.interval))
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

// putObserved is writer w's Put that may be timed (and kept for the
// trace's assist attribution), traced as a region, or both; due is its
// slot in an open-loop schedule (zero: closed loop).
func (c *child) putObserved(w int, key, value []byte, i int64, due time.Time, rec *latency.Pair) error {
	timed := c.every > 0 && i%c.every == 0
	var t0 time.Time
	if timed {
		t0 = time.Now()
	}
	var err error
	if i%regionEvery == 0 && c.regions && trace.IsEnabled() {
		// WithRegion, not StartRegion: StartRegion allocates its *Region,
		// which an engine's allocation profile would count as its own.
		trace.WithRegion(c.load, explain.DefaultRegion, func() { err = c.eng.Put(key, value) })
	} else {
		err = c.eng.Put(key, value)
	}
	if timed {
		done := time.Now()
		intended, from := int64(-1), t0
		if !due.IsZero() {
			intended = int64(done.Sub(due)) // record keeps it at least the service time
			if due.Before(t0) {
				from = due
			}
		}
		rec.Record(int64(done.Sub(t0)), intended)
		c.tr.Keep(w, from, done)
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
			rss := proto.ReadRSS()
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
