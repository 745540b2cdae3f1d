// Package callgrind counts what a Go benchmark executes, per op, under
// valgrind's callgrind tool with cache simulation: instructions, first-level
// data-cache misses, last-level misses, and an estimate of cycles drawn from
// those counts. Counts do not depend on how busy the machine is, so a
// regression gate over them needs no quiet machine.
//
// Per-op figures. A benchmark process executes startup, the testing package's
// N=1 probe and its own setup besides the N ops it times. Measure runs the
// same benchmark twice, at LoOps (2) and at N+LoOps ops, and divides the
// difference of the two totals by N: everything that does not grow with N
// cancels (start-up, the probe, each timed call's runtime.GC and set-up).
// The smaller run is kept that small because valgrind runs a Go benchmark
// 50-200x slower than natively: N and 2N (the earlier scheme) executed 3N
// ops for a difference of N, this executes N+4. The difference then covers
// ops 3 to N+2 rather than N+1 to 2N, which matters only to a benchmark
// whose ops get cheaper or dearer as it runs (a structure that fills up).
// The same difference, per function, names where added instructions went
// (ParseProfile, FuncDiff). With Runner.Inlines (ReadInlines: the binary's
// DWARF inlined calls) the runs dump instruction addresses and each
// address inside an inlined call counts for the function inlined there, as
// pprof names inlined frames (ParseProfileInlined).
//
// One process for many benchmarks. MeasureLeaves runs every leaf a
// -test.bench pattern selects in one process, at N+1 ops, and splits the
// counts per call with callgrind dumps at the entries of three functions
// of the testing package (resetRaces, checkRaces, ResetTimer: each runN
// enters them in a fixed order, whatever goroutine it runs on, where a dump
// after runN returns is misplaced by goroutine switches). A leaf's figure
// is the difference of its two calls' timed parts (from its last
// ResetTimer to the end of the call: set-up and the forced GC before it
// fall outside) over N. One process per binary instead of two per leaf:
// the start-up and the probe's set-up, nearly all of a run for benchmarks
// of a few µs an op, are paid once. A run whose dumps do not give two
// calls of each leaf (a b.Loop benchmark makes one; another testing
// package may make none) is ErrNoSplit, and the leaf is measured by
// Measure instead.
//
// Invariants:
//
//   - Each count belongs to one benchmark: callgrind counts a whole process,
//     so Measure runs exactly one leaf benchmark (an anchored regexp per
//     level of its name) and refuses a run whose output names any other;
//     MeasureLeaves counts only the parts between a leaf's dumps, and
//     refuses (ErrNoSplit) a run whose result lines are not exactly the
//     leaves it was given, in order, or whose dumps do not pair up.
//   - The environment is fixed: GOMAXPROCS=1 (valgrind runs one thread at a
//     time anyway; with more Ps idle threads spin, and their spinning counts)
//     and GODEBUG=asyncpreemptoff=1 (callgrind aborts on the signal Go uses
//     for asynchronous preemption) and cpu.rdtscp=off (the runtime's
//     cputicks uses RDTSCP where the CPU has it, and valgrind 3.19 stops on
//     it as an unrecognised instruction: seen on a 2-vCPU AMD EPYC VM, in
//     the sysmon thread's lock spin, so only in some runs).
//   - Runs are bounded: valgrind leads a process group of its own that is
//     killed whole on cancel, on timeout and once valgrind exits (a child of
//     the benchmark holding its stdout cannot keep Count waiting), runs with
//     --vgdb=no (no FIFO is made in TMPDIR, so none is left by a killed
//     run), and is stopped past Runner.MaxOutput bytes of output
//     (ErrOutputTooLarge, never a missing result line).
//   - Input is bounded: at most MaxParts dump files are read; an output file is read up to MaxOutBytes and lines of
//     at most MaxLineBytes, with at most MaxFuncs functions and MaxNames
//     compressed names, each limit checked before the entry is kept; a file without both an events line and a totals
//     (or summary) line is ErrNoTotals, never zero counts.
//   - A larger op count that executed fewer instructions than the smaller
//     one is ErrNotMonotone: the per-op figure would be meaningless.
//
// What the counts cannot see: valgrind serialises threads, so GC
// concurrency, lock contention and memory-level parallelism are not real; the
// caches are a model (sizes read from the host, LRU, no prefetcher); and the
// collector's pacing depends on time, so allocation-heavy benchmarks vary by
// about 1-2% between runs where pure computation varies by under 0.5%.
package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits on what ParseOut reads.
const (
	MaxOutBytes  = 256 << 20
	MaxLineBytes = 1 << 20
)

// Sentinel errors.
var (
	ErrNoTotals    = errors.New("callgrind: output has no events and totals lines")
	ErrTooLarge    = errors.New("callgrind: output over its size limit")
	ErrNotMonotone = errors.New("callgrind: more ops executed fewer instructions")
	ErrBadRun      = errors.New("callgrind: benchmark run failed")
	// ErrOutputTooLarge: a run printed more than Runner.MaxOutput bytes on
	// its standard output and error, and was stopped.
	ErrOutputTooLarge = errors.New("callgrind: benchmark output over the limit")
)

// Event names as callgrind writes them with --cache-sim=yes.
const (
	evIr   = "Ir"   // instructions executed
	evI1mr = "I1mr" // first-level instruction-cache read misses
	evD1mr = "D1mr" // first-level data-cache read misses
	evD1mw = "D1mw" // first-level data-cache write misses
	evILmr = "ILmr" // last-level misses of instruction reads
	evDLmr = "DLmr" // last-level misses of data reads
	evDLmw = "DLmw" // last-level misses of data writes
)

// Counts are one process's totals, by callgrind event name.
// A Counts is a plain value: safe to copy, not to mutate concurrently.
type Counts map[string]uint64

// Unit names of the per-op figures, as benchgate and benchstat read them.
const (
	UnitInstructions = "instructions/op"
	UnitD1Misses     = "D1-misses/op"
	UnitLLMisses     = "LL-misses/op"
	UnitEstCycles    = "est-cycles/op"
)

// Units lists the per-op units in the order they are written.
var Units = []string{UnitInstructions, UnitD1Misses, UnitLLMisses, UnitEstCycles}

// Cost weights of the cycle estimate, the ones callgrind's documentation and
// KCachegrind use: a first-level miss costs about 10 cycles, a last-level
// miss about 100, everything else one cycle per instruction.
const (
	L1MissCycles = 10
	LLMissCycles = 100
)

// D1Misses is the count of first-level data-cache misses, reads and writes.
func (c Counts) D1Misses() uint64 { return c[evD1mr] + c[evD1mw] }

// LLMisses is the count of last-level misses, instruction and data.
func (c Counts) LLMisses() uint64 { return c[evILmr] + c[evDLmr] + c[evDLmw] }

// EstCycles is Ir + 10 x (I1mr + D1mr + D1mw) + 100 x (ILmr + DLmr + DLmw).
func (c Counts) EstCycles() uint64 {
	return c[evIr] + L1MissCycles*(c[evI1mr]+c.D1Misses()) + LLMissCycles*c.LLMisses()
}

// ParseOut reads a callgrind output file's events line and its totals line
// (the summary line when there is no totals line).
func ParseOut(r io.Reader) (Counts, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxOutBytes+1))
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes)
	var events, totals, summary []string
	read := 0
	for sc.Scan() {
		line := sc.Text()
		read += len(line) + 1
		if read > MaxOutBytes {
			return nil, ErrTooLarge
		}
		switch {
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
		case strings.HasPrefix(line, "totals:"):
			totals = strings.Fields(strings.TrimPrefix(line, "totals:"))
		case strings.HasPrefix(line, "summary:"):
			summary = strings.Fields(strings.TrimPrefix(line, "summary:"))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: a line over %d bytes", ErrTooLarge, MaxLineBytes)
		}
		return nil, err
	}
	if totals == nil {
		totals = summary
	}
	if len(events) == 0 || len(totals) == 0 {
		return nil, ErrNoTotals
	}
	return zipCounts(events, totals)
}

func zipCounts(events, values []string) (Counts, error) {
	if len(values) > len(events) {
		return nil, fmt.Errorf("%w: %d values for %d events", ErrNoTotals, len(values), len(events))
	}
	c := make(Counts, len(events))
	for i, ev := range events {
		if i >= len(values) {
			c[ev] = 0 // callgrind leaves trailing zero counts out
			continue
		}
		v, err := strconv.ParseUint(values[i], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("callgrind: event %s: %w", ev, err)
		}
		c[ev] = v
	}
	if _, ok := c[evIr]; !ok {
		return nil, fmt.Errorf("%w: no %s event", ErrNoTotals, evIr)
	}
	return c, nil
}

// PerOp is the per-op cost of the ops between two runs: (hi - lo) / (nHi -
// nLo) for every unit in Units.
type PerOp map[string]float64

// Diff computes the per-op figures of the nHi-nLo ops the larger run did
// beyond the smaller one.
func Diff(lo, hi Counts, nLo, nHi int) (PerOp, error) {
	if nHi <= nLo || nLo < 0 {
		return nil, fmt.Errorf("callgrind: op counts %d and %d: the second must be larger", nLo, nHi)
	}
	if hi[evIr] < lo[evIr] {
		return nil, fmt.Errorf("%w: %d ops %d instructions, %d ops %d", ErrNotMonotone, nLo, lo[evIr], nHi, hi[evIr])
	}
	n := float64(nHi - nLo)
	d := func(a, b uint64) float64 { return (float64(b) - float64(a)) / n }
	// Miss counts may fall by a little between runs (the cache model sees a
	// different history); a negative figure is reported as zero, since a
	// per-op count below zero has no meaning and benchgate refuses it.
	clamp := func(x float64) float64 { return max(x, 0) }
	return PerOp{
		UnitInstructions: d(lo[evIr], hi[evIr]),
		UnitD1Misses:     clamp(d(lo.D1Misses(), hi.D1Misses())),
		UnitLLMisses:     clamp(d(lo.LLMisses(), hi.LLMisses())),
		UnitEstCycles:    clamp(d(lo.EstCycles(), hi.EstCycles())),
	}, nil
}
