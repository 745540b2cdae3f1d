// Package slowdown is the regression gate's test-only knob: with the
// `gateslow` build tag, Inject burns a calibrated amount of CPU at a hot-path
// site, so the gate's detection rate can be measured against a known,
// deliberately injected slowdown. Without the tag (every normal build) Inject
// is an empty function the compiler inlines away: the hot paths pay nothing.
//
// Sites are fixed; the amount per site comes from the environment variable
// WRITEGC_SLOWDOWN_NS (see slowdown_on.go), read once per process.
//
// The amount is per benchmark, not per site: scripts/calibrate-gate runs each
// gated benchmark in its own process (a benchgate -target of its own, whose
// head environment enables only that benchmark's site), so exactly one
// injection point is active per op. It starts the amount at PCT% of the
// benchmark's own median ns/op and rescales it by a measured calibration pass
// (nominal / measured slowdown), because a site may run more or less than
// once per op and the spin's cost in ns is only estimated at start-up. A
// benchmark sharing a site with a faster or slower one is thus still slowed by
// the stated percentage of its own time.
package slowdown

// Site names a hot path that can be slowed.
type Site uint8

// The hot paths of the gate set.
const (
	ArenaAlloc   Site = iota // arena.(*Arena).Alloc
	MemtablePut              // memtable Put of every kind
	WritepathPut             // writepath server-side Put
	GateSynth                // benchgate/internal/synthbench: the gate's own synthetic benchmark
	NumSites
)

// Names are the site names accepted in WRITEGC_SLOWDOWN_NS.
var Names = [NumSites]string{"arena", "memtable", "writepath", "synth"}
