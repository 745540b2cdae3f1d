package gcstress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/internal/escape"
)

// With -flight (no profiles) only the flight recorder runs; a dump is
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
// trace or the flight recorder runs, one Put in regionEvery is marked as an
// explain.DefaultRegion ("writegc.put") region, so explain can tie slow
// Puts to GC phases. The parent then reads the scenario's folder with
// explain.Explain and puts the account in the report.

// accountFor explains the profiles in dir; ("", "") when there are none.
// Explanation errors are reported on stderr and leave the account empty:
// a missing account never fails the run.
func accountFor(dir string, stderr io.Writer) (md, headline string) {
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

// childWarningsKey is the context key of the writer RunChild gives for the
// child's warnings (its stderr, which the parent keeps the tail of).
type childWarningsKey struct{}

// withChildWarnings returns ctx carrying w for the child's warnings.
func withChildWarnings(ctx context.Context, w io.Writer) context.Context {
	if w == nil {
		return ctx
	}
	return context.WithValue(ctx, childWarningsKey{}, w)
}

// childWarnings is the writer ctx carries for the child's warnings, or
// io.Discard.
func childWarnings(ctx context.Context) io.Writer {
	if w, ok := ctx.Value(childWarningsKey{}).(io.Writer); ok {
		return w
	}
	return io.Discard
}

// startRecorders creates the scenario's folder and starts the flight
// recorder when the scenario asks for one (-flight or any -profile kind),
// and prepares its profiles. Either may be nil; failures are reported to
// childWarnings(ctx) and leave the recorder off.
func startRecorders(ctx context.Context, spec Scenario) (*explain.FlightRecorder, *childProfiles) {
	kinds, _ := explain.ParseProfiles(spec.Profile)
	if (kinds == 0 && !spec.Flight) || spec.Dir == "" {
		return nil, nil
	}
	warn := childWarnings(ctx)
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		fmt.Fprintf(warn, "gcstress child: %v\n", err)
		return nil, nil
	}
	fr, err := explain.StartFlightRecorder(10 * time.Second)
	if err != nil {
		fmt.Fprintf(warn, "gcstress child: flight recorder: %v\n", err)
	}
	var p *childProfiles
	if kinds != 0 {
		p = &childProfiles{c: &explain.Capture{Profiles: kinds}, dir: spec.Dir, warn: warn}
	}
	return fr, p
}

// childProfiles drives a child's explain.Capture from the child's sampling
// loop (one goroutine): Start once past the warm-up, heap snapshots at new
// peaks, Stop once. After stop it never starts. A nil *childProfiles does
// nothing.
type childProfiles struct {
	c                *explain.Capture
	dir              string
	warn             io.Writer // for a capture that fails
	started, stopped bool
	peakHeap         uint64
	lastSnap         time.Time
}

// window is called with each window the child emits.
func (p *childProfiles) window(w Sample, spec Scenario) {
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

// stop ends the capture and writes its files; later calls do nothing.
func (p *childProfiles) stop() {
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
