package child

import (
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/workload"
)

// Worker is called first by worker w's goroutine: it tells the trace
// that the goroutine is worker w, so that its mark assists are charged to
// it.
func (mr *MixRun) Worker(w int) { Worker(w) }

// Op is worker w's operation i: it picks the operation's type and runs
// it, returning the key+value bytes it moved. A timed one (one in
// LatencyEvery, which the caller decides) is timed from its intended
// start due (its actual start when not late, or in a closed loop: due
// zero) into its type's recorder, and into the writer's Put recorder rec
// (lat_*, ilat_*). A timed read (a Get, or a scan: mix e's reads) is kept
// for attribution, its times from t0, the load's start.
func (mr *MixRun) Op(w int, i int64, timed bool, due, t0 time.Time, rec *latency.Pair) (int64, error) {
	mw := mr.workers[w]
	op := mr.m.Pick(mw.r.Float64())
	if !timed {
		return mr.do(mw, op)
	}
	start := time.Now()
	n, err := mr.do(mw, op)
	done := time.Now()
	svc := int64(done.Sub(start))
	intended, from := int64(-1), start
	if !due.IsZero() {
		intended = int64(done.Sub(due))
		if due.Before(start) {
			from = due
		}
	}
	rec.Record(svc, intended)
	mw.pairs[op].Record(svc, max(svc, intended))
	if op != proto.Read && op != proto.Scan {
		mr.tr.Keep(w, from, done) // inserts, updates, read-modify-writes: the mix's writes
	} else { // the reads of mix e are its scans
		if len(mw.reads) < cap(mw.reads) {
			mw.reads = append(mw.reads, Op{Start: int64(from.Sub(t0)), End: int64(done.Sub(t0)), Worker: mw.idx})
		} else {
			mw.drop++
		}
	}
	return n, err
}

// pick sets mw.key to a record chosen by the key distribution.
func (mr *MixRun) pick(mw *worker) {
	workload.KeyAt(mw.key, mr.seed, mr.chooser.Next(mw.r, uint64(mr.acked.load())))
}

// do runs one operation and returns the key+value bytes it moved (a
// record's size per record read, written or scanned).
func (mr *MixRun) do(mw *worker, op proto.Op) (int64, error) {
	mw.count[op].Add(1)
	switch op {
	case proto.Insert:
		i := mr.inserted.Add(1) - 1
		workload.KeyAt(mw.key, mr.seed, uint64(i))
		err := mr.put(mw.key, mw.value)
		mr.acked.ack(i)
		return mr.kv, err
	case proto.Update:
		mr.pick(mw)
		return mr.kv, mr.put(mw.key, mw.value)
	case proto.Scan:
		mr.pick(mw)
		mw.seen = 0
		err := mr.scan.Scan(mw.key, 1+mw.r.IntN(proto.MaxScanLen), mw.scanFn)
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
	if op == proto.RMW {
		if len(v) > 0 && len(mw.value) > 0 {
			mw.value[0] = v[0] + 1 // modify: the value read, changed
		}
		return 2 * mr.kv, mr.put(mw.key, mw.value)
	}
	return mr.kv, nil
}
