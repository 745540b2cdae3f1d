package view

import (
	"fmt"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
)

// busyNote is the reports' warning for the scenarios run on a busy
// machine, or "" when none was.
func BusyNote(rs []results.Result) string {
	var b strings.Builder
	for _, r := range rs {
		if r.Machine.Busy() {
			if b.Len() == 0 {
				fmt.Fprintf(&b, "Busy machine (other processes and steal above %.2g cores on average; verdicts and MB/s may not hold on a quiet machine):", results.BusyCores)
			}
			fmt.Fprintf(&b, " %s others %.2f + steal %.2f cores;", r.Scenario.Name, r.Machine.OthersCores, r.Machine.StealCores)
		}
	}
	return strings.TrimSuffix(b.String(), ";")
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
