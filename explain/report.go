package explain

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/internal/stat"
)

// pct formats a 0..1 share as a percentage with one decimal.
func pct(f float64) string { return stat.Percent(f, 1) }

// pct0 formats a 0..1 share as a whole percentage.
func pct0(f float64) string { return stat.Percent(f, 0) }

// dur formats a duration with three significant digits.
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return sig3(float64(d)/1e3) + "µs"
	case d < time.Second:
		return sig3(float64(d)/1e6) + "ms"
	default:
		return sig3(d.Seconds()) + "s"
	}
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func count(n int64) string {
	f := float64(n)
	switch {
	case f >= 1e9:
		return sig3(f/1e9) + "G"
	case f >= 1e6:
		return sig3(f/1e6) + "M"
	case f >= 1e4:
		return sig3(f/1e3) + "k"
	default:
		return fmt.Sprintf("%d", n)
	}
}

func size(n int64) string {
	f := float64(n)
	switch {
	case f >= 1<<30:
		return sig3(f/(1<<30)) + " GiB"
	case f >= 1<<20:
		return sig3(f/(1<<20)) + " MiB"
	case f >= 1<<10:
		return sig3(f/(1<<10)) + " KiB"
	default:
		return fmt.Sprintf("%d B", n)
	}
}

func base(p string) string { return filepath.Base(p) }

func sites(ss []Site) string {
	if len(ss) == 0 {
		return "none"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.Func + " " + pct(s.Share)
	}
	return strings.Join(parts, ", ")
}

// Headline is the account's one-sentence summary, e.g. "heap: 41.0% of CPU
// in GC, 83% of it marking; 96.0% of allocated objects come from
// memtable.(*heapList).Put".
func (a *Account) Headline() string {
	var parts []string
	if a.CPU != nil {
		parts = append(parts, fmt.Sprintf("%s of CPU in GC, %s of it marking", pct(a.CPU.GC), pct0(a.CPU.Marking)))
	}
	if a.Allocs != nil && len(a.Allocs.ByObjects) > 0 {
		s := a.Allocs.ByObjects[0]
		parts = append(parts, fmt.Sprintf("%s of allocated objects come from %s", pct(s.Share), s.Func))
	}
	for _, t := range a.Traces {
		if t.Ops != nil && t.Ops.Slow > 0 {
			parts = append(parts, fmt.Sprintf("%s of slow %s overlapped GC (%s of all)", pct0(t.Ops.SlowInGC), t.Ops.Region, pct0(t.Ops.AllInGC)))
			break
		}
	}
	if len(parts) == 0 {
		for _, t := range a.Traces {
			parts = append(parts, fmt.Sprintf("%d GC cycles, mark phase %s of the time", len(t.Cycles), pct0(t.MarkShare)))
			break
		}
	}
	if len(parts) == 0 && a.Wall != nil {
		parts = append(parts, fmt.Sprintf("%s of goroutine wall-clock time off CPU", pct0(float64(a.Wall.OffCPU)/float64(a.Wall.Wall))))
	}
	if len(parts) == 0 {
		parts = append(parts, "no CPU, allocation, wall-clock or trace data")
	}
	return a.Label + ": " + strings.Join(parts, "; ")
}

// GCCPUComparison prints the profile's GC CPU share beside runtime/metrics'
// when both are known, and "" otherwise.
func (a *Account) GCCPUComparison() string {
	if a.CPU == nil || a.MetricsGCCPU == nil {
		return ""
	}
	d := math.Abs(a.CPU.MetricsComparable-*a.MetricsGCCPU) * 100
	agree := "agree within 5 points"
	if d > 5 {
		agree = "DISAGREE by more than 5 points"
	}
	return fmt.Sprintf("GC CPU as gcmetrics counts it (assists, mark workers, pauses; not sweeping or idle-priority marking): profile %s, runtime/metrics %s, %.1f points apart (%s)",
		pct(a.CPU.MetricsComparable), pct(*a.MetricsGCCPU), d, agree)
}

func cpuLine(c *CPUAccount) string {
	return fmt.Sprintf("CPU (%s, %s sampled over %s): GC %s = assists %s, mark workers %s, other GC %s, sweeping %s, write barriers %s; %s of GC CPU scanning objects; allocation %s",
		base(c.File), dur(c.Total), dur(c.Duration), pct(c.GC),
		pct(c.Class(ClassAssist)), pct(c.Class(ClassMarkWorker)), pct(c.Class(ClassGCOther)),
		pct(c.Class(ClassSweep)), pct(c.Class(ClassWriteBarrier)), pct0(c.Scanning), pct(c.Alloc))
}

func allocLine(x *AllocAccount) string {
	what := "allocated"
	if x.Mode == "inuse" {
		what = "in use at the snapshot"
	}
	return fmt.Sprintf("%s (%s): %s objects, %s", what, base(x.File), count(x.Objects), size(x.Bytes))
}

func waitClasses(ws []WaitShare, skipRunning bool) string {
	var parts []string
	for _, w := range ws {
		if skipRunning && w.Class == WaitRunning {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s", w.Class, pct0(w.Share)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func wallLine(w *WallAccount) string {
	return fmt.Sprintf("wall clock (%s, %s of goroutine time over %s): %s off CPU: %s",
		base(w.File), dur(w.Wall), dur(w.Duration), pct0(float64(w.OffCPU)/float64(w.Wall)), waitClasses(w.Classes, true))
}

func traceLine(t *TraceAccount) string {
	return fmt.Sprintf("trace (%s, %s): %d GC cycles, mark phase %s of the time; %d GC pauses (p99 %s, max %s, total %s)",
		base(t.File), dur(t.Duration), len(t.Cycles), pct0(t.MarkShare), t.Pauses, dur(t.PauseP99), dur(t.PauseMax), dur(t.PauseTotal))
}

func cycleLine(i int, c GCCycle) string {
	s := fmt.Sprintf("GC %d @%s: mark %s", i+1, dur(c.Mark.Start), dur(c.Mark.Duration))
	if len(c.Pauses) > 0 {
		var ps []string
		for _, p := range c.Pauses {
			ps = append(ps, fmt.Sprintf("%s %s", strings.TrimPrefix(p.Reason, "GC "), dur(p.Duration)))
		}
		s += "; pauses: " + strings.Join(ps, ", ")
	}
	return s
}

func opsLine(o *OpStats) string {
	s := fmt.Sprintf("%s: %d ops, p50 %s, p99 %s, max %s; %d slow (> %s)", o.Region, o.Count, dur(o.P50), dur(o.P99), dur(o.Max), o.Slow, dur(o.Threshold))
	if o.Slow == 0 {
		return s + "; no slow operations to explain"
	}
	verdict := "the collector does not explain the tail"
	if o.TiedToGC {
		verdict = "the tail is tied to the collector"
	}
	s += fmt.Sprintf(": %s overlapped a mark phase, %s a GC pause, %s either, %s ran an assist themselves; %s of all ops overlapped GC: %s",
		pct0(o.SlowInMark), pct0(o.SlowInPause), pct0(o.SlowInGC), pct0(o.SlowAssisted), pct0(o.AllInGC), verdict)
	if o.SlowInOtherPause > 0 {
		s += fmt.Sprintf("; %s of slow ops overlapped a non-GC pause", pct0(o.SlowInOtherPause))
	}
	return s
}

// otherPausesLine groups non-GC pauses by reason, most total time first.
func otherPausesLine(ps []Pause) string {
	type agg struct {
		reason string
		n      int
		total  time.Duration
	}
	var aggs []*agg
	idx := map[string]*agg{}
	var total time.Duration
	for _, p := range ps {
		a := idx[p.Reason]
		if a == nil {
			a = &agg{reason: p.Reason}
			idx[p.Reason] = a
			aggs = append(aggs, a)
		}
		a.n++
		a.total += p.Duration
		total += p.Duration
	}
	slices.SortStableFunc(aggs, func(x, y *agg) int { return cmp.Compare(y.total, x.total) })
	parts := make([]string, len(aggs))
	for i, a := range aggs {
		parts[i] = fmt.Sprintf("%s x%d %s", a.reason, a.n, dur(a.total))
	}
	return fmt.Sprintf("%d pauses not made by the GC, %s in all: %s", len(ps), dur(total), strings.Join(parts, ", "))
}

func contentionLine(c *ContentionAccount) string {
	return fmt.Sprintf("%s (%s): %d contentions, %s waited; %s", c.Type, base(c.File), c.Contentions, dur(c.Delay), sites(c.Sites))
}

// lines renders the account as (indent, text) lines shared by both formats.
func (a *Account) lines(maxCycles int) [][2]string {
	var out [][2]string
	add := func(lvl int, s string) { out = append(out, [2]string{strings.Repeat("  ", lvl), s}) }
	if c := a.CPU; c != nil {
		add(0, cpuLine(c))
		if s := a.GCCPUComparison(); s != "" {
			add(1, s)
		}
		if c.Class(ClassAssist) > 0 {
			add(1, "assists paid by: "+sites(c.AssistPayers))
		}
		if c.Alloc > 0 {
			add(1, "allocation CPU paid by: "+sites(c.AllocPayers))
		}
	} else if a.MetricsGCCPU != nil {
		add(0, "runtime/metrics GC CPU: "+pct(*a.MetricsGCCPU)+" (no CPU profile to compare)")
	}
	if x := a.Allocs; x != nil {
		add(0, allocLine(x))
		add(1, "by objects: "+sites(x.ByObjects))
		add(1, "by bytes: "+sites(x.ByBytes))
	}
	if x := a.Heap; x != nil {
		add(0, allocLine(x))
		add(1, "by bytes: "+sites(x.ByBytes))
		add(1, "by objects: "+sites(x.ByObjects))
	}
	if w := a.Wall; w != nil {
		add(0, wallLine(w))
		for _, s := range w.Sites {
			add(1, fmt.Sprintf("%s: %s off CPU of %s (%s)", s.Func, dur(s.OffCPU), dur(s.Wall), waitClasses(s.Classes, false)))
		}
	}
	for _, t := range a.Traces {
		add(0, traceLine(t))
		for i, c := range t.Cycles {
			if i == maxCycles {
				add(1, fmt.Sprintf("... %d more cycles", len(t.Cycles)-i))
				break
			}
			add(1, cycleLine(i, c))
		}
		if len(t.OtherPauses) > 0 {
			add(1, otherPausesLine(t.OtherPauses))
		}
		switch {
		case t.Ops != nil:
			add(1, opsLine(t.Ops))
		case len(t.RegionTypes) > 0:
			add(1, "no operations marked as regions or tasks of the chosen type; found: "+strings.Join(t.RegionTypes, ", "))
		default:
			add(1, "no operations marked (trace.WithRegion(ctx, \""+DefaultRegion+"\", ...)); GC timing only")
		}
	}
	for _, c := range a.Contention {
		add(0, contentionLine(c))
	}
	for _, u := range a.Unusable {
		add(0, "not used: "+unusableReason(u))
	}
	return out
}

// unusableReason says which file was left out and why, without the path
// the error repeats: "cpu.pprof: empty profile: file is empty".
func unusableReason(u Unusable) string {
	msg := strings.TrimPrefix(u.Err.Error(), "explain: ")
	msg = strings.TrimPrefix(msg, u.Path+": ")
	return base(u.Path) + ": " + msg
}

// WriteText writes the account as plain text: the headline, then one
// indented line per finding.
func (a *Account) WriteText(w io.Writer) error {
	return a.writeText(w, a.maxCycles)
}

func (a *Account) writeText(w io.Writer, maxCycles int) error {
	var b bytes.Buffer
	b.WriteString(a.Headline() + "\n")
	for _, l := range a.lines(Options{MaxCycles: maxCycles}.maxCycles()) { // 0: the default
		b.WriteString("  " + l[0] + l[1] + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the account as Markdown: a heading with the
// headline and a nested list of findings.
func (a *Account) WriteMarkdown(w io.Writer) error {
	return a.writeMarkdown(w, a.maxCycles)
}

func (a *Account) writeMarkdown(w io.Writer, maxCycles int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### %s\n\n", mdEscape(a.Label))
	fmt.Fprintf(&b, "**%s**\n\n", mdEscape(a.Headline()))
	for _, l := range a.lines(Options{MaxCycles: maxCycles}.maxCycles()) { // 0: the default
		fmt.Fprintf(&b, "%s- %s\n", l[0], mdEscape(l[1]))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// mdEscape escapes the characters Go function names carry that Markdown
// would read as emphasis.
func mdEscape(s string) string {
	return strings.NewReplacer("*", `\*`, "_", `\_`).Replace(s)
}
