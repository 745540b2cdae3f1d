package child

import (
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/latency"
)

// claimSingly makes an open-loop mix's workers claim one operation at a
// time: a worker stuck in a slow read then holds no later slot of the
// schedule, which a free worker takes when it is due (the Put loop's
// batches of pacedBatch would queue them behind it, and charge the
// queueing to reads that started after the cause had passed).
func (c *child) claimSingly() {
	if c.mix != nil && c.interval > 0 {
		c.batch = 1
	}
}

// mixWrite is worker w of a mixed workload: it claims batches of operation
// indexes on the shared schedule, as write claims keys, and runs each.
func (c *child) mixWrite(w int, rec *latency.Pair) {
	c.mix.Worker(w)
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
			timed := c.every > 0 && i%c.every == 0
			n, err := c.mix.Op(w, i, timed, due, c.t0, rec)
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
