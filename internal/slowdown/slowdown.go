// Package slowdown is the regression gate's test-only knob: with the
// `gateslow` build tag, Inject burns a fixed number of loop iterations at a
// hot-path site, so the gate's detection rate can be measured against a known,
// deliberately injected slowdown. Without the tag (every normal build) Inject
// is an empty function the compiler inlines away: the hot paths pay nothing
// (TestInjectInlinesAway checks every call site in the module).
//
// Sites are fixed; the amount per site comes from the environment variable
// WRITEGC_SLOWDOWN_SPINS ("arena=6,memtable=400"), read once per process: a
// whole number of iterations of a one-cycle dependency chain per call. The
// amount is a count, never converted from nanoseconds at start-up, so a
// process's clock speed cannot change how many iterations it runs (the
// former per-process ns-to-iterations conversion drifted with CPU frequency).
//
// The amount is per benchmark, not per site: scripts/calibrate-gate runs each
// gated benchmark in its own process (a benchgate -target of its own, whose
// head environment enables only that benchmark's site), so exactly one
// injection point is active per op. It finds the amount by a regression
// (benchgate/internal/slowcal): the benchmark runs untagged and, tagged, at
// several iteration counts, interleaved; a line fitted to ns/op against the
// count gives the count that slows it by the stated percentage of its own
// untagged ns/op, whatever the number of site calls per op and however much of
// the spin overlaps with other work. A benchmark sharing a site with a faster
// or slower one is thus still slowed by the stated percentage of its own time.
package slowdown

import (
	"fmt"
	"strconv"
	"strings"
)

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

// Names are the site names accepted in WRITEGC_SLOWDOWN_SPINS.
var Names = [NumSites]string{"arena", "memtable", "writepath", "synth"}

// EnvVar is the environment variable a gateslow build reads its amounts from.
const EnvVar = "WRITEGC_SLOWDOWN_SPINS"

// Parse reads a WRITEGC_SLOWDOWN_SPINS value: comma-separated SITE=ITERATIONS
// entries, ITERATIONS a whole number; "" sets nothing. A site not named gets
// 0 (not slowed); a site named twice keeps the last entry.
func Parse(spec string) (spins [NumSites]uint64, err error) {
	if spec == "" {
		return spins, nil
	}
	for _, kv := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, perr := strconv.ParseUint(val, 10, 64)
		if !ok || perr != nil {
			return spins, fmt.Errorf("slowdown: bad %s entry %q (want SITE=ITERATIONS, a whole number)", EnvVar, kv)
		}
		found := false
		for s, sn := range Names {
			if sn == name {
				spins[s] = n
				found = true
			}
		}
		if !found {
			return spins, fmt.Errorf("slowdown: unknown site %q in %s", name, EnvVar)
		}
	}
	return spins, nil
}

// spinSink is written only when a spin's result hits an (in practice)
// impossible value, so that the loop is not dead code and Spin stores
// nothing shared.
//
//lint:ignore U1000 never read: written so that Spin's loop is not dead code
var spinSink uint64

// Spin runs n steps of a dependency chain of one-cycle operations (adds and
// xors), eight per loop iteration: its cost in cycles is fixed by n, with a
// one-cycle grain, and the loop's trip count (n/8, then n%8) stays short
// enough for the branch predictor to learn at the small counts that tiny
// benchmarks need. It is Inject's work in a gateslow build, and
// benchgate/internal/slowcal times it to place its fit's grid. Safe for
// concurrent use.
//
//go:noinline
func Spin(n uint64) {
	x := n
	for i := n / 8; i != 0; i-- {
		x += i
		x ^= i << 1
		x += i << 2
		x ^= i << 3
		x += i << 4
		x ^= i << 5
		x += i << 6
		x ^= i << 7
	}
	for i := n % 8; i != 0; i-- {
		x += i
	}
	if x == 0x9e3779b97f4a7c15 {
		spinSink = x
	}
}
