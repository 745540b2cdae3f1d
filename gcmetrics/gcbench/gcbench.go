// Package gcbench adds writegc's GC figures to a Go benchmark:
//
//	func BenchmarkX(b *testing.B) {
//		setUp()
//		m := gcbench.Start(b)
//		b.ResetTimer()
//		for range b.N {
//			work()
//		}
//		b.StopTimer()
//		m.Stop()
//	}
//
// (With b.Loop, call Start before the loop and Stop after it: b.Loop stops
// the timer when it returns false.)
//
// Stop reports, through b.ReportMetric, the figures [Metrics] names and
// cpu-nsec/op:
//
//   - Per op, in absolute units, for comparing benchmarks and commits:
//     gc-nsec/op (GC CPU time per op: all of /cpu/classes/gc/total,
//     idle-priority marking included, since the work is the same whichever
//     worker does it), assist-nsec/op (mark assists charged to the benchmark's own
//     goroutines, /cpu/classes/gc/mark/assist), gc-cycles/Mop (completed GC
//     cycles per million ops) and, on Unix, cpu-nsec/op (the process's user
//     plus system CPU time per op, every thread, from getrusage).
//   - Shares, as gcstress and explain print them: gc-cpu-% and assist-cpu-%
//     of the CPU the process used (gcmetrics' definitions: gc-cpu-% leaves
//     idle-priority marking out), gc-pause-p99-nsec and gc-cycles/op. A share
//     answers "how much of this benchmark's CPU is GC", not "which costs the
//     collector more": a pointer-free benchmark can show a higher assist share
//     than a pointer-heavy one while costing the collector a fortieth per op.
//     Compare the per-op units.
//
// gc-cycles/op is kept beside gc-cycles/Mop so comparisons with results
// from earlier versions still find it (a gate refuses a head that lacks a
// unit its base has); it is deprecated and will go. The time units are
// in nanoseconds and named -nsec, not -ns: benchstat rescales a unit holding
// the token "ns" to seconds but leaves a value of 0 under the unit as
// written, so a benchmark whose GC figures were all zero got tables of its
// own (assist-ns/op beside assist-sec/op); an -nsec unit is never rescaled
// and every benchmark's figures share one table. [UnitLines] gives the benchfmt "Unit" lines that
// tell benchstat and benchgate each figure's direction; scripts/units.txt
// carries them.
//
// Invariants and limits:
//
//   - The runtime's /cpu/classes counters advance only when a GC cycle ends,
//     so readings between cycles would miss the cycle in progress. Start
//     therefore forces a collection (runtime.GC) before its reading, so the
//     interval begins at a cycle boundary, and Stop forces one before its
//     reading, which completes the cycle the benchmark left in progress and
//     brings every counter up to date. The forced collection at Stop is
//     itself a full cycle the code under test did not cause: Stop forces a
//     second one at once, over the same heap, and subtracts its cost (CPU,
//     process CPU and one cycle) from the interval. Pauses are read before
//     Stop's collections. What remains is the benchmark's own GC work to
//     within the difference between two back-to-back forced cycles. That
//     difference is small beside a run of several cycles, but not beside a
//     run of none or one over a large heap (the first forced cycle also
//     finishes sweeping and marks what the loop allocated; seen here: 0
//     cycles and 300 GC-ns/op over a 1.4 GB heap): read gc-cycles/Mop
//     beside the other figures, and give a benchmark enough ops to run
//     several cycles.
//   - Start and Stop never touch the benchmark timer; the forced collections
//     must stay outside it: call Start before b.ResetTimer and Stop after
//     b.StopTimer. They cost three full collections of the live heap per
//     call of the benchmark function, in wall time only.
//   - The runtime's CPU classes are its own estimates from the time its
//     workers held a P, not the OS's CPU time: where other processes take
//     cores, a worker waiting for one still counts, so gc-nsec/op (idle
//     marking most) can exceed cpu-nsec/op, which is the OS's figure. Compare
//     benchmarks measured on one machine at one load.
//   - The figures cover the whole process between Start and Stop, other
//     goroutines included (b.RunParallel workers are wanted; a leftover
//     background goroutine is not).
//   - Per-op figures divide by b.N and mean something only when the cost of
//     an op does not depend on b.N. A benchmark that keeps state alive across
//     ops (a map filled by the loop, a memtable never reset) has a live heap
//     that grows with b.N, so the testing package's rounds at growing b.N
//     measure different heaps and the figures, ns/op included, swing with
//     b.N. Stop compares the live heap after each round with the previous
//     round of the same benchmark (keyed by b.Name) and logs a warning
//     through b.Logf (printed under "--- BENCH:") when it grew by at least
//     1 MiB and 10% while b.N grew; see [LiveHeapGrows]. Reset such state per
//     round, or run at a fixed op count (-benchtime=Nx) and say so.
//   - The per-op GC figures need [MinCycles] GC cycles in the timed region:
//     Stop's correction for its own forced cycle is about one cycle's cost.
//     When the final round of a benchmark (the one whose figures the
//     testing package prints: -benchtime reached) completed fewer while it
//     allocated, Stop logs a warning through b.Logf naming the cycles, the
//     bytes allocated and how to get more: the -benchtime=Nx that would
//     run them at this allocation rate, or a lower GOGC; see
//     [FewCyclesWarning]. A benchmark that allocates nothing (under a byte
//     an op) or runs with the collector off is not warned: it has no cycle
//     to miss.
//
// The package is meant for _test.go files; it imports testing and reads
// the testing package's -test.benchtime flag (to tell the final round). Its only
// package state is that per-benchmark record of the last round (at most 4096
// names, safe for concurrent use).
//
// The manual (commands, flags, worked examples) is docs/gcbench.md in the repository.
package gcbench

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/gcmetrics"
)

// Measurement is one benchmark run's interval, from Start to Stop. It
// belongs to the goroutine running the benchmark function and lives for one
// call of it (a benchmark function runs once per b.N the framework tries;
// each call makes its own Measurement, and the last call's figures stand).
// It is not safe for concurrent use.
type Measurement struct {
	b        *testing.B
	r        *gcmetrics.Reader
	start    gcmetrics.Snapshot
	startCPU time.Duration
	cpuOK    bool
	stopped  bool
}

// Start forces a collection, then reads the collector's counters and the
// process CPU time for b's measurement. Call it after setup, just before
// b.ResetTimer and the loop.
func Start(b *testing.B) *Measurement {
	b.Helper()
	m := &Measurement{b: b, r: gcmetrics.NewReader()}
	runtime.GC()
	m.start = m.r.Read()
	m.startCPU, m.cpuOK = processCPU()
	return m
}

// Stop forces two collections, reads the counters around them and reports
// the interval's figures on the benchmark (see the package doc and
// Metrics), logging the package doc's warnings (live heap growing with b.N,
// too few GC cycles in the final round). It leaves the timer as it finds
// it. Calls after the first do nothing.
func (m *Measurement) Stop() {
	if m.stopped {
		return
	}
	m.stopped = true
	pre := m.r.Read()
	runtime.GC()
	end := m.r.Read()
	endCPU, ok1 := processCPU()
	runtime.GC()
	cal := m.r.Read()
	calCPU, ok2 := processCPU()

	d := Interval(m.start, pre, end, cal)
	n := m.b.N
	for _, x := range Metrics(d, n) {
		m.b.ReportMetric(x.Value, x.Unit)
	}
	if m.cpuOK && ok1 && ok2 && n > 0 {
		cpu := max((endCPU-m.startCPU)-(calCPU-endCPU), 0)
		m.b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), UnitCPUPerOp)
	}
	if w := trackRound(m.b.Name(), n, end.HeapLive); w != "" {
		m.b.Logf("%s", w)
	}
	if !finalRound(n, m.b.Elapsed()) {
		return // the testing package runs another round: only the final one's figures stand
	}
	headroom := uint64(0)
	if m.start.HeapGoal > m.start.HeapLive {
		headroom = m.start.HeapGoal - m.start.HeapLive
	}
	run := CycleRun{N: n, Cycles: d.Cycles, AllocBytes: pre.AllocBytes - m.start.AllocBytes, HeadroomBytes: headroom}
	if w := FewCyclesWarning(run); w != "" {
		m.b.Logf("%s", w)
		markCyclesWarned(m.b.Name())
	}
}

// Interval returns the benchmark's share of the readings Stop takes: CPU
// accounting and cycles from start to end (the reading after the collection
// that completes the benchmark's last cycle), less those of the forced
// cycle from end to cal (one more collection over the same heap, standing
// for the forced cycle inside start..end); pauses from start to pre (the
// reading before any forced collection). Differences are clamped at zero.
func Interval(start, pre, end, cal gcmetrics.Snapshot) gcmetrics.Delta {
	d := gcmetrics.Sub(start, end)
	f := gcmetrics.CPUBetween(end, cal)
	c := &d.CPU
	c.CPUUsed = max(c.CPUUsed-f.CPUUsed, 0)
	c.GCCPU = max(c.GCCPU-f.GCCPU, 0)
	c.Assist = max(c.Assist-f.Assist, 0)
	c.Dedicated = max(c.Dedicated-f.Dedicated, 0)
	c.IdleMark = max(c.IdleMark-f.IdleMark, 0)
	c.Cycles -= min(f.Cycles, c.Cycles)
	d.Pauses = gcmetrics.Sub(start, pre).Pauses
	return d
}

// Metric is one figure Stop reports: a value and its benchmark unit. It is
// a plain value.
type Metric struct {
	Value float64
	Unit  string
}

// Units Stop reports.
const (
	UnitGCCPU    = "gc-cpu-%"          // gcmetrics.CPU.GCCPUPercent
	UnitAssist   = "assist-cpu-%"      // gcmetrics.CPU.AssistPercent
	UnitPauseP99 = "gc-pause-p99-nsec" // gcmetrics.Delta.PauseP99, in ns
	// UnitCycles is completed GC cycles over n. Deprecated: kept for
	// comparisons with earlier results; read UnitCyclesPerMop.
	UnitCycles       = "gc-cycles/op"
	UnitGCPerOp      = "gc-nsec/op"     // GC CPU (idle marking included) per op, ns
	UnitAssistPerOp  = "assist-nsec/op" // mark-assist CPU per op, ns
	UnitCyclesPerMop = "gc-cycles/Mop"  // completed GC cycles per million ops
	UnitCPUPerOp     = "cpu-nsec/op"    // process user+system CPU per op, ns (Unix only)
)

// Metrics returns the figures for an interval d of n operations, in the
// order Stop reports them: the shares and pause, then (when n is positive)
// gc-cycles/op, gc-nsec/op, assist-nsec/op and gc-cycles/Mop. cpu-nsec/op comes
// from the OS, not from d, and is Stop's alone.
func Metrics(d gcmetrics.Delta, n int) []Metric {
	ms := []Metric{
		{d.GCCPUPercent(), UnitGCCPU},
		{d.AssistPercent(), UnitAssist},
		{d.PauseP99() * 1e9, UnitPauseP99},
	}
	if n > 0 {
		per := float64(n)
		ms = append(ms,
			Metric{float64(d.Cycles) / per, UnitCycles},
			Metric{(d.GCCPU + d.IdleMark) * 1e9 / per, UnitGCPerOp},
			Metric{d.Assist * 1e9 / per, UnitAssistPerOp},
			Metric{float64(d.Cycles) * 1e6 / per, UnitCyclesPerMop},
		)
	}
	return ms
}

// AllUnits lists every unit Stop may report, in UnitLines' order.
func AllUnits() []string {
	return []string{UnitGCCPU, UnitAssist, UnitPauseP99, UnitCycles,
		UnitGCPerOp, UnitAssistPerOp, UnitCyclesPerMop, UnitCPUPerOp}
}

// UnitLines returns the benchfmt lines that give each of Stop's units its
// direction (all are better lower), one per line, newline-terminated, for
// prepending to stored results.
func UnitLines() string {
	var sb strings.Builder
	for _, u := range AllUnits() {
		sb.WriteString("Unit " + u + " better=lower\n")
	}
	return sb.String()
}

// Live-heap growth that LiveHeapGrows calls growth with b.N.
const (
	minLiveGrowthBytes = 1 << 20 // at least this many bytes more live heap
	minLiveGrowthRatio = 0.10    // and at least this fraction of the earlier round's
	maxTracked         = 4096    // benchmark names remembered; the record restarts past it
)

// Round is one call of a benchmark function as Stop sees it: its b.N and
// the live heap after the forced collection that ended it. It is a plain
// value.
type Round struct {
	N    int
	Live uint64 // bytes
}

// LiveHeapGrows reports whether the live heap grew with b.N from round
// prev to round cur of the same benchmark: cur ran more ops, and its live
// heap is at least 1 MiB and 10% above prev's. A benchmark whose ops keep
// what they allocate (in a map, a memtable, a slice the loop appends to)
// trips it at the testing package's second round; one that allocates and
// drops, or keeps a fixed set built in setup, does not.
func LiveHeapGrows(prev, cur Round) bool {
	if cur.N <= prev.N || cur.Live <= prev.Live {
		return false
	}
	g := cur.Live - prev.Live
	return g >= minLiveGrowthBytes && float64(g) >= minLiveGrowthRatio*float64(prev.Live)
}

type tracked struct {
	last         Round
	warned       bool
	cyclesWarned bool // the final round had FewCyclesWarning's warning
}

var rounds = struct {
	sync.Mutex
	m map[string]*tracked
}{m: map[string]*tracked{}}

// trackRound records the round of benchmark name and returns the warning
// to log, or "" (a warning is given once per run of a benchmark; a round
// with no more ops than the last starts a new run, as -count does).
func trackRound(name string, n int, live uint64) string {
	rounds.Lock()
	defer rounds.Unlock()
	cur := Round{N: n, Live: live}
	t, ok := rounds.m[name]
	if !ok || n <= t.last.N {
		if len(rounds.m) >= maxTracked {
			clear(rounds.m)
		}
		rounds.m[name] = &tracked{last: cur}
		return ""
	}
	prev := t.last
	t.last = cur
	if t.warned || !LiveHeapGrows(prev, cur) {
		return ""
	}
	t.warned = true
	return fmt.Sprintf("gcbench: warning: the live heap grew with b.N, from %.1f MiB at b.N=%d to %.1f MiB at b.N=%d: "+
		"the benchmark keeps per-op state alive, so its per-op figures (ns/op and the GC units) depend on b.N; "+
		"reset that state in each call, or run at a fixed -benchtime=Nx and say so",
		float64(prev.Live)/(1<<20), prev.N, float64(cur.Live)/(1<<20), cur.N)
}

// MinCycles is the fewest GC cycles the timed region of a benchmark's final
// round should complete for its per-op GC figures to be read: Stop removes
// the cost of its own forced cycle by measuring one more, and the two differ
// by a part of one cycle's cost, which fewer cycles do not dilute.
const MinCycles uint64 = 5

// gcOffHeadroom is a distance from the live heap to the heap goal past which
// the collector counts as off (GOGC=off without a memory limit): no cycle
// is missing then.
const gcOffHeadroom uint64 = 1 << 60

// CycleRun is what FewCyclesWarning reads of a benchmark's round. It is a
// plain value.
type CycleRun struct {
	N             int    // b.N
	Cycles        uint64 // GC cycles the timed region completed (Stop's own taken off)
	AllocBytes    uint64 // bytes allocated in the timed region
	HeadroomBytes uint64 // heap goal minus live heap at Start: what may be allocated before a cycle starts
}

// FewCyclesWarning returns the warning Stop logs for a final round that
// completed fewer than MinCycles GC cycles while allocating (at least a
// byte an op), or "": it names the cycles and the bytes allocated, and how
// to get more, the -benchtime=Nx that would complete MinCycles+1 at this
// allocation rate (when HeadroomBytes gives one) or a lower GOGC. The
// collector off (HeadroomBytes past 2^60) gives no warning.
func FewCyclesWarning(r CycleRun) string {
	if r.Cycles >= MinCycles || r.N <= 0 || r.AllocBytes < uint64(r.N) || r.HeadroomBytes >= gcOffHeadroom {
		return ""
	}
	perOp := float64(r.AllocBytes) / float64(r.N)
	more := "a longer -benchtime"
	if want := roundUp2(float64(MinCycles+1) * float64(r.HeadroomBytes) / perOp); r.HeadroomBytes > 0 && want < maxBenchN {
		more = fmt.Sprintf("-benchtime=%.0fx or more (a cycle starts about every %s allocated, %.0f B/op here)",
			want, sizeText(r.HeadroomBytes), perOp)
	}
	return fmt.Sprintf("gcbench: warning: %d GC cycle(s) completed in the timed region (b.N=%d, %s allocated): "+
		"the per-op GC figures (gc-nsec/op, assist-nsec/op, gc-cycles/Mop, the shares) need at least %d, "+
		"since Stop's correction for its own forced cycle is about one cycle's cost; run %s, "+
		"or lower GOGC (GOGC=25 go test ..., or debug.SetGCPercent in the benchmark's setup) so that cycles come more often",
		r.Cycles, r.N, sizeText(r.AllocBytes), MinCycles, more)
}

// roundUp2 rounds x up to two significant digits (an op count to suggest).
func roundUp2(x float64) float64 {
	if x < 100 {
		return math.Ceil(x)
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-1)
	return math.Ceil(x/p) * p
}

// sizeText writes a byte count in MiB, or in KiB below one MiB.
func sizeText(b uint64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// maxBenchN is the b.N at which the testing package stops raising b.N.
const maxBenchN = 1e9

// finalRound reports whether the round that ran n ops in elapsed time is
// the last the testing package runs of this benchmark (the -test.benchtime
// in force reached, as its own loop decides).
func finalRound(n int, elapsed time.Duration) bool {
	bt := "1s"
	if f := flag.Lookup("test.benchtime"); f != nil {
		bt = f.Value.String()
	}
	return lastRound(n, elapsed, bt)
}

// lastRound is finalRound for a -test.benchtime of bt ("2000x", "1s"; one
// that does not parse counts as the default 1s).
func lastRound(n int, elapsed time.Duration, bt string) bool {
	if n >= maxBenchN {
		return true
	}
	if c, ok := strings.CutSuffix(bt, "x"); ok {
		if want, err := strconv.Atoi(c); err == nil && want > 0 {
			return n >= want
		}
	}
	d, err := time.ParseDuration(bt)
	if err != nil || d <= 0 {
		d = time.Second
	}
	return elapsed >= d
}

// markCyclesWarned records that benchmark name's final round had the
// few-cycles warning (trackRound made its record).
func markCyclesWarned(name string) {
	rounds.Lock()
	defer rounds.Unlock()
	if t := rounds.m[name]; t != nil {
		t.cyclesWarned = true
	}
}
