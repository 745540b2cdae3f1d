package compare

import (
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// The units of a traced run's line (end.mmu, end.assist): the minimum
// mutator utilization at 1, 10 and 100 ms (fractions, higher is better)
// and the share of the slowest 1% of timed writes (Puts, a mix's
// inserts, updates and read-modify-writes) and of a mix's reads whose
// goroutine did a mark assist during them (%, lower is better). A file
// declares them only when one of its lines holds them, so a file of runs
// without a trace is what it was.
const (
	MMU1ms                 Unit = "mmu-1ms"
	MMU10ms                Unit = "mmu-10ms"
	MMU100ms               Unit = "mmu-100ms"
	AssistShareSlowPct     Unit = "assist-share-slow-%"
	ReadAssistShareSlowPct Unit = "read-assist-share-slow-%"
)

// mmuUnits are the MMU units with their windows.
var mmuUnits = []struct {
	window time.Duration
	unit   Unit
}{{time.Millisecond, MMU1ms}, {10 * time.Millisecond, MMU10ms}, {100 * time.Millisecond, MMU100ms}}

// traceUnit says whether u is one of a traced run's units.
func traceUnit(u Unit) bool {
	for _, m := range mmuUnits {
		if u == m.unit {
			return true
		}
	}
	return u == AssistShareSlowPct || u == ReadAssistShareSlowPct
}

// optionalUnit says whether u is declared only where a line holds it.
func optionalUnit(u Unit) bool { return mixedUnit(u) || traceUnit(u) }

// traceValues are e's trace figures: none without a trace (n/a, never a
// zero), and no assist share from a trace that saw no GC cycle (no op
// could assist: a 0% would compare as a measurement) or without a
// slowest 1%.
func traceValues(e *results.Sample) []Value {
	var vs []Value
	for _, m := range mmuUnits {
		if u, ok := results.MMUAt(e.MMU, int64(m.window)); ok {
			vs = append(vs, Value{u, m.unit})
		}
	}
	if e.GCTrace == nil || e.GCTrace.Cycles < 1 {
		return vs
	}
	for _, k := range []struct {
		kind string
		unit Unit
	}{{results.AssistWrite, AssistShareSlowPct}, {results.AssistRead, ReadAssistShareSlowPct}} {
		if a, ok := e.OpAssist[k.kind]; ok && a.SlowestPctWithAssistPct != nil {
			vs = append(vs, Value{*a.SlowestPctWithAssistPct, k.unit})
		}
	}
	return vs
}
