package gcstress

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/inputfile"
)

// RebuildReports regenerates the reports of the results folder dir from its
// samples.jsonl (the command's `gcstress report DIR`): the charts, report.md,
// report.html and bench.txt. The run's metadata (command, machine, times, thresholds)
// and what only the parent knew (profile accounts, exits, machine load) come
// from summary.json when it is there; without it the default thresholds
// classify the windows. summary.json and samples.jsonl are not modified.
// Each report is written atomically and recorded in dir's manifest (one is
// started when dir has none); a failed write wraps ErrWrite and names the
// file. A dir without samples.jsonl is refused with an error wrapping
// ErrUsage.
// It must not run while a run writes to dir. summary.json and samples.jsonl
// are read only when they are regular files (a FIFO, a device, a socket or a
// directory in their place is refused, wrapping ErrUsage, before anything is
// read) within results.MaxSummaryBytes and results.MaxSamplesBytes (over
// them: ErrUsage, naming the file and the limit). A samples.jsonl line over
// MaxRecord (16 MiB) or that is not JSON is skipped, and the reports' notes
// (Summary.Warnings) say how many and which by line number: a rebuild
// recovers what the rest of the file holds.
func RebuildReports(dir string) (*Summary, error) {
	path := filepath.Join(dir, "samples.jsonl")
	f, err := inputfile.Open(path, results.MaxSamplesBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: report: %v", ErrUsage, err)
	}
	defer f.Close()
	sum, err := results.ReadSummary(dir)
	if errors.Is(err, inputfile.ErrNotRegular) || errors.Is(err, inputfile.ErrTooLarge) {
		return nil, fmt.Errorf("%w: report: %w", ErrUsage, err)
	}
	if err != nil {
		return nil, err
	}
	rs, skipped, err := results.ReadSamples(f, sum.Thresholds)
	if errors.Is(err, inputfile.ErrTooLarge) {
		return nil, fmt.Errorf("%w: report: %w", ErrUsage, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if w := results.SkipWarning(path, skipped); w != "" {
		sum.Warnings = append(sum.Warnings, w)
	}
	sum.Results = results.MergeResults(rs, sum.Results, sum.Thresholds)
	o, err := openOutFiles(dir, nil)
	if err != nil {
		return sum, err
	}
	return sum, report.WriteFolder(o, sum, report.AtRebuild)
}

// WriteCharts writes the charts of sum into dir (report.WriteCharts), each
// atomically, recorded in dir's manifest, and returns their names.
func WriteCharts(dir string, sum *Summary) ([]string, error) {
	o, err := openOutFiles(dir, nil)
	if err != nil {
		return nil, err
	}
	return report.WriteCharts(o, sum)
}

// WriteHTMLFile writes dir/report.html atomically, replacing any earlier
// one, and records it in dir's manifest; an error wraps ErrWrite and names
// the file.
func WriteHTMLFile(dir string, sum *Summary) error {
	o, err := openOutFiles(dir, nil)
	if err != nil {
		return err
	}
	return o.Write("report.html", func(w io.Writer) error { return report.WriteHTML(w, sum) })
}
