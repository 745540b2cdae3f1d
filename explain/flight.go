package explain

import (
	"errors"
	"fmt"
	"io"
	"runtime/trace"
	"sync"
	"time"

	"github.com/writegc/writegc/internal/atomicfile"
)

// FlightFile is the conventional name of a flight-recorder dump in a
// scenario's results directory.
const FlightFile = "flight.out"

// ErrFlightStopped: Dump was called after Stop.
var ErrFlightStopped = errors.New("flight recorder stopped")

// FlightRecorder keeps the last seconds of the runtime trace in memory
// (runtime/trace.FlightRecorder) so that the moments before a degraded or
// failed window can be written out once it is seen.
//
// Limits: at most one flight recorder may run in a process (a runtime
// restriction). In Go 1.25+ it may run alongside trace.Start, so a
// Capture's trace window and a flight recorder coexist (this package's
// tests check it). The window is held in Go-heap byte slices: pointer-free,
// so not scanned, but counted toward the heap goal (up to the runtime's
// default of about 10 MiB, bounded by window).
//
// Methods are safe for concurrent use. Dump writes at most once per
// FlightRecorder: the first call writes, later calls do nothing and return
// nil (see Dumped); use one FlightRecorder per scenario.
type FlightRecorder struct {
	mu      sync.Mutex
	fr      *trace.FlightRecorder
	dumped  bool
	stopped bool
}

// StartFlightRecorder starts recording, keeping at least the last window of
// trace (0 means 10 s).
func StartFlightRecorder(window time.Duration) (*FlightRecorder, error) {
	if window <= 0 {
		window = 10 * time.Second
	}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: window})
	if err := fr.Start(); err != nil {
		return nil, fmt.Errorf("explain: start flight recorder: %w", err)
	}
	return &FlightRecorder{fr: fr}, nil
}

// Dump writes the recorded window to path, the first time it succeeds;
// later calls return nil without writing. The file appears complete or not
// at all (written to a temporary name, then renamed).
func (f *FlightRecorder) Dump(path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return fmt.Errorf("explain: dump %s: %w", path, ErrFlightStopped)
	}
	if f.dumped {
		return nil
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := f.fr.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("explain: dump flight recorder to %s: %w", path, err)
	}
	f.dumped = true
	return nil
}

// Dumped reports whether Dump has written its file.
func (f *FlightRecorder) Dumped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dumped
}

// Stop ends recording. It is idempotent.
func (f *FlightRecorder) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.stopped = true
		f.fr.Stop()
	}
}
