package gcstress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/internal/workload"
)

// ChildEnv is the environment variable that turns the binary into a
// scenario's child: it holds the Scenario as JSON. Main checks it first.
const ChildEnv = "WRITEGC_GCSTRESS_CHILD"

// putBatch is how many keys a writer claims at once; progress counters move
// per batch, so they cost one atomic add per batch, not per Put.
const putBatch = 256

// regionEvery: with a trace running, one Put in regionEvery is marked as an
// explain.DefaultRegion region, so explain can tie slow Puts to GC phases
// without tracing every Put.
const regionEvery = 64

// runChild is the child side of a scenario: load, sample, stream.
// It returns nil when the load ended normally (keys written, duration
// reached, or interrupted) and an error wrapping ErrRSSCap or ErrChild
// otherwise; in every case the last line it writes is the "end" line.
func runChild(ctx context.Context, spec Scenario, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	var encMu sync.Mutex
	emit := func(s *Sample) {
		encMu.Lock()
		defer encMu.Unlock()
		s.Scenario = spec.Name
		_ = enc.Encode(s)
	}
	emit(&Sample{Type: "start", Spec: &spec, Target: spec.Keys, PID: os.Getpid()})

	eng, err := newEngine(spec)
	if err != nil {
		emit(&Sample{Type: "end", Reason: "error", Err: err.Error()})
		return fmt.Errorf("%w: %v", ErrChild, err)
	}

	var (
		written    atomic.Int64 // keys
		bytesW     atomic.Int64
		next       atomic.Int64 // next key index to claim
		reason     atomic.Value // string: why the load stopped
		failErr    atomic.Value // error
		peakRSS    atomic.Uint64
		earlyClose atomic.Bool // the engine was closed to release blocked writers
		kvBytes    = int64(workload.KeySize) + spec.Value
		recs       = make([]*latRecorder, spec.Writers)
		loadDone   = make(chan struct{})
	)
	setReason := func(r string) { reason.CompareAndSwap(nil, r) }
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if spec.Duration > 0 {
		var c2 context.CancelFunc
		loadCtx, c2 = context.WithTimeout(loadCtx, spec.Duration)
		defer c2()
	}

	fr, prof := startRecorders(ctx, spec)
	if fr != nil {
		defer fr.Stop()
	}
	tracing := func() bool { return trace.IsEnabled() }

	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < spec.Writers; w++ {
		recs[w] = newLatRecorder()
		wg.Add(1)
		go func(rec *latRecorder) {
			defer wg.Done()
			key := make([]byte, workload.KeySize)
			value := workload.Value(int(spec.Value))
			every := int64(spec.LatencyEvery)
			for loadCtx.Err() == nil {
				base := next.Add(putBatch) - putBatch
				if base >= spec.Keys {
					setReason("keys")
					return
				}
				end := min(base+putBatch, spec.Keys)
				for i := base; i < end; i++ {
					workload.KeyAt(key, spec.Seed, uint64(i))
					var err error
					switch {
					case every > 0 && i%every == 0:
						t0 := time.Now()
						if i%regionEvery == 0 && tracing() {
							r := trace.StartRegion(loadCtx, explain.DefaultRegion)
							err = eng.Put(key, value)
							r.End()
						} else {
							err = eng.Put(key, value)
						}
						rec.record(int64(time.Since(t0)))
					case i%regionEvery == 0 && tracing():
						r := trace.StartRegion(loadCtx, explain.DefaultRegion)
						err = eng.Put(key, value)
						r.End()
					default:
						err = eng.Put(key, value)
					}
					if err != nil {
						if loadCtx.Err() != nil {
							return // the engine was closed to release a writer blocked at the end
						}
						failErr.CompareAndSwap(nil, err)
						setReason("error")
						cancel()
						return
					}
				}
				written.Add(end - base)
				bytesW.Add((end - base) * kvBytes)
			}
		}(recs[w])
	}
	go func() { wg.Wait(); close(loadDone) }()
	// At the end (keys aside: duration, interrupt, RSS cap), writers blocked
	// by backpressure would wait for a slow flush; after a second, close the
	// engine early, which releases them with an error they ignore.
	go func() {
		select {
		case <-loadDone:
			return
		case <-loadCtx.Done():
		}
		select {
		case <-loadDone:
		case <-time.After(time.Second):
			earlyClose.Store(true)
			_ = eng.Close()
		}
	}()

	// Watchdog: the hard RSS cap, checked every 50 ms.
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-loadDone:
				return
			case <-t.C:
				rss := readRSS()
				if rss > peakRSS.Load() {
					peakRSS.Store(rss)
				}
				if spec.RSSCap > 0 && rss > uint64(spec.RSSCap) {
					setReason("rss-cap")
					cancel()
					return
				}
			}
		}
	}()

	s := newSampler(spec, start)
	s.recs = recs
	var ticks <-chan time.Time
	if spec.Window > 0 {
		t := time.NewTicker(spec.Window)
		defer t.Stop()
		ticks = t.C
	}
	var windows []Sample
	loadEnded := loadCtx.Done()
loop:
	for {
		select {
		case <-loadDone:
			break loop
		case <-loadEnded:
			// Told to stop (SIGTERM, SIGINT), out of time or over the RSS
			// cap: write the profiles now, before the writers drain, so a
			// child killed after its grace period still leaves them whole.
			loadEnded = nil
			prof.stop()
		case <-ticks:
			if time.Since(s.last) < spec.Window/2 {
				continue // a late tick right after the last window: fold it into the next
			}
			w := s.window(written.Load(), bytesW.Load(), eng.Stats())
			if w.RSS > peakRSS.Load() {
				peakRSS.Store(w.RSS)
			}
			emit(&w)
			windows = append(windows, w)
			prof.window(w, spec)
			if fr != nil && !fr.Dumped() && w.T >= spec.Thresholds.Warmup.Seconds() {
				v := Classify(windows, Exit{}, spec.Thresholds)
				if c := v.Windows[len(v.Windows)-1].Class; c == Degraded || c == Failed {
					p := filepath.Join(spec.Dir, explain.FlightFile)
					if err := fr.Dump(p); err == nil {
						emit(&Sample{Type: "flight", T: w.T, Flight: p, Reason: StopReason(c)})
					}
				}
			}
		}
	}
	elapsed := time.Since(start)
	if loadCtx.Err() != nil && ctx.Err() != nil {
		setReason("interrupted")
	} else if loadCtx.Err() != nil {
		setReason("duration")
	}
	setReason("keys")
	// A last window for the tail (also the only one when windows are off).
	last := s.window(written.Load(), bytesW.Load(), eng.Stats())
	if spec.Window > 0 && (last.Dur >= spec.Window.Seconds()/2 || len(windows) == 0) { // a shorter tail would plot as a spike; the end line has the totals
		emit(&last)
	}
	prof.stop()
	closeErr := eng.Close() // waits for an early close, if any
	if earlyClose.Load() {
		closeErr = nil // writers were released on purpose
	}
	end := s.end(written.Load(), bytesW.Load(), elapsed, eng.Stats())
	end.Reason = StopReason(reason.Load().(string))
	end.PeakRSS = max(peakRSS.Load(), end.PeakRSS)
	if e, ok := failErr.Load().(error); ok {
		end.Err = e.Error()
	} else if closeErr != nil {
		end.Err = closeErr.Error()
	}
	emit(&end)
	switch end.Reason {
	case "rss-cap":
		return fmt.Errorf("%w: %s > %s", ErrRSSCap, mib(end.PeakRSS), mib(uint64(spec.RSSCap)))
	case "error":
		return fmt.Errorf("%w: %s", ErrChild, end.Err)
	}
	return nil
}

// childMain decodes the scenario from ChildEnv and runs it.
func childMain(ctx context.Context, specJSON string, stdout io.Writer) error {
	var spec Scenario
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("%w: bad %s: %v", ErrChild, ChildEnv, err)
	}
	if spec.Writers < 1 || spec.Keys < 1 {
		return fmt.Errorf("%w: bad scenario %+v", ErrChild, spec)
	}
	return runChild(ctx, spec, stdout)
}
