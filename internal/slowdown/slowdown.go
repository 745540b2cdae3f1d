// Package slowdown is the regression gate's test-only knob: with the
// `gateslow` build tag, Inject burns a fixed number of loop iterations at a
// hot-path site, so the gate's detection rate can be measured against a known,
// deliberately injected slowdown. Without the tag (every normal build) Inject
// is an empty function the compiler inlines away: the hot paths pay nothing
// (TestInjectInlinesAway checks every call site in the module).
//
// Sites are fixed; the amount per site comes from the environment variable
// WRITEGC_SLOWDOWN_SPINS ("arena=6,memtable=400,synth=12/4"), read once per
// process: a whole number of iterations of a one-cycle dependency chain per
// call, or per EVERY-th call ("/EVERY", for injections smaller than one call
// of Spin; the count of calls is then one atomic counter per site). The
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

// MaxEvery bounds Amount.Every: a finer injection than one call in a million
// is below any gate's resolution.
const MaxEvery = 1 << 20

// Amount is what Inject does at one site: Spins steps of Spin on every
// Every-th call (Every 0 or 1: on every call). A fraction of a call's worth
// of work is what a small benchmark needs: at the synthetic arena row (about
// 1,000 instructions an op) the call of Spin alone costs about 26
// instructions, more than a 2% slowdown, so "synth=12/4" (12 steps every
// 4th call) is how 2% of that row is injected. An Amount is a plain value.
type Amount struct {
	Spins uint64 // Spin steps per firing call; 0: the site is not slowed
	Every uint64 // fire on every Every-th call; 0 or 1: on every call
}

// Parse reads a WRITEGC_SLOWDOWN_SPINS value: comma-separated
// SITE=ITERATIONS[/EVERY] entries, ITERATIONS a whole number and EVERY one
// from 1 to MaxEvery; "" sets nothing. A site not named gets the zero Amount
// (not slowed); a site named twice keeps the last entry.
func Parse(spec string) (amounts [NumSites]Amount, err error) {
	if spec == "" {
		return amounts, nil
	}
	for _, kv := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		a, perr := parseAmount(val)
		if !ok || perr != nil {
			return amounts, fmt.Errorf("slowdown: bad %s entry %q (want SITE=ITERATIONS or SITE=ITERATIONS/EVERY, whole numbers, EVERY 1 to %d)", EnvVar, kv, MaxEvery)
		}
		found := false
		for s, sn := range Names {
			if sn == name {
				amounts[s] = a
				found = true
			}
		}
		if !found {
			return amounts, fmt.Errorf("slowdown: unknown site %q in %s", name, EnvVar)
		}
	}
	return amounts, nil
}

// parseAmount reads ITERATIONS[/EVERY].
func parseAmount(val string) (Amount, error) {
	spins, every, hasEvery := strings.Cut(val, "/")
	n, err := strconv.ParseUint(spins, 10, 64)
	if err != nil {
		return Amount{}, err
	}
	a := Amount{Spins: n, Every: 1}
	if hasEvery {
		e, err := strconv.ParseUint(every, 10, 64)
		if err != nil || e < 1 || e > MaxEvery {
			return Amount{}, fmt.Errorf("every %q out of 1..%d", every, MaxEvery)
		}
		a.Every = e
	}
	return a, nil
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
