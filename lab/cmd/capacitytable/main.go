// Command capacitytable writes results/capacity-repeats/README.md's tables from the
// runs run.sh left in a folder: each run's machine (its NAME.txt header),
// each capacity search's fitted rate and interval, whether the quiet
// searches repeat (within 15%, each interval holding the others' figures)
// and the busy one is within 25% or contended, and the fixed-rate matrix
// pair's cost per GB busy over quiet (GC CPU-s per GB within 15%, or the
// figure to read instead).
//
//	go -C lab build -o /tmp/capacitytable ./cmd/capacitytable
//	/tmp/capacitytable results/capacity-repeats > results/capacity-repeats/README.md
//
// Run names: cap-N-quiet, cap-N-busy, matrix-N-quiet, matrix-N-busy.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: capacitytable DIR (e.g. results/capacity-repeats)")
		os.Exit(2)
	}
	if err := write(os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "capacitytable:", err)
		os.Exit(1)
	}
}

// run is one gcstress run of the script.
type run struct {
	name string
	busy bool
	sum  *results.Summary
	head map[string]string // NAME.txt's "key: value" lines
}

func load(dir string) ([]run, error) {
	ms, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return nil, err
	}
	var rs []run
	for _, d := range ms {
		if !results.HasSummary(d) {
			continue
		}
		sum, err := results.ReadSummary(d)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(d)
		rs = append(rs, run{name: name, busy: strings.HasSuffix(name, "-busy"), sum: sum, head: header(d + ".txt")})
	}
	slices.SortFunc(rs, func(a, b run) int { return strings.Compare(a.name, b.name) })
	return rs, nil
}

// header reads the "key: value" lines of a run's NAME.txt.
func header(path string) map[string]string {
	h := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok && !strings.Contains(k, " ") {
			if _, seen := h[k]; !seen {
				h[k] = v
			}
		}
	}
	return h
}

func write(w io.Writer, dir string) error {
	rs, err := load(dir)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		return fmt.Errorf("no runs under %s", dir)
	}
	h := rs[0].head
	fmt.Fprintf(w, "# Capacity and cost that repeat (issue 35)\n\n")
	fmt.Fprintf(w, "Made by `results/capacity-repeats/run.sh` at commit %s on %s (%s CPUs, %s), Go %s.\n\n", h["commit"], h["cpu"], h["nproc"], h["mem"], h["goversion"])
	fmt.Fprintf(w, "## Runs\n\n| run | command | load at start | load at end | steal %% | busy cores |\n|---|---|---|---|--:|--:|\n")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", r.name, r.head["command"], r.head["loadavg-start"], r.head["loadavg-end"], r.head["steal-pct"], r.head["busy-cores"])
	}
	capacityTables(w, rs)
	matrixTables(w, rs)
	return nil
}

// capFigure is a search's rate as the reports print it.
func capFigure(c results.Capacity) string {
	s := fmt.Sprintf("%.3g (%.3g-%.3g)", c.SustainableMBps, c.SustainableLoMBps, c.SustainableHiMBps)
	if c.Contended {
		s = "≥ " + s + " contended"
	}
	return s
}

// kneeCores is the CPU a search's process burned at its sustainable rate:
// the rate times results.Capacity.KneeCPU, in cores (summaries written
// before knee_cores existed lack the field, so it is computed here). Where a search's rate moved with the
// machine's speed, this need not.
func kneeCores(c results.Capacity) float64 {
	c.SetKnee()
	return c.KneeCores
}

func capacityTables(w io.Writer, rs []run) {
	fmt.Fprintf(w, "\n## Capacity at 100 B\n\n| run | kind | sustainable MB/s (interval) | fit | step MB/s | first unhealthy | limit | busy steps | steps | CPU s/GB near the knee | cores at the knee |\n|---|---|---|---|--:|--:|---|--:|--:|--:|--:|\n")
	byKind := map[string][]struct {
		busy bool
		c    results.Capacity
	}{}
	var kinds []string
	for _, r := range rs {
		for _, c := range r.sum.Capacity {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %.3g | %.3g | %s | %d | %d | %.3g | %.3g |\n", r.name, c.Kind, capFigure(c), c.FitFigure, c.StepMBps, c.FirstUnhealthyMBps, c.Limit, c.BusySteps, len(c.Steps), c.KneeCPU(), kneeCores(c))
			if _, ok := byKind[c.Kind]; !ok {
				kinds = append(kinds, c.Kind)
			}
			byKind[c.Kind] = append(byKind[c.Kind], struct {
				busy bool
				c    results.Capacity
			}{r.busy, c})
		}
	}
	if len(kinds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDone means: the quiet figures within 15%% of each other, each quiet interval holding the other quiet figures; "+
		"the busy figure within 25%% of the quiet median or marked contended.\n\n")
	fmt.Fprintf(w, "| kind | quiet figures | max/min | intervals hold the others | busy | busy/quiet median | verdict | quiet cores at the knee | max/min |\n|---|---|--:|---|---|--:|---|---|--:|\n")
	for _, k := range kinds {
		var quiet []results.Capacity
		var busy []results.Capacity
		for _, e := range byKind[k] {
			if e.busy {
				busy = append(busy, e.c)
			} else {
				quiet = append(quiet, e.c)
			}
		}
		var qs, cores []float64
		for _, c := range quiet {
			qs = append(qs, c.SustainableMBps)
			cores = append(cores, kneeCores(c))
		}
		spread, holds := 0.0, true
		if len(qs) > 0 && slices.Min(qs) > 0 {
			spread = slices.Max(qs) / slices.Min(qs)
		}
		for _, c := range quiet {
			for _, o := range quiet {
				if o.SustainableMBps < c.SustainableLoMBps || o.SustainableMBps > c.SustainableHiMBps {
					holds = false
				}
			}
		}
		med := stat.MedianOr(qs, 0)
		ok := len(qs) > 1 && spread <= 1.15 && holds
		bs, ratio := "-", "-"
		for _, b := range busy {
			bs = capFigure(b)
			if med > 0 {
				r := b.SustainableMBps / med
				ratio = fmt.Sprintf("%.2f", r)
				ok = ok && (b.Contended || (r >= 0.75 && r <= 1.25))
			}
		}
		verdict := "holds"
		if !ok {
			verdict = "does not hold"
		}
		coreSpread := 0.0
		if len(cores) > 0 && slices.Min(cores) > 0 {
			coreSpread = slices.Max(cores) / slices.Min(cores)
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %v | %s | %s | %s | %s | %.2f |\n", k, floats(qs), spread, holds, bs, ratio, verdict, floats(cores), coreSpread)
	}
}

func floats(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.3g", x))
	}
	return strings.Join(s, ", ")
}

// matrixFig is one kind's end-record figures in one matrix run.
type matrixFig struct {
	mbps, cpu, gc, cycles, objects, bytes, onCPU float64
}

func matrixTables(w io.Writer, rs []run) {
	quiet, busy := map[string]matrixFig{}, map[string]matrixFig{}
	var kinds []string
	fmt.Fprintf(w, "\n## Cost per GB at a fixed 10 MB/s (matrix, 100 B)\n\n| run | kind | MB/s | CPU s/GB | GC CPU s/GB | GC cycles/GB | on CPU | objects/entry | bytes/entry |\n|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rs {
		if !strings.HasPrefix(r.name, "matrix-") {
			continue
		}
		for _, res := range r.sum.Results {
			e := res.End
			if e == nil {
				continue
			}
			f := matrixFig{e.MBps, e.CPUSPerGB, e.GCCPUSPerGB, e.CyclesPerGB, e.ObjectsPerEntry, e.BytesPerEntry, e.OnCPU}
			fmt.Fprintf(w, "| %s | %s | %.3g | %.3g | %.3g | %.3g | %.2f | %.3g | %.4g |\n", r.name, res.Scenario.Kind, f.mbps, f.cpu, f.gc, f.cycles, f.onCPU, f.objects, f.bytes)
			k := res.Scenario.Kind
			if _, a := quiet[k]; !a {
				if _, b := busy[k]; !b {
					kinds = append(kinds, k)
				}
			}
			if r.busy {
				busy[k] = f
			} else {
				quiet[k] = f
			}
		}
	}
	if len(kinds) == 0 {
		return
	}
	fmt.Fprintf(w, "\nDone means: each kind's GC CPU-s per GB busy within 15%% of quiet, or the figure to read instead. %s\n\n", results.BusyCostNote)
	fmt.Fprintf(w, "| kind | GC CPU s/GB busy/quiet | CPU s/GB busy/quiet | GC cycles/GB busy/quiet | objects/entry busy/quiet | verdict |\n|---|--:|--:|--:|--:|---|\n")
	for _, k := range kinds {
		q, b := quiet[k], busy[k]
		r := func(b, q float64) float64 {
			if q == 0 {
				return 0
			}
			return b / q
		}
		gc, cpu, cyc := r(b.gc, q.gc), r(b.cpu, q.cpu), r(b.cycles, q.cycles)
		verdict := "GC CPU-s/GB holds"
		if gc < 0.85 || gc > 1.15 {
			verdict = "GC CPU-s/GB does not hold beside the busy loop"
			if cpu >= 0.85 && cpu <= 1.15 && cyc >= 0.85 && cyc <= 1.15 {
				verdict += ": read CPU-s/GB and GC cycles/GB, which do"
			}
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %.2f | %s |\n", k, gc, cpu, cyc, r(b.objects, q.objects), verdict)
	}
}
