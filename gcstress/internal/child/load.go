package child

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
)

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

// Sentinel errors of the child, gcstress's ErrRSSCap and ErrChild.
var (
	// ErrRSSCap: a child passed its hard resident-memory cap.
	ErrRSSCap = errors.New("resident memory above the hard cap")
	// ErrChild: the child-side of a scenario failed (bad spec, engine error).
	ErrChild = errors.New("scenario child failed")
)

// EngineStats is what an engine reports of its flushes and backpressure
// (gcstress.EngineStats, whose comment is the contract).
type EngineStats struct {
	Flushes        int64 // memtables flushed
	FlushedBytes   int64 // bytes those flushes wrote
	PendingFlushes int64 // full memtables waiting for a flusher
	MemtableBytes  int64 // bytes held in memtables (flushed or not yet)
	BlockedNanos   int64 // time writers spent blocked by backpressure, summed over writers
	// Entries is the entries the engine holds now (optional: 0 means
	// unknown, and the keys written stand in): what the end record's
	// objects and bytes per entry divide by.
	Entries int64
	// OffHeapBytes is what the engine holds outside the Go heap now
	// (optional: mmap'd chunks, cgo allocations, a page cache it counts
	// on), which GOMEMLIMIT cannot see: the frontier's recommendation adds
	// it to the peak RSS when it checks a setting against the container.
	OffHeapBytes int64
}

// Driven is the engine as the child drives it (what gcstress's newEngine
// returns): Put from the writers, Stats from the sampling loop, and Close,
// which may be called twice (once early to release blocked writers, once at
// the end) and runs once.
type Driven interface {
	Put(key, value []byte) error
	Stats() EngineStats
	Close() error
}

// Run is the child side of a scenario once its engine is built: for a
// mix the preload (mixload_doc.go), then the load, sampled and streamed
// on out. engine is the engine as its kind built it (probed for Get and
// Scan). It returns nil when the load ended normally (keys written,
// duration reached, or interrupted) and an error wrapping ErrRSSCap or
// ErrChild otherwise, or proto.ErrStream when the stream could not
// be written (the load then stops at once); in every case the last line
// it writes is the end line.
func Run(ctx context.Context, spec results.Scenario, eng Driven, engine any, out *proto.Stream) error {
	var mr *MixRun
	if spec.Mixed() { // the preload phase comes before the measured one
		var err error
		mr, err = NewMixRun(ctx, spec, Deps{Put: eng.Put, Engine: engine, Heap: heapAfterGC, Batch: putBatch})
		if err != nil {
			out.Emit(&results.Sample{Type: results.SampleEnd, Reason: results.StopError, Err: err.Error()})
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

// warningsKey is the context key of the writer for the child's warnings
// (its stderr, which the parent keeps the tail of).
type warningsKey struct{}

// WithWarnings returns ctx carrying w for the child's warnings.
func WithWarnings(ctx context.Context, w io.Writer) context.Context {
	if w == nil {
		return ctx
	}
	return context.WithValue(ctx, warningsKey{}, w)
}

// warnings is the writer ctx carries for the child's warnings, or
// io.Discard.
func warnings(ctx context.Context) io.Writer {
	if w, ok := ctx.Value(warningsKey{}).(io.Writer); ok {
		return w
	}
	return io.Discard
}
