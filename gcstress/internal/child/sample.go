package child

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/writegc/writegc/explain"

	"github.com/writegc/writegc/gcstress/results"
)

// sample streams one window per tick until every writer returned, and
// returns the windows it streamed.
func (c *child) sample(s *Sampler) []results.Sample {
	var ticks <-chan time.Time
	if c.spec.Window > 0 {
		t := time.NewTicker(c.spec.Window)
		defer t.Stop()
		ticks = t.C
	}
	var windows []results.Sample
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
			c.enough(windows)
			c.prof.Window(w, c.spec)
			c.dumpFlight(windows)
		}
	}
}

// enough ends the load once a run with a cycle target has run long
// enough (results.RunDone); its cap (Duration) ends it otherwise.
func (c *child) enough(windows []results.Sample) {
	if results.RunDone(c.spec, windows) {
		c.cause.Set(results.StopDuration)
		c.cancel()
	}
}

// window closes the sampler's current window, with the engine's figures.
func (c *child) window(s *Sampler) results.Sample {
	w := s.Window(c.keys.Load(), c.bytes.Load())
	fillEngine(&w, c.eng.Stats())
	c.mix.Window(&w)
	return w
}

func fillEngine(w *results.Sample, st EngineStats) {
	w.Flushes, w.FlushedBytes, w.PendingFlushes = st.Flushes, st.FlushedBytes, st.PendingFlushes
	w.MemtableBytes, w.BlockedNanos = st.MemtableBytes, st.BlockedNanos
	w.OffHeapBytes = st.OffHeapBytes
}

// dumpFlight writes the flight recorder's window once, on the first window
// past the warm-up classified degraded or failed, and streams a flight line.
func (c *child) dumpFlight(windows []results.Sample) {
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
		c.out.Emit(&results.Sample{Type: results.SampleFlight, T: w.T, Flight: p, Class: cls})
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
func (c *child) tailWindow(s *Sampler, streamed int) {
	last := c.window(s)
	if c.spec.Window > 0 && (last.Dur >= c.spec.Window.Seconds()/2 || streamed == 0) {
		c.out.Emit(&last)
	}
}

// endLine closes the engine and builds the end line, with the engine's
// figures of st (the snapshot the footprint was read with, before Close).
func (c *child) endLine(s *Sampler, elapsed time.Duration, st EngineStats) results.Sample {
	closeErr := c.eng.Close() // waits for an early close, if any
	if c.earlyClose.Load() {
		closeErr = nil // writers were released on purpose
	}
	end := s.End(c.keys.Load(), c.bytes.Load(), elapsed)
	fillEngine(&end, st)
	c.mix.End(&end)
	if c.mix == nil { // a mix parses the trace in End, for its reads too
		c.tr.End(&end, nil)
	}
	if c.pre != nil {
		end.Preload = c.pre
	}
	end.Settle = c.settled
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
func (c *child) exitError(end results.Sample) error {
	switch end.Reason {
	case results.StopRSSCap:
		return fmt.Errorf("%w: %s > %s", ErrRSSCap, results.MiB(end.PeakRSS), results.MiB(uint64(c.spec.RSSCap)))
	case results.StopError:
		return fmt.Errorf("%w: %s", ErrChild, end.Err)
	}
	return nil
}
