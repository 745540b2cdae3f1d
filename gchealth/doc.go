// Package gchealth tells a running Go service whether its garbage
// collector is healthy now. A Monitor samples runtime/metrics once a
// window (default 1 s), through gcmetrics (writegc's one definition of
// what the collector cost), and classifies each window with gcstress's
// rules and thresholds (package gcmetrics/health: ShareClass, OverGoal,
// LimiterEngaged, InSpiral and DefaultThresholds are called, never
// copied), so a service in production and a write path in the lab are
// judged alike. It depends on nothing of gcstress (internal/lint checks
// it); only its test that compares its classes with gcstress's classifier
// on recorded runs imports gcstress/results.
//
// States, from best to worst: healthy, elevated, degraded, failing.
//
//   - GC CPU and assist shares (of the CPU the process used, idle-priority
//     marking left out: gcmetrics) are taken over spans of consecutive
//     windows merged until a span holds a completed GC cycle, because the
//     /cpu/classes counters advance only when a cycle ends; the window that
//     closes a span takes health.ShareClass of the span's shares, and a
//     window in which no cycle ended keeps the last span's class and
//     figures (gcstress gives such windows the class of the span they end
//     up in, known only later; for the windows that close a span the two
//     agree, which TestSameClassesAsGcstress checks on recorded runs).
//     Defaults: elevated from 10% GC CPU or 2% assists, degraded from 25%
//     GC CPU or 5% assists.
//   - A window whose heap objects passed the heap goal is at least
//     degraded (cause heap_over_goal).
//   - The death spiral: a window in which GOMEMLIMIT is set, the live heap
//     is at or above Spiral.HeapPct (95%) of it and either the GC CPU
//     share is at or above Spiral.GCPct (50%) or the runtime's GC CPU
//     limiter engaged (/gc/limiter/last-enabled:gc-cycle, health's
//     LimiterEngaged rule) is a spiral window; Spiral.Windows (3) of them
//     in a row make the state failing, cause memlimit-spiral, until a
//     window is not one. gcstress's own failure rule needs a throughput
//     collapse that a service's collector cannot see, so it is not applied
//     here; the spiral rule stands in for it.
//
// The state is the class of the latest window, held against improvement
// (hysteresis, Options.CalmWindows): a worse window takes effect at once,
// a better one only after CalmWindows windows in a row better than the
// state (a minute of windows by default), so that a process hovering at a
// threshold changes state at most twice a minute and an alert on it does
// not flap. Causes list every condition that holds, the one that set the
// state first (while the state is held, those of its last window).
//
// Invariants:
//   - One sampler goroutine per Monitor, from New to Close; a window's
//     sample and classification allocate nothing in steady state (a state
//     change allocates its Change) and take a few microseconds
//     (BenchmarkWindow).
//   - Nothing here prints, parses flags or exits, except what the service
//     asks for: Exit, passed as Options.OnSpiral, logs one line and exits
//     with a failure code (never 0).
//   - Close returns whatever the service's functions do: it never waits
//     for OnChange or OnSpiral (one may be the caller), only for a window
//     being sampled or captured.
//   - A transition into a state worse than the last capture's is always
//     captured, even within CaptureEvery; a transition not captured says
//     why (Change.CaptureSkipped, Status.CaptureSkipped).
//   - Captures (Options.CaptureDir) are folders that appear whole or not at
//     all (temporary folder, fsync, rename, fsync of the parent), bounded
//     in count and bytes per Monitor, its oldest removed first; a capture
//     that cannot be written is reported in the Change and in State, and
//     the Monitor goes on. Each folder holds flight.out
//     (runtime/trace.FlightRecorder's last seconds), heap.pprof and
//     change.json: `gcstress explain FOLDER` reads it as it reads a
//     scenario's folder. A capture folder that was not written by this
//     Monitor is never modified or removed: each Monitor has a random ID in
//     its folders' names and change.json, removes only folders it wrote
//     and proves so first (same directory, only its three files, its ID),
//     file by file, never recursively.
//   - Handler serves GET and HEAD only, refuses a query over MaxQuery bytes
//     (414) and more than Options.MaxInFlight requests at once (503), and
//     its page loads nothing from anywhere (charts are inline SVG).
//
// Where a service shows it: Monitor.Handler (JSON at ?format=json, an
// HTML page otherwise), a Prometheus collector in the subpackage
// gchealthprom (so that this package does not depend on client_golang),
// and OnChange for anything else. There is no OpenTelemetry bridge: the
// OTel metric SDK would bring a large dependency tree for what a service
// writes in a few lines, an observable gauge whose callback reads
// Monitor.State.
package gchealth
