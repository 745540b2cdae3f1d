package child

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
)

// maxReadRecords bounds the timed reads a child keeps for attribution
// (24 B each, pointer-free, allocated before the measured phase: 6 MiB,
// the same for every kind). Reads past it are still timed (ops.read) and
// counted as read_attribution.dropped.
const maxReadRecords = 1 << 18

// Deps is what a MixRun takes from the child.
type Deps struct {
	// Put writes through the scenario's path (the child's engine).
	Put func(key, value []byte) error
	// Engine is the engine as its kind built it, probed for Getter and
	// Scanner (Support).
	Engine any
	// Heap forces a collection and reads the heap: the footprint's base,
	// taken before the preload.
	Heap func() results.HeapReading
	// Batch is how many records a preloading goroutine claims at once.
	Batch int64
}

// MixRun is a mixed workload in the child (Scenario.Mixed): the engine's
// read side, the key chooser, the workers' per-operation recorders, the
// trace that attributes reads and the preload phase's figures. Built by
// NewMixRun before the load; the workers use their own worker; the sampling
// goroutine calls Window and End.
type MixRun struct {
	m        proto.Mix
	put      func(key, value []byte) error
	get      Getter
	scan     Scanner
	chooser  *workload.Chooser
	seed     uint64
	kv       int64        // key+value bytes of one record
	inserted atomic.Int64 // records claimed: the preload plus inserts begun
	acked    ackCounter   // records written: what reads may pick
	workers  []*worker
	tr       *Trace // the measured phase's trace (UseTrace); nil: none
	preload  results.Preload
	base     results.HeapReading // the heap with the engine built and empty, before the preload
	// Histograms of the sampling goroutine: a window's, the run's.
	wh, wih, rh, rih [proto.NumOps]*hdrhistogram.Histogram
	lastCount        [proto.NumOps]int64
	lastMiss         [proto.NumOps]int64
}

// worker is one worker's state: its random source, buffers,
// per-operation recorders and counters, and the timed reads it kept.
type worker struct {
	idx    int
	r      *rand.Rand
	key    []byte
	value  []byte
	pairs  [proto.NumOps]*latency.Pair
	count  [proto.NumOps]atomic.Int64
	miss   [proto.NumOps]atomic.Int64
	reads  []Op // written by the worker only; read once it returned
	drop   int64
	seen   int
	scanFn func(key, value []byte) bool
}

// NewMixRun checks that the engine serves spec's mix, prepares the key
// chooser and preloads spec.Preload records (closed loop, spec.Writers
// goroutines), before any window or profile of the measured phase.
func NewMixRun(ctx context.Context, spec results.Scenario, d Deps) (*MixRun, error) {
	m, err := proto.Parse(spec.Mix)
	if err != nil {
		return nil, err
	}
	g, _ := d.Engine.(Getter)
	s, _ := d.Engine.(Scanner)
	if err := Support(spec.Kind, d.Engine, m); err != nil {
		return nil, err
	}
	if spec.Preload < 1 {
		return nil, fmt.Errorf("-mix %s needs preloaded records (-preload)", m.Name)
	}
	dist := workload.KeyDist(spec.KeyDist)
	if dist == "" { // a scenario built by hand: as gcstress's applyMix would
		dist = workload.DistZipfian
		if m.Name == proto.D {
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
	mr := &MixRun{m: m, put: d.Put, get: g, scan: s, chooser: ch, seed: spec.Seed,
		kv: int64(workload.KeySize) + spec.Value}
	for op := range proto.NumOps {
		mr.wh[op], mr.wih[op] = latency.NewHistogramUpTo(opLatMax), latency.NewHistogramUpTo(opLatMax)
		mr.rh[op], mr.rih[op] = latency.NewHistogramUpTo(opLatMax), latency.NewHistogramUpTo(opLatMax)
	}
	for i := range spec.Writers {
		mr.workers = append(mr.workers, newWorker(i, spec, maxReadRecords/spec.Writers))
	}
	mr.base = d.Heap()
	if err := mr.load(ctx, spec, d.Batch); err != nil {
		return nil, err
	}
	return mr, nil
}

func newWorker(i int, spec results.Scenario, keep int) *worker {
	w := &worker{idx: i, r: rand.New(rand.NewPCG(spec.Seed, uint64(i)+1)),
		key: make([]byte, workload.KeySize), value: workload.Value(int(spec.Value)),
		reads: make([]Op, 0, keep)}
	for op := range proto.NumOps {
		w.pairs[op] = latency.NewPair(opLatMax)
	}
	w.scanFn = func([]byte, []byte) bool { w.seen++; return true }
	return w
}

// load is the preload phase of a mix (Preload), whose records the
// measured phase then reads.
func (mr *MixRun) load(ctx context.Context, spec results.Scenario, batch int64) error {
	p, _, err := Preload(ctx, spec, mr.put, batch)
	if err != nil {
		return err
	}
	mr.inserted.Store(spec.Preload)
	mr.acked.start(spec.Preload)
	mr.preload = p
	return nil
}

// Preload is the preload phase of any scenario (a mix's, or the
// write-only loop's): records 0..spec.Preload-1 Put by spec.Writers
// goroutines closed loop, batch records claimed at once. Its time, rate
// and GC cycles are returned for the end record's preload, apart from
// every figure of the measured phase. The first Put error ends it with
// that error; ctx's end ends it with ctx's error, and the figures and
// next (the first key no writer claimed: every key below it was written
// or was being written) say how far it got. put is called from
// spec.Writers goroutines at once.
func Preload(ctx context.Context, spec results.Scenario, put func(key, value []byte) error, batch int64) (p results.Preload, next int64, err error) {
	cycles := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	c0, t0 := cycles(), time.Now()
	var claim, done atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, spec.Writers)
	for i := range spec.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, value := make([]byte, workload.KeySize), workload.Value(int(spec.Value))
			for ctx.Err() == nil {
				base := claim.Add(batch) - batch
				for j := base; j < min(base+batch, spec.Preload); j++ {
					workload.KeyAt(key, spec.Seed, uint64(j))
					if err := put(key, value); err != nil {
						errs[i] = fmt.Errorf("preload: %w", err)
						return
					}
					done.Add(1)
				}
				if base+batch >= spec.Preload {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return results.Preload{}, 0, err
		}
	}
	secs, n := time.Since(t0).Seconds(), done.Load()
	kv := int64(workload.KeySize) + spec.Value
	p = results.Preload{Records: n, Seconds: secs, MBps: results.MBps(n*kv, secs), Cycles: cycles() - c0}
	if n < spec.Preload {
		return p, min(claim.Load(), spec.Preload), fmt.Errorf("preload: %d of %d records: %w", n, spec.Preload, ctx.Err())
	}
	return p, spec.Preload, nil
}

// UseTrace hands the run the measured phase's trace (the child starts and
// stops it around the load): the mix keeps its timed writes in it, and
// End parses it for the reads' attribution.
func (mr *MixRun) UseTrace(tr *Trace) {
	if mr != nil {
		mr.tr = tr
	}
}

// HeapBase is the footprint's base: for a mix the heap before its preload
// (the preloaded records are what the engine holds, as a write-only run's
// keys are), else now, the reading given.
func (mr *MixRun) HeapBase(now results.HeapReading) results.HeapReading {
	if mr == nil {
		return now
	}
	return mr.base
}

// Records is the records a mixed workload's engine was given (preload and
// inserts), what its footprint divides by when the engine reports no
// Entries; keys (the operations) for the write-only loop.
func (mr *MixRun) Records(keys int64) int64 {
	if mr == nil {
		return keys
	}
	return mr.inserted.Load()
}
