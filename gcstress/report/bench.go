package report

import (
	"io"

	"github.com/writegc/writegc/gcstress/compare"
	"github.com/writegc/writegc/gcstress/results"
)

// BenchFile is the results folder's bench.txt: every scenario run's
// figures in the Go benchmark format, for `gcstress compare`, benchstat
// and benchgate (package benchtxt is its schema). A rebuild writes it
// again from the replayed runs, so an older folder gets one.
const BenchFile Name = compare.FileName

var benchFormat = Format{Name: BenchFile, When: AtRun | AtRebuild, Owns: is(compare.FileName),
	Files: one(compare.FileName, func(w io.Writer, sum *results.Summary, _ []string) error {
		return compare.Write(w, sum)
	})}
