package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// openLoopTable shows every open-loop scenario outside the capacity search
// and the frontier (whose tables show their rates and latencies):
// target against achieved rate, and service time against latency from
// intended start.
func openLoopTable(rs []results.Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "Target MB/s", "Achieved MB/s", "Put p99 (service)", "From intended start p50/p99/p99.9/max"}
	for _, r := range rs {
		// A mix's open-loop figures are its throughput and operations tables (readers.go).
		if r.Scenario.Rate <= 0 || r.Scenario.Group == results.SetCapacity || r.Scenario.Group == results.SetFrontier || r.End == nil || r.Scenario.Mixed() {
			continue
		}
		e := r.End
		rows = append(rows, []string{r.Scenario.RunLabel(), fmt.Sprintf("%.3g", r.Scenario.TargetMBps()), fmt.Sprintf("%.3g", e.MBps),
			view.NS(e.LatP99), fmt.Sprintf("%s/%s/%s/%s", view.NS(e.ILatP50), view.NS(e.ILatP99), view.NS(e.ILatP999), view.NS(e.ILatMax))})
	}
	return header, rows
}

// capacityTable is one row per kind x value size of the capacity search
// (per build environment too: its Kind column names it, capacityKind).
// Sustainable is the fit over every step with its interval ("23 (19-27)",
// capacityFigure), Fit the figure it came from, CPU at the knee the cores
// burned at that rate and the CPU-s per GB near it (kneeFigure), Step the search's own
// pass/fail figure beside it. A contended search's sustainable figure is a
// lower bound, marked so: the machine's other load took CPU from its steps
// (its Contended column says "yes" and the notes say why). Runs and Spread
// are the confirmation of the step figure: how many of its runs were
// healthy and how far their achieved rates lay apart.
func capacityTable(cs []results.Capacity) (header []string, rows [][]string) {
	header = []string{"Kind", "Value", "Closed-loop MB/s", "Sustainable MB/s", "Fit", "CPU at the knee", "Step MB/s", "First unhealthy MB/s", "Limit", "Contended", "Runs", "Spread", "Steps"}
	for _, c := range cs {
		first, limit := "-", "-"
		if c.FirstUnhealthyMBps > 0 {
			first, limit = fmt.Sprintf("%.3g", c.FirstUnhealthyMBps), string(c.Limit)
		}
		contended := "no"
		if c.Contended {
			contended = "yes"
		}
		runs, spread := "-", "-"
		if c.SustainableRuns > 0 {
			runs = fmt.Sprint(c.SustainableRuns)
			if c.SustainableRuns > 1 {
				spread = fmt.Sprintf("%.1f%%", c.SpreadPct)
			}
		}
		fit := "steps"
		if c.FitFigure != "" {
			fit = string(c.FitFigure)
		}
		rows = append(rows, []string{capacityKind(c), workload.FormatSize(c.Value), fmt.Sprintf("%.3g", c.ProbeMBps),
			capacityFigure(c, false), fit, kneeFigure(c), fmt.Sprintf("%.3g", stepFigure(c)), first, limit, contended, runs, spread, fmt.Sprint(len(c.Steps))})
	}
	return header, rows
}

// kneeFigure is the CPU a search's process burned at its sustainable rate
// and what a GB cost near it: "1.55 cores, 28.4 CPU-s/GB"; "-" for a
// summary without it.
func kneeFigure(c results.Capacity) string {
	if c.KneeCPUSPerGB <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g cores, %.3g CPU-s/GB", c.KneeCores, c.KneeCPUSPerGB)
}

// capacityFigure is how a search's sustainable rate reads wherever it is
// shown: "23 (19-27)" with its interval, "≥ 20.9 (contended)" when the
// machine's other load took CPU from its steps (a lower bound: the interval
// is one too); unit adds " MB/s" after the figure.
func capacityFigure(c results.Capacity, unit bool) string {
	u := ""
	if unit {
		u = " MB/s"
	}
	if c.Contended {
		return fmt.Sprintf("≥ %.3g%s (contended)", c.SustainableMBps, u)
	}
	lo, hi := c.SustainableLoMBps, c.SustainableHiMBps
	if hi <= 0 || (lo == c.SustainableMBps && hi == c.SustainableMBps) {
		return fmt.Sprintf("%.3g%s", c.SustainableMBps, u)
	}
	return fmt.Sprintf("%.3g%s (%.3g-%.3g)", c.SustainableMBps, u, lo, hi)
}

// stepFigure is the search's pass/fail figure (the sustainable figure of a
// summary written before the fit).
func stepFigure(c results.Capacity) float64 {
	if c.StepMBps > 0 || c.SustainableHiMBps > 0 {
		return c.StepMBps
	}
	return c.SustainableMBps
}

// capacityNotes says, per search, why its first unhealthy step was so, and
// the rules a step is held to; kinds and reasons go through esc.
func capacityNotes(cs []results.Capacity, th results.Thresholds, esc func(string) string) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	slo := "no latency limit"
	if cs[0].SLO > 0 {
		slo = fmt.Sprintf("p99 from intended start within %v", cs[0].SLO)
	}
	fmt.Fprintf(&b, "A step is healthy when, over its windows after the %v warm-up, the collector's mean GC CPU is < %g%% and mean assists < %g%% of busy CPU "+
		"and the heap is within its goal at most window ends, the %s, and the achieved rate at least %.0f%% of the target (one heavy GC cycle in a short span does not fail it: "+
		"its cost to writers is in the p99); the search doubles from 1/16 of the closed-loop rate, then bisects to within %.0f%%.\n",
		th.Warmup, th.HealthyGC, th.HealthyAssist, slo, 100*results.CapacityMinAchieved, 100*results.CapacityResolution)
	b.WriteString(capacityFitNote)
	for _, c := range cs {
		if c.Contended {
			fmt.Fprintf(&b, "%s: contended: %s; %.3g MB/s is what it reached, a lower bound, not its capacity.\n",
				esc(capacityLabel(c)), esc(c.ContendedWhy), c.SustainableMBps)
		}
		for _, st := range c.Steps {
			if !st.Healthy && st.TargetMBps == c.FirstUnhealthyMBps {
				fmt.Fprintf(&b, "%s: at %.3g MB/s %s.\n", esc(capacityLabel(c)), st.TargetMBps, esc(st.Why))
				break
			}
		}
	}
	return b.String()
}

// writeSetNotes prints each failure-like group's settings (failure,
// collapse, stall) and the collapse scenario's machine dependence; the
// settings go through esc.
func writeSetNotes(w io.Writer, rs []results.Result, prefix string, esc func(string) string) {
	for _, g := range []string{results.SetFailure, results.SetCollapse, results.SetStall} {
		for _, r := range rs {
			if r.Scenario.Group == g {
				fmt.Fprintf(w, "%s%s: %s.\n", prefix, g, esc(strings.TrimPrefix(r.Scenario.Describe(), "kind "+r.Scenario.Kind+", ")))
				break
			}
		}
	}
	if len(group(rs, results.SetCollapse)) > 0 {
		fmt.Fprintf(w, "%s%s\n", prefix, results.CollapseNote)
	}
}

// noEscape is the esc of the HTML report, whose template escapes.
func noEscape(s string) string { return s }

// failureSettings is writeSetNotes on one line (for the HTML report).
func failureSettings(rs []results.Result) string {
	var b strings.Builder
	writeSetNotes(&b, rs, "", noEscape)
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "\n", " "))
}

// capacityFitNote says where the sustainable figure comes from.
const capacityFitNote = "Sustainable is the lowest rate at which a fit over every step reaches its limit: each step's mean GC and assist shares, " +
	"median heap share of its goal and p99 from intended start, fitted against the rate (never falling as the rate rises), reach their thresholds, " +
	"or the share of a rate's steps that failed reaches half. " +
	"In brackets its interval (a flat knee gives a wide one); " +
	"Step is the highest rate every run of which was healthy. A contended figure is a lower bound: other processes took CPU from its steps.\n"
