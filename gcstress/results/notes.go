package results

import (
	"slices"
	"strings"
)

// PanicLine is the first "panic: ..." line of a child's stderr (Result.Stderr,
// the tail the parent kept), "" when it has none: what a panicking engine
// said as it took its child down.
func PanicLine(stderr string) string {
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "panic: ") {
			return strings.TrimRight(line, "\r\n")
		}
	}
	return ""
}

// Notes are the lines a report lists under "Notes": the summary's warnings
// (the samples.jsonl lines a rebuild skipped), then, per run whose child
// panicked, its label and panic line.
func Notes(sum *Summary) []string {
	notes := slices.Clone(sum.Warnings)
	for _, r := range sum.Results {
		if p := PanicLine(r.Stderr); p != "" {
			notes = append(notes, r.Scenario.RunLabel()+": the child panicked: "+p)
		}
	}
	return notes
}
