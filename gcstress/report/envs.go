package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// The build environments' comparison (-build-envs): per scenario that ran
// under more than one environment (the same scenario but for its
// environment), one row per environment with the collector's figures and
// the heap's shape beside them, and one conclusion sentence. Figures are
// the medians of the runs that have them (-count); a run without an end
// record has none.

// envNote says what the environment table's figures are.
const envNote = "Per build environment (-build-envs): GC and assist CPU-s per GB of key+value written (after the warm-up), " +
	"GC cycles per GB, pause p99, the mark phase's wall time per cycle (estimated: background mark CPU over the pacer's 25% of GOMAXPROCS), " +
	"peak RSS and the Put p99 (from intended start in an open-loop run, else service time). The heap's shape beside them, from the last cycle " +
	"before the end of the load: scannable bytes (heap, globals, stacks) per live heap byte, the mean object and the share of objects up to 128 B. " +
	"A heap with nothing to scan gives either collector nothing to do."

// envGroup is one scenario's runs under each environment, in order of
// first appearance.
type envGroup struct {
	first results.Scenario
	envs  []string
	rs    map[string][]results.Result
}

// envKey is a scenario without what names it or its environment.
func envKey(s results.Scenario) results.Scenario {
	s.BuildEnv = ""
	s.Name, s.Dir, s.Repeat = "", "", 0
	return s
}

// envGroups groups rs by envKey, keeping the groups with more than one
// environment; capacity steps and frontier points are left out (their
// tables and sentences compare the environments: capacity_envs.go, and
// the frontier's per kind and environment).
func envGroups(rs []results.Result) []envGroup {
	var out []envGroup
	at := map[results.Scenario]int{}
	for _, r := range rs {
		if r.Scenario.BuildEnv == "" || r.Scenario.Group == results.SetCapacity || r.Scenario.Group == results.SetFrontier {
			continue
		}
		k := envKey(r.Scenario)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, envGroup{first: r.Scenario, rs: map[string][]results.Result{}})
		}
		g := &out[i]
		if _, ok := g.rs[r.Scenario.BuildEnv]; !ok {
			g.envs = append(g.envs, r.Scenario.BuildEnv)
		}
		g.rs[r.Scenario.BuildEnv] = append(g.rs[r.Scenario.BuildEnv], r)
	}
	kept := out[:0]
	for _, g := range out {
		if len(g.envs) > 1 {
			kept = append(kept, g)
		}
	}
	return kept
}

// envFigures are one environment's figures in a group (medians; NaN when
// no run has the figure).
type envFigures struct {
	gc, assist, cyclesGB, pauseUs, markMs, rssMiB, p99Ns float64
	scanPerLive, meanObj, small                          float64
	intended                                             bool
}

func figuresOf(rs []results.Result) envFigures {
	var f [10][]float64
	intended := false
	for _, r := range rs {
		e := r.End
		if e == nil {
			continue
		}
		add := func(i int, v float64, ok bool) {
			if ok {
				f[i] = append(f[i], v)
			}
		}
		// The CPU counters advance only when a cycle ends: a run with too
		// few has no GC CPU figure (0 would read "free"; resolve.go).
		add(0, e.GCCPUSPerGB, e.CostResolved())
		add(1, e.AssistCPUSPerGB, e.CostResolved())
		add(2, float64(e.Cycles)/(float64(e.Bytes)/1e9), e.Bytes > 0)
		add(3, e.PauseP99us, true)
		add(4, e.MarkWallMs, e.Cycles > 0)
		add(5, float64(e.PeakRSS)/(1<<20), e.PeakRSS > 0)
		if e.ILatP99 > 0 {
			intended = true
			add(6, float64(e.ILatP99), true)
		} else {
			add(6, float64(e.LatP99), e.LatP99 > 0)
		}
		if sh := e.Shape; sh != nil {
			add(7, sh.ScanPerLive(), sh.HeapLive > 0)
			add(8, sh.MeanObject(), sh.Objects > 0)
			add(9, smallShare(*sh), len(sh.Mix) > 1)
		}
	}
	m := func(i int) float64 { return stat.MedianOr(f[i], math.NaN()) }
	return envFigures{gc: m(0), assist: m(1), cyclesGB: m(2), pauseUs: m(3), markMs: m(4), rssMiB: m(5), p99Ns: m(6),
		scanPerLive: m(7), meanObj: m(8), small: m(9), intended: intended}
}

// smallShare is the share of a heap's objects of at most 128 B.
func smallShare(h gcmetrics.HeapShape) float64 {
	var small, all uint64
	for _, b := range h.Mix {
		all += b.Objects
		if b.UpTo <= 128 {
			small += b.Objects
		}
	}
	if all == 0 {
		return math.NaN()
	}
	return float64(small) / float64(all)
}

// envTable is the environments' comparison, one row per environment of
// each group; no rows without groups.
func envTable(rs []results.Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "Env", "GC CPU s/GB", "Assist s/GB", "GC cycles/GB", "Pause p99", "Mark ms/cycle", "Peak RSS", "Put p99",
		"Scan B/live B", "Mean object", "Objects ≤128 B"}
	for _, g := range envGroups(rs) {
		for _, env := range g.envs {
			f := figuresOf(g.rs[env])
			p99 := dur(f.p99Ns)
			if f.intended {
				p99 += " (intended)"
			}
			rows = append(rows, []string{envScenarioLabel(g.first), env, num(f.gc, "%.3f"), num(f.assist, "%.3f"), num(f.cyclesGB, "%.1f"),
				dur(f.pauseUs * 1e3), num(f.markMs, "%.2f"), num(f.rssMiB, "%.0f MiB"), p99,
				num(f.scanPerLive, "%.2f"), num(f.meanObj, "%.0f B"), num(100*f.small, "%.0f%%")})
		}
	}
	return header, rows
}

// envScenarioLabel is the group's scenario without its environment.
func envScenarioLabel(s results.Scenario) string {
	s.BuildEnv = ""
	return s.Label()
}

// dur is a duration of ns nanoseconds as the other tables write one
// ("-" for none).
func dur(ns float64) string {
	if math.IsNaN(ns) {
		return "-"
	}
	return view.NS(int64(ns))
}

func num(v float64, format string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// envConclusions is one sentence per group: each other environment
// against the first, figure by figure, then what the heap's shape says.
func envConclusions(rs []results.Result, esc func(string) string) []string {
	var out []string
	for _, g := range envGroups(rs) {
		base := figuresOf(g.rs[g.envs[0]])
		for _, env := range g.envs[1:] {
			out = append(out, envSentence(g.first, g.envs[0], env, base, figuresOf(g.rs[env]), esc))
		}
	}
	return out
}

func envSentence(s results.Scenario, baseName, name string, base, f envFigures, esc func(string) string) string {
	var parts []string
	f3 := func(unit string) func(float64) string { return func(v float64) string { return num(v, "%.3f "+unit) } }
	for _, c := range []struct {
		what string
		text func(float64) string
		a, b float64
	}{
		{"GC CPU", f3("s/GB"), f.gc, base.gc}, {"assist", f3("s/GB"), f.assist, base.assist},
		{"GC cycles", func(v float64) string { return num(v, "%.1f/GB") }, f.cyclesGB, base.cyclesGB},
		{"pause p99", dur, f.pauseUs * 1e3, base.pauseUs * 1e3},
		{"mark", func(v float64) string { return num(v, "%.2f ms/cycle") }, f.markMs, base.markMs},
		{"peak RSS", func(v float64) string { return num(v, "%.0f MiB") }, f.rssMiB, base.rssMiB},
		{"Put p99", dur, f.p99Ns, base.p99Ns},
	} {
		if math.IsNaN(c.a) || math.IsNaN(c.b) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s against %s%s", c.what, c.text(c.a), c.text(c.b), change(c.a, c.b)))
	}
	n, bn := esc(name), esc(baseName)
	rule := fmt.Sprintf(" (GC CPU per GB within %.0f%% or %.2g s/GB reads the same)", 100*(tieRatio-1), gcFloor)
	head := fmt.Sprintf("%s costs the collector about as much as %s%s", n, bn, rule)
	switch {
	case math.IsNaN(f.gc) || math.IsNaN(base.gc):
		head = fmt.Sprintf("%s against %s: no GC CPU to compare (GC CPU %s)", n, bn, fewCycles())
	case sameGC(f.gc, base.gc):
	case f.gc > base.gc:
		head = fmt.Sprintf("%s costs the collector more than %s%s", n, bn, rule)
	default:
		head = fmt.Sprintf("%s costs the collector less than %s%s", n, bn, rule)
	}
	sent := esc(envScenarioLabel(s)) + ": " + head + ": " + strings.Join(parts, ", ")
	if !math.IsNaN(f.scanPerLive) {
		sent += fmt.Sprintf("; its heap scans %.2f B per live byte", f.scanPerLive)
		if !math.IsNaN(f.small) {
			sent += fmt.Sprintf(", %.0f%% of its objects up to 128 B", 100*f.small)
		}
		sent += shapeNote(f.scanPerLive, f.meanObj)
	}
	return sent + "."
}

// The heap shapes a conclusion names: fewer than littleScan scannable
// bytes per live byte leaves the collector few pointers to follow, and a
// mean object of at least bigObject few objects to mark per byte (the
// arena kinds' chunks). A heap of small noscan objects (heap's 1 KB
// values) has the first without the second: its objects are still marked
// one by one, so it is not "nothing to scan".
const (
	littleScan = 0.1
	bigObject  = 1024
)

// shapeNote is what a heap's shape says of its collector's work: "" when
// it has pointers to follow.
func shapeNote(scanPerLive, meanObj float64) string {
	switch {
	case scanPerLive >= littleScan:
		return ""
	case meanObj >= bigObject:
		return ": next to nothing to scan or mark under either collector"
	}
	return fmt.Sprintf(": few pointers to follow, but its objects (%.0f B on average) are still marked one by one", meanObj)
}

// gcFloor is the least difference of GC CPU per GB that a conclusion
// counts: 10 ms of collector CPU per GB written, the cost of a cycle or
// two of a heap with next to nothing to scan (the arena kinds'), which
// whether a short run happened to end one decides.
const gcFloor = 0.01

// sameGC says whether two GC CPU-s per GB figures read the same: within
// gcFloor of each other or within tieRatio.
func sameGC(a, b float64) bool {
	lo, hi := min(a, b), max(a, b)
	return hi-lo < gcFloor || (lo > 0 && hi/lo < tieRatio)
}

// change is " (+12%)" for a against b, "" when b is 0.
func change(a, b float64) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf(" (%+.0f%%)", 100*(a-b)/b)
}

// kindColumn is a scenario's column in a per-kind table: its kind, and
// its build environment when it has one ("heap env=classic").
func kindColumn(s results.Scenario) string {
	if s.BuildEnv == "" {
		return s.Kind
	}
	return s.Kind + " env=" + s.BuildEnv
}

// columnsOf lists the kindColumns of rs, in order of first appearance.
func columnsOf(rs []results.Result) []string {
	var cs []string
	for _, r := range rs {
		if c := kindColumn(r.Scenario); !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	return cs
}
