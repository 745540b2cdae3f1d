package explain

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// diffRow is one line of a side-by-side comparison; a nil account gives "-".
type diffRow struct {
	name string
	f    func(*Account) string
}

// scenarioRows are the ScenarioCost rows, shown first when either side
// has one.
var scenarioRows = []diffRow{
	{"objects per entry (end record)", func(a *Account) string {
		return orDash(a.Scenario, func(s *ScenarioCost) string { return fmt.Sprintf("%.3g", s.ObjectsPerEntry) })
	}},
	{"bytes per entry (end record)", func(a *Account) string {
		return orDash(a.Scenario, func(s *ScenarioCost) string { return fmt.Sprintf("%.0f B", s.BytesPerEntry) })
	}},
	{"GC CPU-ns per Put (end record)", func(a *Account) string {
		return orDash(a.Scenario, func(s *ScenarioCost) string {
			return fmt.Sprintf("%.0f (assist %.0f)", s.GCCPUNsPerPut, s.AssistNsPerPut)
		})
	}},
	{"GC share, scenario table", func(a *Account) string {
		return orDash(a.Scenario, func(s *ScenarioCost) string { return pct(s.GCShare) })
	}},
}

var diffRows = []diffRow{
	{"GC share of CPU (profile)", func(a *Account) string { return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.GC) }) }},
	{"  marking (of GC)", func(a *Account) string { return orDash(a.CPU, func(c *CPUAccount) string { return pct0(c.Marking) }) }},
	{"  scanning (of GC)", func(a *Account) string { return orDash(a.CPU, func(c *CPUAccount) string { return pct0(c.Scanning) }) }},
	{"  assists", func(a *Account) string {
		return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.Class(ClassAssist)) })
	}},
	{"  mark workers", func(a *Account) string {
		return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.Class(ClassMarkWorker)) })
	}},
	{"  sweeping", func(a *Account) string {
		return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.Class(ClassSweep)) })
	}},
	{"  write barriers", func(a *Account) string {
		return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.Class(ClassWriteBarrier)) })
	}},
	{"allocation share of CPU", func(a *Account) string { return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.Alloc) }) }},
	{"GC CPU, metrics definition", func(a *Account) string {
		return orDash(a.CPU, func(c *CPUAccount) string { return pct(c.MetricsComparable) })
	}},
	{"GC CPU, runtime/metrics", func(a *Account) string { return orDash(a.MetricsGCCPU, func(g *float64) string { return pct(*g) }) }},
	{"top assist payer", func(a *Account) string {
		return orDash(a.CPU, func(c *CPUAccount) string { return top(c.AssistPayers) })
	}},
	{"allocated objects", func(a *Account) string {
		return orDash(a.Allocs, func(x *AllocAccount) string { return count(x.Objects) })
	}},
	{"allocated bytes", func(a *Account) string {
		return orDash(a.Allocs, func(x *AllocAccount) string { return size(x.Bytes) })
	}},
	{"top site by objects", func(a *Account) string {
		return orDash(a.Allocs, func(x *AllocAccount) string { return top(x.ByObjects) })
	}},
	{"top site by bytes", func(a *Account) string {
		return orDash(a.Allocs, func(x *AllocAccount) string { return top(x.ByBytes) })
	}},
	{"in use at snapshot", func(a *Account) string { return orDash(a.Heap, func(x *AllocAccount) string { return size(x.Bytes) }) }},
	{"off CPU (wall clock)", func(a *Account) string {
		return orDash(a.Wall, func(w *WallAccount) string { return pct0(float64(w.OffCPU) / float64(w.Wall)) })
	}},
	{"top wait", func(a *Account) string {
		return orDash(a.Wall, func(wa *WallAccount) string {
			for _, w := range wa.Classes {
				if w.Class != WaitRunning {
					return fmt.Sprintf("%s %s", w.Class, pct0(w.Share))
				}
			}
			return "none"
		})
	}},
	{"GC cycles (trace)", func(a *Account) string {
		return trF(a, func(t *TraceAccount) string { return fmt.Sprint(len(t.Cycles)) })
	}},
	{"mark phase share of time", func(a *Account) string { return trF(a, func(t *TraceAccount) string { return pct0(t.MarkShare) }) }},
	{"pause p99 / max", func(a *Account) string {
		return trF(a, func(t *TraceAccount) string { return dur(t.PauseP99) + " / " + dur(t.PauseMax) })
	}},
	{"slow ops overlapping GC", func(a *Account) string {
		return trF(a, func(t *TraceAccount) string {
			if t.Ops == nil || t.Ops.Slow == 0 {
				return "-"
			}
			return fmt.Sprintf("%s (all: %s)", pct0(t.Ops.SlowInGC), pct0(t.Ops.AllInGC))
		})
	}},
}

// orDash is f of the section s, or "-" where the account has no such
// section (s is nil).
func orDash[T any](s *T, f func(*T) string) string {
	if s == nil {
		return "-"
	}
	return f(s)
}

func trF(a *Account, f func(*TraceAccount) string) string {
	if len(a.Traces) == 0 {
		return "-"
	}
	// Prefer the capture window's trace over a flight-recorder dump.
	for _, t := range a.Traces {
		if base(t.File) != FlightFile {
			return f(t)
		}
	}
	return f(a.Traces[0])
}

func top(ss []Site) string {
	if len(ss) == 0 {
		return "none"
	}
	return ss[0].Func + " " + pct0(ss[0].Share)
}

// rowsFor is the rows a comparison of a and b shows: the scenario rows
// only when either account has a ScenarioCost.
func rowsFor(a, b *Account) []diffRow {
	if a.Scenario == nil && b.Scenario == nil {
		return diffRows
	}
	return append(slices.Clone(scenarioRows), diffRows...)
}

// WriteDiff writes the side-by-side comparison of a and b, as aligned text
// or, with markdown set, as a Markdown table.
func WriteDiff(w io.Writer, a, b *Account, markdown bool) error {
	var sb strings.Builder
	if markdown {
		fmt.Fprintf(&sb, "### %s vs %s\n\n| | %s | %s |\n|---|---|---|\n", mdEscape(a.Label), mdEscape(b.Label), mdEscape(a.Label), mdEscape(b.Label))
		for _, r := range rowsFor(a, b) {
			fmt.Fprintf(&sb, "| %s | %s | %s |\n", strings.TrimSpace(r.name), mdEscape(r.f(a)), mdEscape(r.f(b)))
		}
		fmt.Fprintf(&sb, "\n- %s\n- %s\n", mdEscape(a.Headline()), mdEscape(b.Headline()))
	} else {
		fmt.Fprintf(&sb, "%s vs %s\n", a.Label, b.Label)
		tw := tabwriter.NewWriter(&sb, 0, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "\t%s\t%s\n", a.Label, b.Label)
		for _, r := range rowsFor(a, b) {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", r.name, r.f(a), r.f(b))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(&sb, "%s\n%s\n", a.Headline(), b.Headline())
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
