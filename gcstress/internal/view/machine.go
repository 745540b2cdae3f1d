package view

import (
	"fmt"

	"github.com/writegc/writegc/gcstress/results"
)

// BusyNote is the reports' one-line warning for the scenarios run on a
// busy machine, or "" when none was: how many, and the busiest with its
// figures (every scenario's are in summary.json's results[].machine).
func BusyNote(rs []results.Result) string {
	n, worst := 0, -1
	for i, r := range rs {
		if r.Machine.Busy() {
			n++
			if worst < 0 || r.Machine.OthersCores+r.Machine.StealCores > rs[worst].Machine.OthersCores+rs[worst].Machine.StealCores {
				worst = i
			}
		}
	}
	if n == 0 {
		return ""
	}
	w := rs[worst]
	return fmt.Sprintf("Busy machine: %d of %d scenarios ran while other processes and steal took more than %.2g cores (busiest %s others %.2f + steal %.2f cores); their verdicts and MB/s may not hold on a quiet machine. %s",
		n, len(rs), results.BusyCores, w.Scenario.Name, w.Machine.OthersCores, w.Machine.StealCores, results.BusyCostNote)
}

// machineLoad is ", GOMAXPROCS n; load average a b c at start, d e f at
// the end" for a summary that recorded them (older ones did not: "").
func LoadLine(sum *results.Summary) string {
	if sum.GOMAXPROCS == 0 {
		return ""
	}
	return fmt.Sprintf(", GOMAXPROCS %d; load average %.2f %.2f %.2f at start, %.2f %.2f %.2f at the end", sum.GOMAXPROCS,
		sum.LoadStart[0], sum.LoadStart[1], sum.LoadStart[2], sum.LoadEnd[0], sum.LoadEnd[1], sum.LoadEnd[2])
}

// MachineLine is the run's machine as every report and the live page
// name it: "N CPUs (model), M GiB memory", the model through esc.
func MachineLine(sum *results.Summary, esc func(string) string) string {
	return fmt.Sprintf("%d CPUs (%s), %s memory", sum.CPUs, esc(OrUnknown(sum.CPUModel)), GiB(sum.MemTotal))
}
