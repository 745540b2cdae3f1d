// The profiles: what a gcstress child captures for explain, and
// what the parent makes of it. With -flight (no profiles) only the flight recorder runs; a dump is
// explained like any trace.
//
// Profiles (-profile) are captured inside the child by explain.Capture:
// started once the scenario passes its warm-up (the steady-state window),
// heap snapshots at new heap peaks (at most one per two windows), stopped
// as soon as the load ends, whatever ended it: keys written, the duration
// cap, the RSS cap, or a SIGTERM/SIGINT from the parent. Stopping writes the
// CPU profile and trace before the child waits for its writers and engine,
// so a child the parent kills after its grace period keeps what it
// captured. A child killed outright (SIGKILL) may leave empty or truncated
// files; explain leaves those out and says so. With any -profile kind the child also keeps an
// explain.FlightRecorder running and dumps its last seconds to flight.out on
// the scenario's first degraded or failed window (after warm-up); while a
// trace or the flight recorder runs, one Put in 64 (the child's regionEvery) is marked as an
// explain.DefaultRegion ("writegc.put") region, so explain can tie slow
// Puts to GC phases. The parent then reads the scenario's folder with
// explain.Explain and puts the account in the report (Account).
//
// Invariants:
//   - A capture starts at most once, past the warm-up, and stops at most
//     once; after Stop nothing starts.
//   - Failures to capture or explain are warnings on the writer given,
//     never the run's failure.

package child

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
)

// Account explains the profiles in dir; ("", "") when there are none.
// Explanation errors are reported on stderr and leave the account empty:
// a missing account never fails the run.
func Account(dir string, stderr io.Writer) (md, headline string) {
	if _, err := os.Stat(dir); err != nil {
		return "", ""
	}
	a, err := explain.Explain(dir)
	if err != nil {
		fmt.Fprintf(stderr, "gcstress: explain %s: %s\n", escape.Terminal(dir), escape.TerminalText(err.Error()))
		return "", ""
	}
	var b bytes.Buffer
	if err := a.WriteMarkdown(&b); err != nil {
		fmt.Fprintf(stderr, "gcstress: explain %s: %s\n", escape.Terminal(dir), escape.TerminalText(err.Error()))
		return "", ""
	}
	return b.String(), a.Headline()
}

// StartProfiles creates the scenario's folder and starts the flight recorder when
// the scenario asks for one (-flight or any -profile kind), and prepares
// its profiles. Either may be nil; failures are reported to warn and leave
// the recorder off.
func StartProfiles(spec results.Scenario, warn io.Writer) (*explain.FlightRecorder, *Profiles) {
	kinds, _ := explain.ParseProfiles(spec.Profile)
	if (kinds == 0 && !spec.Flight) || spec.Dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		fmt.Fprintf(warn, "gcstress child: %v\n", err)
		return nil, nil
	}
	fr, err := explain.StartFlightRecorder(10 * time.Second)
	if err != nil {
		fmt.Fprintf(warn, "gcstress child: flight recorder: %v\n", err)
	}
	var p *Profiles
	if kinds != 0 {
		p = &Profiles{c: &explain.Capture{Profiles: kinds}, dir: spec.Dir, warn: warn}
	}
	return fr, p
}

// Profiles drives a child's explain.Capture from the child's sampling
// loop (one goroutine): its capture starts once past the warm-up, takes heap
// snapshots at new peaks and stops once; after Stop it never starts. A nil *Profiles does
// nothing.
type Profiles struct {
	c                *explain.Capture
	dir              string
	warn             io.Writer // for a capture that fails
	started, stopped bool
	peakHeap         uint64
	lastSnap         time.Time
}

// Window is called with each window the child emits.
func (p *Profiles) Window(w results.Sample, spec results.Scenario) {
	if p == nil || p.stopped {
		return
	}
	if !p.started && w.T >= spec.Thresholds.Warmup.Seconds() {
		p.started = p.c.Start(p.dir) == nil
	}
	if p.started && w.HeapObjects > p.peakHeap && time.Since(p.lastSnap) > 2*spec.Window {
		p.peakHeap, p.lastSnap = w.HeapObjects, time.Now()
		_ = p.c.SnapshotHeap()
	}
}

// Stop ends the capture and writes its files; later calls do nothing.
func (p *Profiles) Stop() {
	if p == nil || p.stopped {
		return
	}
	p.stopped = true
	if !p.started {
		return
	}
	if err := p.c.Stop(); err != nil {
		fmt.Fprintf(p.warn, "gcstress child: profiles: %v\n", err)
	}
}
