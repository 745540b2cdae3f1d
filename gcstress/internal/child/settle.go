package child

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// mCycles is the runtime/metrics name of the GC cycles completed.
const mCycles = "/gc/cycles/total:gc-cycles"

// readUint64 reads one uint64 runtime metric (0 when it has none).
func readUint64(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// settle is the write-only loop's settle phase (Scenario.Settle > 0): the
// writers Put closed loop, keys 0, 1, ..., until the memory is steady
// (results.SettleSteady over watchSettle's readings), its time or bytes
// cap passed, the RSS passed the run's cap, or the parent stopped the
// child; the load then writes on from the next key. A failed Put ends the
// child as it would in the load, with its end line written.
func (c *child) settle() error {
	if c.mix != nil || c.spec.Settle <= 0 {
		return nil
	}
	ctx, stop := context.WithCancel(c.parent)
	defer stop()
	maxKeys := int64(math.MaxInt64 / 2)
	if c.spec.RSSCap > 0 {
		maxKeys = results.SettleMaxFills * c.spec.RSSCap / c.kvBytes
	}
	var next atomic.Int64
	errs := make([]error, c.spec.Writers)
	var wg sync.WaitGroup
	t0, c0 := time.Now(), readUint64(mCycles)
	for i := range c.spec.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.settleWrite(ctx, &next, maxKeys)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	st := c.watchSettle(ctx, done)
	stop()
	<-done
	for _, err := range errs {
		if err != nil {
			c.prof.Stop()
			c.out.Emit(&results.Sample{Type: results.SampleEnd, Reason: results.StopError, Err: "settle: " + err.Error()})
			_ = c.eng.Close()
			return fmt.Errorf("%w: settle: %v", ErrChild, err)
		}
	}
	// Every batch a writer claimed below maxKeys was written whole.
	c.first = min(next.Load(), maxKeys)
	c.next.Store(c.first)
	st.Seconds, st.Records, st.Cycles = time.Since(t0).Seconds(), c.first, readUint64(mCycles)-c0
	st.MBps = results.MBps(c.first*c.kvBytes, st.Seconds)
	c.settled = &st
	return nil
}

// settleWrite is one settle writer: it claims batches of keys until ctx
// ends or the keys reach maxKeys, and writes each batch it claimed whole.
func (c *child) settleWrite(ctx context.Context, next *atomic.Int64, maxKeys int64) error {
	key := make([]byte, workload.KeySize)
	value := workload.Value(int(c.spec.Value))
	for ctx.Err() == nil {
		base := next.Add(putBatch) - putBatch
		if base >= maxKeys {
			return nil
		}
		for i := base; i < min(base+putBatch, maxKeys); i++ {
			workload.KeyAt(key, c.spec.Seed, uint64(i))
			if err := c.eng.Put(key, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// watchSettle takes a memory reading every results.SettleTick until the
// readings are steady or something else ends the phase (ctx: the parent;
// done: every writer returned, at the bytes cap or on an error; the time
// cap; the RSS cap), and says how it ended. A reading is the live heap
// after the last GC cycle, a cycle forced when none ended since the last
// reading (the live heap is known only at a cycle's end), plus the
// engine's off-heap bytes.
func (c *child) watchSettle(ctx context.Context, done <-chan struct{}) results.Settle {
	var st results.Settle
	tick := time.NewTicker(results.SettleTick)
	defer tick.Stop()
	limit := time.NewTimer(c.spec.Settle)
	defer limit.Stop()
	var mem []uint64
	last := readUint64(mCycles)
	for {
		select {
		case <-ctx.Done():
			st.Why = "the run was stopped"
		case <-done:
			st.Why = fmt.Sprintf("its bytes cap (%d times the RSS cap written)", results.SettleMaxFills)
		case <-limit.C:
			st.Why = fmt.Sprintf("its time cap (-settle %v)", c.spec.Settle)
		case <-tick.C:
			if readUint64(mCycles) == last {
				runtime.GC()
				st.Forced++
			}
			last = readUint64(mCycles)
			st.Memory = readUint64(mLive) + uint64(max(c.eng.Stats().OffHeapBytes, 0))
			mem = append(mem, st.Memory)
			if st.Steady = results.SettleSteady(mem); st.Steady {
				return st
			}
			if rss := proto.ReadRSS(); c.spec.RSSCap > 0 && rss > uint64(c.spec.RSSCap) {
				st.Why = fmt.Sprintf("the RSS cap (%s > %s)", results.MiB(rss), results.MiB(uint64(c.spec.RSSCap)))
			} else {
				continue
			}
		}
		st.Why = unsettled(mem, st.Why)
		return st
	}
}

// unsettled says why a settle phase that ended at cap did not settle:
// how much its memory grew over its last readings, if it had enough.
func unsettled(mem []uint64, capText string) string {
	n := results.SettleReadings
	if len(mem) < 2*n {
		return fmt.Sprintf("did not settle: %s ended it after %d memory reading(s), before %d", capText, len(mem), 2*n)
	}
	last, before := mem[len(mem)-n], mem[len(mem)-2*n]
	for _, m := range mem[len(mem)-n:] {
		last = max(last, m)
	}
	for _, m := range mem[len(mem)-2*n : len(mem)-n] {
		before = max(before, m)
	}
	return fmt.Sprintf("did not settle: %s ended it while its memory (live heap plus off-heap bytes) still grew %.0f%% (%s to %s) over its last %d readings",
		capText, 100*(float64(last)/float64(max(before, 1))-1), results.MiB(before), results.MiB(last), n)
}
