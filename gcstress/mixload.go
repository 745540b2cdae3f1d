package gcstress

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/gcstress/internal/gctrace"
	"github.com/writegc/writegc/gcstress/internal/mix"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
)

// maxReadRecords bounds the timed reads a child keeps for attribution
// (24 B each, pointer-free, allocated before the measured phase: 6 MiB,
// the same for every kind). Reads past it are still timed (ops.read) and
// counted as read_attribution.dropped.
const maxReadRecords = 1 << 18

// opLatMax is the per-operation histograms' range, as the Puts': 1 ns to
// 100 s.
const opLatMax = 100 * int64(time.Second)

// mixRun is a mixed workload in the child (Scenario.Mixed): the engine's
// read side, the key chooser, the workers' per-operation recorders, the
// trace that attributes reads and the preload phase's figures. Built by
// newMixRun before the load; the workers use their own mixWorker; the
// sampling goroutine calls window and end.
type mixRun struct {
	m        mix.Mix
	eng      drivenEngine
	get      Getter
	scan     Scanner
	chooser  *workload.Chooser
	seed     uint64
	kv       int64        // key+value bytes of one record
	inserted atomic.Int64 // records claimed: the preload plus inserts begun
	acked    ackCounter   // records written: what reads may pick
	workers  []*mixWorker
	trace    bool
	rec      *gctrace.Recorder // nil: attribution off
	noTrace  string            // why rec is nil
	preload  results.Preload
	base     results.HeapReading // the heap with the engine built and empty, before the preload
	// Histograms of the sampling goroutine: a window's, the run's.
	wh, wih, rh, rih [mix.NumOps]*hdrhistogram.Histogram
	lastCount        [mix.NumOps]int64
	lastMiss         [mix.NumOps]int64
}

// mixWorker is one worker's state: its random source, buffers,
// per-operation recorders and counters, and the timed reads it kept.
type mixWorker struct {
	idx    int
	r      *rand.Rand
	key    []byte
	value  []byte
	pairs  [mix.NumOps]*latency.Pair
	count  [mix.NumOps]atomic.Int64
	miss   [mix.NumOps]atomic.Int64
	reads  []gctrace.Op // written by the worker only; read once it returned
	drop   int64
	seen   int
	scanFn func(key, value []byte) bool
}

// newMixRun checks that the engine serves spec's mix, prepares the key
// chooser and preloads spec.Preload records (closed loop, spec.Writers
// goroutines), before any window or profile of the measured phase.
func newMixRun(ctx context.Context, spec Scenario, eng drivenEngine) (*mixRun, error) {
	m, err := mix.Parse(spec.Mix)
	if err != nil {
		return nil, err
	}
	g, s := engineReads(eng)
	if err := mixSupport(spec.Kind, eng.(*childEngine).Engine, m); err != nil {
		return nil, err
	}
	if spec.Preload < 1 {
		return nil, fmt.Errorf("-mix %s needs preloaded records (-preload)", m.Name)
	}
	dist := workload.KeyDist(spec.KeyDist)
	if dist == "" { // a scenario built by hand: as applyMix would
		dist = workload.DistZipfian
		if m.Name == mix.D {
			dist = workload.DistLatest
		}
	}
	theta := spec.ZipfTheta
	if theta == 0 {
		theta = workload.DefaultZipfTheta
	}
	ch, err := workload.NewChooser(dist, uint64(spec.Preload), theta)
	if err != nil {
		return nil, err
	}
	mr := &mixRun{m: m, eng: eng, get: g, scan: s, chooser: ch, seed: spec.Seed,
		kv: int64(workload.KeySize) + spec.Value, trace: spec.ReadTrace}
	for op := range mix.NumOps {
		mr.wh[op], mr.wih[op] = latency.NewHistogramUpTo(opLatMax), latency.NewHistogramUpTo(opLatMax)
		mr.rh[op], mr.rih[op] = latency.NewHistogramUpTo(opLatMax), latency.NewHistogramUpTo(opLatMax)
	}
	for i := range spec.Writers {
		mr.workers = append(mr.workers, newMixWorker(i, spec, maxReadRecords/spec.Writers))
	}
	mr.base = heapAfterGC()
	if err := mr.load(ctx, spec); err != nil {
		return nil, err
	}
	return mr, nil
}

func newMixWorker(i int, spec Scenario, keep int) *mixWorker {
	w := &mixWorker{idx: i, r: rand.New(rand.NewPCG(spec.Seed, uint64(i)+1)),
		key: make([]byte, workload.KeySize), value: workload.Value(int(spec.Value)),
		reads: make([]gctrace.Op, 0, keep)}
	for op := range mix.NumOps {
		w.pairs[op] = latency.NewPair(opLatMax)
	}
	w.scanFn = func([]byte, []byte) bool { w.seen++; return true }
	return w
}

// load is the preload phase: records 0..Preload-1, written by
// spec.Writers goroutines closed loop; its time, rate and GC cycles go to
// the end record's preload, apart from every figure of the measured phase.
func (mr *mixRun) load(ctx context.Context, spec Scenario) error {
	cycles := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	c0, t0 := cycles(), time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, spec.Writers)
	for i := range spec.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, value := make([]byte, workload.KeySize), workload.Value(int(spec.Value))
			for ctx.Err() == nil {
				base := next.Add(putBatch) - putBatch
				for j := base; j < min(base+putBatch, spec.Preload); j++ {
					workload.KeyAt(key, spec.Seed, uint64(j))
					if err := mr.eng.Put(key, value); err != nil {
						errs[i] = fmt.Errorf("preload: %w", err)
						return
					}
				}
				if base+putBatch >= spec.Preload {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("preload: %w", err)
	}
	secs := time.Since(t0).Seconds()
	mr.inserted.Store(spec.Preload)
	mr.acked.start(spec.Preload)
	mr.preload = results.Preload{Records: spec.Preload, Seconds: secs,
		MBps: results.MBps(spec.Preload*mr.kv, secs), Cycles: cycles() - c0}
	return nil
}

// claimSingly makes an open-loop mix's workers claim one operation at a
// time: a worker stuck in a slow read then holds no later slot of the
// schedule, which a free worker takes when it is due (the Put loop's
// batches of pacedBatch would queue them behind it, and charge the
// queueing to reads that started after the cause had passed).
func (mr *mixRun) claimSingly(c *child) {
	if mr != nil && c.interval > 0 {
		c.batch = 1
	}
}

// startTrace starts the trace of the measured phase, if asked, into a
// file it removes once parsed; t0 is the load's start. A trace that cannot start (another one runs: -profile
// trace) leaves attribution off, and the end record says why.
func (mr *mixRun) startTrace(t0 time.Time) {
	if mr == nil {
		return
	}
	if !mr.trace {
		mr.noTrace = "-read-trace off"
		return
	}
	rec, err := gctrace.Start("", t0) // the system's temporary folder: never a stray file in the results folder
	if err != nil {
		mr.noTrace = "trace did not start: " + err.Error()
		return
	}
	mr.rec = rec
}

// stopTrace stops the trace once the load ended.
func (mr *mixRun) stopTrace() {
	if mr == nil || mr.rec == nil {
		return
	}
	if err := mr.rec.Stop(); err != nil {
		mr.rec.Remove()
		mr.rec, mr.noTrace = nil, "trace: "+err.Error()
	}
}

// mixWrite is worker w of a mixed workload: it claims batches of operation
// indexes on the shared schedule, as write claims keys, and runs each.
func (c *child) mixWrite(w int, rec *latency.Pair) {
	mw := c.mix.workers[w]
	gctrace.Worker(w)
	for c.load.Err() == nil {
		base, end, ok := c.claim()
		if !ok {
			return
		}
		var nb int64
		for i := base; i < end; i++ {
			var due time.Time
			if c.interval > 0 {
				if due = c.pace(i); due.IsZero() {
					return // the load ended while waiting
				}
			}
			n, err := c.mixOp(mw, i, due, rec)
			if err != nil {
				if c.load.Err() == nil {
					c.cause.Fail(err)
					c.cancel()
				}
				return
			}
			nb += n
		}
		c.keys.Add(end - base)
		c.bytes.Add(nb)
	}
}

// claim takes the next batch of indexes [base, end), or says the load has
// every one (Scenario.MinRun as write applies it).
func (c *child) claim() (base, end int64, ok bool) {
	base = c.next.Add(c.batch) - c.batch
	limit := c.spec.Keys
	if base >= limit && c.spec.MinRun > 0 && time.Since(c.t0) < c.spec.MinRun {
		limit = results.UnboundedKeys
	}
	if base >= limit {
		c.cause.Set(results.StopKeys)
		return 0, 0, false
	}
	return base, min(base+c.batch, limit), true
}

// mixOp runs operation i; one in LatencyEvery is timed from its intended
// start (its actual start when not late, or in a closed loop) into its
// type's recorder, and into the writer's Put recorder (lat_*, ilat_*). A
// timed read (a Get, or a scan: mix e's reads) is kept for attribution.
func (c *child) mixOp(mw *mixWorker, i int64, due time.Time, rec *latency.Pair) (int64, error) {
	op := c.mix.m.Pick(mw.r.Float64())
	if c.every <= 0 || i%c.every != 0 {
		return c.mix.do(mw, op)
	}
	t0 := time.Now()
	n, err := c.mix.do(mw, op)
	done := time.Now()
	svc := int64(done.Sub(t0))
	intended, start := int64(-1), t0
	if !due.IsZero() {
		intended = int64(done.Sub(due))
		if due.Before(t0) {
			start = due
		}
	}
	rec.Record(svc, intended)
	mw.pairs[op].Record(svc, max(svc, intended))
	if op == mix.Read || op == mix.Scan { // the reads of mix e are its scans
		if len(mw.reads) < cap(mw.reads) {
			mw.reads = append(mw.reads, gctrace.Op{Start: int64(start.Sub(c.t0)), End: int64(done.Sub(c.t0)), Worker: mw.idx})
		} else {
			mw.drop++
		}
	}
	return n, err
}

// pick sets mw.key to a record chosen by the key distribution.
func (mr *mixRun) pick(mw *mixWorker) {
	workload.KeyAt(mw.key, mr.seed, mr.chooser.Next(mw.r, uint64(mr.acked.load())))
}

// do runs one operation and returns the key+value bytes it moved (a
// record's size per record read, written or scanned).
func (mr *mixRun) do(mw *mixWorker, op mix.Op) (int64, error) {
	mw.count[op].Add(1)
	switch op {
	case mix.Insert:
		i := mr.inserted.Add(1) - 1
		workload.KeyAt(mw.key, mr.seed, uint64(i))
		err := mr.eng.Put(mw.key, mw.value)
		mr.acked.ack(i)
		return mr.kv, err
	case mix.Update:
		mr.pick(mw)
		return mr.kv, mr.eng.Put(mw.key, mw.value)
	case mix.Scan:
		mr.pick(mw)
		mw.seen = 0
		err := mr.scan.Scan(mw.key, 1+mw.r.IntN(mix.MaxScanLen), mw.scanFn)
		if mw.seen == 0 {
			mw.miss[op].Add(1)
		}
		return int64(mw.seen) * mr.kv, err
	}
	mr.pick(mw)
	v, ok, err := mr.get.Get(mw.key)
	if err != nil {
		return 0, err
	}
	if !ok {
		mw.miss[op].Add(1)
	}
	if op == mix.RMW {
		if len(v) > 0 && len(mw.value) > 0 {
			mw.value[0] = v[0] + 1 // modify: the value read, changed
		}
		return 2 * mr.kv, mr.eng.Put(mw.key, mw.value)
	}
	return mr.kv, nil
}

// heapBase is the footprint's base: for a mix the heap before its preload
// (the preloaded records are what the engine holds, as a write-only run's
// keys are), else now, the reading given.
func (mr *mixRun) heapBase(now results.HeapReading) results.HeapReading {
	if mr == nil {
		return now
	}
	return mr.base
}

// records is the records a mixed workload's engine was given (preload and
// inserts), what its footprint divides by when the engine reports no
// Entries; keys (the operations) for the write-only loop.
func (mr *mixRun) records(keys int64) int64 {
	if mr == nil {
		return keys
	}
	return mr.inserted.Load()
}

// window drains the workers' recorders into the window's per-operation
// figures (and the run's histograms).
func (mr *mixRun) window(w *results.Sample) {
	if mr == nil {
		return
	}
	w.Ops = mr.drain(true)
}

// drain moves the workers' counts into the window histograms and the
// run's, and returns the window's ops (window) or the run's.
func (mr *mixRun) drain(window bool) map[string]results.OpLatency {
	out := map[string]results.OpLatency{}
	for _, op := range mix.Ops() {
		mr.wh[op].Reset()
		mr.wih[op].Reset()
		var count, miss int64
		for _, mw := range mr.workers {
			mw.pairs[op].DrainInto(mr.wh[op], mr.wih[op])
			count += mw.count[op].Load()
			miss += mw.miss[op].Load()
		}
		mr.rh[op].Merge(mr.wh[op])
		mr.rih[op].Merge(mr.wih[op])
		h, ih, c, m := mr.rh[op], mr.rih[op], count, miss
		if window {
			h, ih, c, m = mr.wh[op], mr.wih[op], count-mr.lastCount[op], miss-mr.lastMiss[op]
			mr.lastCount[op], mr.lastMiss[op] = count, miss
		}
		if c == 0 && ih.TotalCount() == 0 {
			continue
		}
		out[op.String()] = opLatency(h, ih, c, m)
	}
	return out
}

func opLatency(h, ih *hdrhistogram.Histogram, count, miss int64) results.OpLatency {
	o := results.OpLatency{N: ih.TotalCount(), Count: count, Misses: miss}
	if o.N > 0 {
		o.ILatP50, o.ILatP99, o.ILatP999, o.ILatMax = ih.ValueAtQuantile(50), ih.ValueAtQuantile(99), ih.ValueAtQuantile(99.9), ih.Max()
		o.LatP99 = h.ValueAtQuantile(99)
	}
	return o
}

// end fills the end record: the run's per-operation figures, the preload
// phase, and the reads' attribution to the collector (parsing the trace,
// after the run's figures were taken).
func (mr *mixRun) end(e *results.Sample) {
	if mr == nil {
		return
	}
	e.Ops = mr.drain(false)
	p := mr.preload
	e.Preload = &p
	mr.attribute(e)
}

// attribute ties the kept reads to the trace's phases.
func (mr *mixRun) attribute(e *results.Sample) {
	ra := &results.ReadAttribution{Source: results.AttributionOff, Note: mr.noTrace}
	e.ReadAttribution = ra
	var ops []gctrace.Op
	for _, mw := range mr.workers {
		ops = append(ops, mw.reads...)
		ra.Dropped += mw.drop
	}
	ra.Reads = int64(len(ops))
	if mr.rec == nil {
		return
	}
	t0 := time.Now()
	ph, events, err := mr.rec.Parse()
	ra.ParseSeconds, ra.TraceBytes, ra.TraceEvents = time.Since(t0).Seconds(), mr.rec.Bytes(), events
	if err != nil {
		ra.Note = err.Error()
		return
	}
	a := gctrace.Attribute(ph, ops, func() *hdrhistogram.Histogram { return latency.NewHistogramUpTo(opLatMax) })
	ra.Source, ra.SlowNs, ra.Cycles = results.AttributionTrace, a.SlowNs, len(ph.Mark)
	ra.SlowInMarkPct, ra.SlowInPausePct = gctrace.Pct(a.SlowInMark, a.Slow), gctrace.Pct(a.SlowInPause, a.Slow)
	ra.SlowInAssistPct, ra.AllInMarkPct = gctrace.Pct(a.SlowInAssist, a.Slow), gctrace.Pct(a.AllInMark, a.Reads)
	if el := int64(e.T * 1e9); el > 0 {
		ra.MarkPct = gctrace.Pct(ph.MarkNanos(0, el), el)
	}
	e.ReadInMark, e.ReadOutsideMark = readLatency(a.InMark), readLatency(a.Outside)
	pct := gctrace.Pct(a.SlowInGC, a.Slow)
	e.SlowReadsInGCPct = &pct
}

func readLatency(h *hdrhistogram.Histogram) *results.ReadLatency {
	r := &results.ReadLatency{N: h.TotalCount()}
	if r.N > 0 {
		r.ILatP50, r.ILatP99, r.ILatP999 = h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9)
	}
	return r
}
