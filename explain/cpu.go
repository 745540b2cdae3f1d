package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// CPUClass is where a CPU sample's time went. Every sample belongs to
// exactly one class: walking its stack from the leaf, the first frame that
// names a role decides (so sweeping done inside mallocgc is sweeping, and
// scanning done by an assist is an assist).
type CPUClass string

// CPU classes, in report order.
const (
	// ClassAssist: mark work paid by an allocating goroutine
	// (runtime.gcAssistAlloc*, gcParkAssist).
	ClassAssist CPUClass = "gc-assist"
	// ClassMarkWorker: background mark workers, dedicated, fractional or
	// idle (runtime.gcBgMarkWorker, gcDrainMarkWorker*).
	ClassMarkWorker CPUClass = "gc-mark-worker"
	// ClassGCOther: cycle start and termination, runtime.GC, and samples
	// the profiler could only label runtime._GC.
	ClassGCOther CPUClass = "gc-other"
	// ClassSweep: sweeping, in the background sweeper or on allocation
	// (bgsweep, sweepone, (*sweepLocked).sweep, deductSweepCredit, reclaim).
	ClassSweep CPUClass = "gc-sweep"
	// ClassWriteBarrier: write barriers and their buffer flushes
	// (gcWriteBarrier*, wbBufFlush*, bulkBarrierPreWrite*).
	ClassWriteBarrier CPUClass = "gc-write-barrier"
	// ClassAlloc: allocation outside GC work (runtime.mallocgc*).
	ClassAlloc CPUClass = "alloc"
	// ClassOther: everything else: the program's own work and the rest of the runtime.
	ClassOther CPUClass = "other"
)

// CPUClasses lists the classes in report order.
var cpuClassOrder = []CPUClass{ClassAssist, ClassMarkWorker, ClassGCOther, ClassSweep, ClassWriteBarrier, ClassAlloc, ClassOther}

// IsGC reports whether the class is garbage-collector work.
func (c CPUClass) IsGC() bool { return strings.HasPrefix(string(c), "gc-") }

// rolePatterns map function-name prefixes to the class they decide.
var rolePatterns = []struct {
	prefix string
	class  CPUClass
}{
	{"runtime.gcAssistAlloc", ClassAssist},
	{"runtime.gcParkAssist", ClassAssist},
	{"runtime.gcBgMarkWorker", ClassMarkWorker},
	{"runtime.gcDrainMarkWorker", ClassMarkWorker},
	{"runtime.GC", ClassGCOther}, // exact match, see classify
	{"runtime.gcStart", ClassGCOther},
	{"runtime.gcMarkDone", ClassGCOther},
	{"runtime.gcMarkTermination", ClassGCOther},
	{"runtime._GC", ClassGCOther},
	{"runtime.bgsweep", ClassSweep},
	{"runtime.sweepone", ClassSweep},
	{"runtime.(*sweepLocked).sweep", ClassSweep},
	{"runtime.(*mspan).ensureSwept", ClassSweep},
	{"runtime.deductSweepCredit", ClassSweep},
	{"runtime.(*mheap).reclaim", ClassSweep},
	{"runtime.finishsweep_m", ClassSweep},
	{"runtime.gcWriteBarrier", ClassWriteBarrier},
	{"gcWriteBarrier", ClassWriteBarrier},
	{"runtime.wbBufFlush", ClassWriteBarrier},
	{"runtime.bulkBarrierPreWrite", ClassWriteBarrier},
	{"runtime.bulkBarrierBitmap", ClassWriteBarrier},
	{"runtime.wbMove", ClassWriteBarrier},
	{"runtime.wbZero", ClassWriteBarrier},
	{"runtime.mallocgc", ClassAlloc},
}

// scanPatterns name the functions that scan and grey objects, in the
// classic collector (scanobject, greyobject) and in Go 1.25+'s Green Tea
// collector (scanObject, scanSpan, ScanSpanPacked, tryDeferToSpanScan).
var scanPatterns = []string{
	"runtime.scanobject", "runtime.scanObject", "runtime.scanSpan", "runtime.spanSetScans",
	"internal/runtime/gc/scan.ScanSpanPacked", "runtime.tryDeferToSpanScan",
	"runtime.greyobject", "runtime.scanblock", "runtime.scanstack", "runtime.scanframeworker",
	"runtime.scanConservative", "runtime.markroot", "runtime.findObject", "runtime.shade",
}

func roleOf(fn string) (CPUClass, bool) {
	for _, r := range rolePatterns {
		if r.prefix == "runtime.GC" {
			if fn == "runtime.GC" {
				return r.class, true
			}
			continue
		}
		if strings.HasPrefix(fn, r.prefix) {
			return r.class, true
		}
	}
	return "", false
}

func isScan(fn string) bool {
	for _, p := range scanPatterns {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// classify returns a stack's class, the index of the frame that decided it
// (-1 for ClassOther) and whether it contains a scanning frame.
func classify(fs []string) (CPUClass, int, bool) {
	scan := false
	for i, f := range fs {
		if !scan && isScan(f) {
			scan = true
		}
		if c, ok := roleOf(f); ok {
			// Skip past the decider's own closures and helpers
			// (gcAssistAlloc.func1 <- gcAssistAlloc) so attribution
			// starts at its caller.
			j := i
			for j+1 < len(fs) {
				if c2, ok := roleOf(fs[j+1]); ok && c2 == c {
					j++
					continue
				}
				break
			}
			return c, j, scan
		}
	}
	return ClassOther, -1, scan
}

// ClassShare is one class's part of the sampled CPU.
type ClassShare struct {
	Class CPUClass
	// CPU is the sampled CPU time in the class.
	CPU time.Duration
	// Share is CPU over the profile's total, from 0 to 1.
	Share float64
}

// CPUAccount explains a CPU profile.
type CPUAccount struct {
	File string
	// Total is the sampled CPU time; Duration the profile's wall duration.
	Total, Duration time.Duration
	// Samples is the number of samples.
	Samples int64
	// Classes holds every class in report order; shares add up to 1.
	Classes []ClassShare
	// GC is the share of CPU in all gc-* classes (0..1).
	GC float64
	// MetricsComparable is the profile's GC share on gcmetrics' definition,
	// the one the runtime/metrics figure uses: assists, mark workers and
	// gc-other, less idle-priority mark workers (IdleMark), over all
	// sampled CPU. runtime/metrics leaves out sweeping and write barriers;
	// gcmetrics leaves out idle-priority marking.
	MetricsComparable float64
	// IdleMark is the share of CPU in idle-priority mark workers
	// (runtime.gcDrainMarkWorkerIdle), part of ClassMarkWorker.
	IdleMark float64
	// Marking is the part of GC CPU in assists and mark workers (0..1 of GC).
	Marking float64
	// Scanning is the part of GC CPU inside object-scanning functions (0..1 of GC).
	Scanning float64
	// Alloc is the share of CPU allocating (mallocgc outside GC work).
	Alloc float64
	// AssistPayers are the program's functions whose allocations ran
	// assists, with their part of assist CPU.
	AssistPayers []Site
	// AllocPayers are the functions whose allocations cost ClassAlloc CPU,
	// with their part of it.
	AllocPayers []Site
}

// isIdleMark reports whether a mark worker's stack is an idle-priority
// worker's, the work gcmetrics leaves out of GC CPU.
func isIdleMark(fs []string) bool {
	for _, f := range fs {
		if strings.HasPrefix(f, "runtime.gcDrainMarkWorkerIdle") {
			return true
		}
	}
	return false
}

// Class returns the share of one class (0 if absent).
func (c *CPUAccount) Class(k CPUClass) float64 {
	for _, cs := range c.Classes {
		if cs.Class == k {
			return cs.Share
		}
	}
	return 0
}

func analyzeCPU(path string, p *profile.Profile, opts Options) (*CPUAccount, error) {
	vi := valueIndex(p, "cpu")
	if vi < 0 {
		vi = len(p.SampleType) - 1
	}
	attr := opts.attributor()
	byClass := map[CPUClass]int64{}
	var total, scanned, gcTotal, idleMark int64
	assist := map[string]int64{}
	alloc := map[string]int64{}
	acc := &CPUAccount{File: path, Duration: time.Duration(p.DurationNanos)}
	for _, s := range p.Sample {
		if vi >= len(s.Value) {
			return nil, fmt.Errorf("explain: %s: %w: sample with %d values, want %d", path, ErrCorrupt, len(s.Value), len(p.SampleType))
		}
		v := s.Value[vi]
		acc.Samples++
		total += v
		fs := frames(s)
		c, at, scan := classify(fs)
		byClass[c] += v
		if c.IsGC() {
			gcTotal += v
			if scan {
				scanned += v
			}
		}
		switch c {
		case ClassMarkWorker:
			if isIdleMark(fs) {
				idleMark += v
			}
		case ClassAssist:
			assist[attr.pick(fs[at+1:])] += v
		case ClassAlloc:
			alloc[attr.pick(fs[at+1:])] += v
		}
	}
	if total <= 0 {
		return nil, fmt.Errorf("explain: %s: %w: CPU profile has no sampled time", path, ErrEmpty)
	}
	acc.Total = time.Duration(total)
	for _, c := range cpuClassOrder {
		acc.Classes = append(acc.Classes, ClassShare{Class: c, CPU: time.Duration(byClass[c]), Share: float64(byClass[c]) / float64(total)})
	}
	acc.GC = float64(gcTotal) / float64(total)
	acc.IdleMark = float64(idleMark) / float64(total)
	acc.MetricsComparable = float64(byClass[ClassAssist]+byClass[ClassMarkWorker]-idleMark+byClass[ClassGCOther]) / float64(total)
	acc.Alloc = float64(byClass[ClassAlloc]) / float64(total)
	if gcTotal > 0 {
		acc.Marking = float64(byClass[ClassAssist]+byClass[ClassMarkWorker]) / float64(gcTotal)
		acc.Scanning = float64(scanned) / float64(gcTotal)
	}
	acc.AssistPayers = topSites(assist, byClass[ClassAssist], opts.top())
	acc.AllocPayers = topSites(alloc, byClass[ClassAlloc], opts.top())
	return acc, nil
}
