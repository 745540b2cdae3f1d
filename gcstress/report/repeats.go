package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
)

// repeatsTable is, for a run with -count N > 1, one row per scenario that
// ran more than once: how many runs ended with an end record, and the
// median with the least and greatest of MB/s, GC CPU-ns per Put, objects
// per entry and GC pause p99, then the classes the runs got: GC CPU over
// the runs whose cost rests on enough GC cycles (fewCycles when none
// does), objects per entry below what a run resolves as ~0 (resolve.go).
// The table is a reading aid; `gcstress compare` (package compare) is what judges two
// such runs. Scenarios keep their first appearance's order.
func repeatsTable(rs []results.Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "Runs", "MB/s", "GC CPU ns/Put", "Objects/entry", "Pause p99", "Classes"}
	var order []string
	runs := map[string][]results.Result{}
	for _, r := range rs {
		if r.Scenario.Repeat == 0 || r.Scenario.Group == results.SetCapacity {
			continue
		}
		if _, ok := runs[r.Scenario.Name]; !ok {
			order = append(order, r.Scenario.Name)
		}
		runs[r.Scenario.Name] = append(runs[r.Scenario.Name], r)
	}
	for _, name := range order {
		g := runs[name]
		if len(g) < 2 {
			continue
		}
		var mbps, gc, obj, pause []float64
		for _, r := range g {
			if e := r.End; e != nil {
				mbps, pause = append(mbps, e.MBps), append(pause, e.PauseP99us)
				if e.CostResolved() {
					gc = append(gc, e.GCCPUNsPerPut)
				}
				if e.Entries > 0 {
					obj = append(obj, e.ObjectsPerEntry)
				}
			}
		}
		gcs := spread(gc, "%.0f")
		if len(gc) == 0 && len(mbps) > 0 {
			gcs = fewCycles()
		}
		rows = append(rows, []string{name, fmt.Sprintf("%d of %d", len(mbps), len(g)), spread(mbps, "%.3g"), gcs,
			spreadText(obj, objectsText), spread(pause, "%.0f µs"), classesOf(g)})
	}
	return header, rows
}

// spread is "median [least-greatest]" of vs in format f; "-" when empty.
func spread(vs []float64, f string) string {
	return spreadText(vs, func(v float64) string { return fmt.Sprintf(f, v) })
}

// spreadText is spread with each figure written by text.
func spreadText(vs []float64, text func(float64) string) string {
	if len(vs) == 0 {
		return "-"
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return text(med)
	}
	return text(med) + " [" + text(s[0]) + " to " + text(s[len(s)-1]) + "]"
}

// classesOf counts the runs' classes: "healthy ×4, elevated ×1", in the
// order the classes first appear.
func classesOf(g []results.Result) string {
	var order []results.Class
	n := map[results.Class]int{}
	for _, r := range g {
		if n[r.Verdict.Class] == 0 {
			order = append(order, r.Verdict.Class)
		}
		n[r.Verdict.Class]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s ×%d", c, n[c])
	}
	return strings.Join(parts, ", ")
}
